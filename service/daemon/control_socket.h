/* control_socket.h - the daemon's door for its operator (backups): a Unix socket beside the database that only the daemon's user may use. */
#ifndef ROOKERY_CONTROL_SOCKET_H
#define ROOKERY_CONTROL_SOCKET_H

#include "core/app.h"
#include "core/unix_socket.h"

#include <stddef.h>
#include <sysexits.h>

/* Exit codes of `rookery backup` (sysexits.h). */
enum {
	CONTROL_OK = 0,
	CONTROL_USAGE = EX_USAGE,       /* a bad request: the path is not absolute */
	CONTROL_FAILED = EX_IOERR,      /* the backup failed, or the caller may not ask for one */
	CONTROL_TEMPFAIL = EX_TEMPFAIL, /* the daemon is not running */
};

/* The socket's path for a database path: "<db>.control.sock". Caller frees. */
char *control_socket_path(const char *db_path);

/*
 * Listen on path (replacing a stale socket), mode 0600, and serve in a
 * thread. A connection whose peer is not the daemon's own user (SO_PEERCRED)
 * is refused whatever the file's mode. NULL with a message on failure;
 * stop it with unix_server_stop.
 */
unix_server *control_socket_start(app *a, const char *path);

/*
 * Ask the daemon at path for an online backup of its database into dest
 * (an absolute path of a file that does not exist yet). Returns one of the
 * codes above; msg holds the daemon's answer or why it was not reached.
 */
int control_socket_backup(const char *path, const char *dest, char *msg, size_t msg_size);

#endif
