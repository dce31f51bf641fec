/* mail_socket.h - the daemon's door for local commands (mail-in, backup): a Unix socket beside the database. */
#ifndef ROOKERY_MAIL_SOCKET_H
#define ROOKERY_MAIL_SOCKET_H

#include "app.h"

#include <stddef.h>

typedef struct mail_socket mail_socket;

/* The socket's path for a database path: "<db>.mail.sock". Caller frees. */
char *mail_socket_path(const char *db_path);

/* Listen on path (replacing a stale socket) and serve in a thread. NULL with a message on failure. */
mail_socket *mail_socket_start(app *a, const char *path);
void mail_socket_stop(mail_socket *s);

/*
 * The client side: send message to the daemon at path and wait for its
 * verdict. Returns a sysexits code (EX_TEMPFAIL when the daemon cannot be
 * reached) and the daemon's one-line answer in msg.
 */
int mail_socket_send(const char *path, const char *message, size_t len, const char *recipient,
		     char *msg, size_t msg_size);

/*
 * Ask the daemon at path for an online backup of its database into dest
 * (an absolute path of a file that does not exist yet). Returns 0, 74
 * (EX_IOERR) when the backup failed, or 75 when the daemon is not running;
 * msg holds the daemon's answer.
 */
int mail_socket_backup(const char *path, const char *dest, char *msg, size_t msg_size);

#endif
