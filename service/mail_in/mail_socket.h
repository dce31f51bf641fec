/* mail_socket.h - the daemon's door for incoming mail: a Unix socket beside the database that takes mail and nothing else. */
#ifndef ROOKERY_MAIL_SOCKET_H
#define ROOKERY_MAIL_SOCKET_H

#include "core/app.h"
#include "core/unix_socket.h"

#include <stddef.h>
#include <sys/types.h>

/* The socket's path for a database path: "<db>.mail.sock". Caller frees. */
char *mail_socket_path(const char *db_path);

/*
 * Listen on path (replacing a stale socket) and serve in a thread. The
 * socket is mode 0660, for the MTA's pipe user through the group: group,
 * or the daemon's own when group is (gid_t)-1. NULL with a message on failure;
 * stop it with unix_server_stop.
 */
unix_server *mail_socket_start(app *a, const char *path, gid_t group);

/*
 * The client side: send message to the daemon at path and wait for its
 * verdict. Returns a sysexits code (EX_TEMPFAIL when the daemon cannot be
 * reached) and the daemon's one-line answer in msg.
 */
int mail_socket_send(const char *path, const char *message, size_t len, const char *recipient,
		     char *msg, size_t msg_size);

#endif
