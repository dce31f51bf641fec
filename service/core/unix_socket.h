/* unix_socket.h - the plumbing of the daemon's local doors: a Unix socket served one connection at a time, and its client side. */
#ifndef ROOKERY_UNIX_SOCKET_H
#define ROOKERY_UNIX_SOCKET_H

#include <stddef.h>
#include <sys/types.h>

typedef struct unix_server unix_server;

/* Serve one accepted connection; fd has read and write timeouts and is closed afterwards. */
typedef void (*unix_handler)(void *ctx, int fd);

/*
 * Listen on path (replacing a stale socket: the caller holds the database's
 * lock, so nobody else may own it), give the socket file mode and, unless
 * group is (gid_t)-1, that group; then call handle(ctx, fd) for each
 * connection in a thread of its own. what names the door in messages
 * ("mail", "control"). NULL with a message on standard error on failure,
 * and then no socket file is left behind.
 */
unix_server *unix_server_start(const char *path, mode_t mode, gid_t group, const char *what,
			       unix_handler handle, void *ctx);

/* Stop serving (after the connection in progress), close and remove the socket. NULL is fine. */
void unix_server_stop(unix_server *s);

/* Read exactly len bytes, or write all of buf; 0, or -1 on error, timeout or end of input. */
int unix_read_full(int fd, char *buf, size_t len);
int unix_write_full(int fd, const char *buf, size_t len);

/* Read one line (without its LF) of at most size-1 bytes; -1 when none came whole. */
int unix_read_line(int fd, char *line, size_t size);

/*
 * The client side: connect to the daemon's socket at path, with timeouts.
 * -1 with a message in msg and errno kept when it cannot be reached.
 */
int unix_connect(const char *path, char *msg, size_t msg_size);

/* Read the daemon's one-line verdict "<code> <text>": the code, the text in msg; -1 when none came. */
int unix_read_verdict(int fd, char *msg, size_t msg_size);

#endif
