/* control_socket.c - the operator's door: "BACKUP <absolute path>\n" in, "<status> <text>\n" out, for the daemon's own user only. */
#define _GNU_SOURCE   /* struct ucred, SO_PEERCRED */
#include "daemon/control_socket.h"
#include "core/log.h"
#include "core/unix_socket.h"
#include "core/limits.h"
#include "xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

char *control_socket_path(const char *db_path)
{
	return xasprintf("%s.control.sock", db_path);
}

/* The file's mode keeps others out; the peer's uid is checked too, so a loosened mode does not open it. */
static int peer_is_owner(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || len != sizeof cred) {
		log_event("control socket: cannot tell who connected: %s", strerror(errno));
		return 0;
	}
	if (cred.uid != geteuid()) {
		log_event("control socket: refused a connection from uid %ld", (long)cred.uid);
		return 0;
	}
	return 1;
}

static void serve_one(void *ctx, int fd)
{
	app *a = ctx;
	char line[LIMIT_SOCKET_LINE], safe[LIMIT_SOCKET_LINE];
	db_error de;
	int r;

	/* The request is read before the verdict on the peer, so that the refusal reaches a client still writing. */
	int bad = unix_read_line(fd, line, sizeof line);
	if (!peer_is_owner(fd)) {
		dprintf(fd, "%d only the user the daemon runs as may use its control socket\n", CONTROL_FAILED);
		return;
	}
	if (bad || strncmp(line, "BACKUP /", 8)) {
		dprintf(fd, "%d the request was not understood\n", CONTROL_USAGE);
		return;
	}
	const char *dest = line + 7;
	log_sanitize(safe, sizeof safe, dest);
	app_writer_lock(a);
	r = db_backup(app_db(a), dest, &de);
	app_writer_unlock(a);
	if (r)
		log_event("backup to %s failed: %s", safe, de.message);
	else
		log_event("backed up to %s", safe);
	dprintf(fd, "%d %s\n", r ? CONTROL_FAILED : CONTROL_OK, r ? de.message : "backed up");
}

unix_server *control_socket_start(app *a, const char *path)
{
	return unix_server_start(path, 0600, (gid_t)-1, "control", serve_one, a);
}

int control_socket_backup(const char *path, const char *dest, char *msg, size_t msg_size)
{
	int fd, code;

	if (dest[0] != '/' || strchr(dest, '\n') || strlen(dest) > LIMIT_BACKUP_PATH) {
		snprintf(msg, msg_size, "the backup path must be absolute, on one line, at most %d bytes",
			 LIMIT_BACKUP_PATH);
		return CONTROL_USAGE;
	}
	fd = unix_connect(path, msg, msg_size);
	if (fd < 0)
		/* Another user's socket: run the command as the daemon's user (retrying will not help). */
		return errno == EACCES || errno == EPERM ? CONTROL_FAILED : CONTROL_TEMPFAIL;
	if (dprintf(fd, "BACKUP %s\n", dest) < 0 || (code = unix_read_verdict(fd, msg, msg_size)) < 0) {
		snprintf(msg, msg_size, "the Rookery daemon did not answer");
		code = CONTROL_TEMPFAIL;
	}
	close(fd);
	return code;
}
