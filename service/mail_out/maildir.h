/* maildir.h - write outgoing mail into a maildir, for set-ups without an SMTP server. */
#ifndef ROOKERY_MAILDIR_H
#define ROOKERY_MAILDIR_H

#include <stddef.h>

/*
 * Deliver message into dir/new (creating dir, dir/tmp, dir/new and dir/cur
 * as needed): written to tmp, flushed, then renamed, so a reader never sees
 * half a mail. id makes the file name unique. Returns 0, or -1 with why.
 */
int maildir_deliver(const char *dir, long long id, const char *message, char *why, size_t why_size);

#endif
