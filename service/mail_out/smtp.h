/* smtp.h - hand one message to an SMTP server with libcurl. */
#ifndef ROOKERY_SMTP_H
#define ROOKERY_SMTP_H

#include "mail_out/mail.h"

#include <stdatomic.h>
#include <stddef.h>

enum smtp_result { SMTP_SENT = 0, SMTP_TEMPORARY = 1, SMTP_PERMANENT = 2 };

/*
 * Send message (LF line ends; converted to CRLF) from mc->from to
 * recipient over mc->smtp_url. When *stop (may be NULL) becomes non-zero
 * the transfer is abandoned as a temporary failure: the server has not
 * taken the message then. Returns an smtp_result; on failure why holds a
 * sentence without credentials. curl_global_init must have run.
 */
int smtp_send(const mail_config *mc, const char *recipient, const char *message, const atomic_int *stop,
	      char *why, size_t why_size);

#endif
