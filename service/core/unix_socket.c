/* unix_socket.c - a Unix socket served by one thread, one connection at a time, and the client's connect and verdict. */
#include "core/unix_socket.h"
#include "core/log.h"
#include "core/limits.h"
#include "xalloc.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

struct unix_server {
	char *path;
	const char *what;
	int fd;
	int stop_pipe[2];
	unix_handler handle;
	void *ctx;
	pthread_t thread;
};

static int fill_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sa->sun_path)
		return -1;
	memcpy(sa->sun_path, path, strlen(path) + 1);
	return 0;
}

static void set_timeouts(int fd)
{
	struct timeval tv = {LIMIT_SOCKET_IO_S, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* Move all len bytes through read or write, whatever the partial counts; -1 on error or end of input. */
static int transfer(int fd, char *buf, size_t len, int writing)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = writing ? write(fd, buf + off, len - off) : read(fd, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

int unix_read_full(int fd, char *buf, size_t len)
{
	return transfer(fd, buf, len, 0);
}

int unix_write_full(int fd, const char *buf, size_t len)
{
	return transfer(fd, (char *)buf, len, 1);
}

int unix_read_line(int fd, char *line, size_t size)
{
	size_t n = 0;

	while (n < size - 1) {
		char c;
		ssize_t k = read(fd, &c, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		if (c == '\n') {
			line[n] = 0;
			return 0;
		}
		line[n++] = c;
	}
	return -1;
}

static void *serve(void *arg)
{
	unix_server *s = arg;
	struct pollfd fds[2] = {{s->fd, POLLIN, 0}, {s->stop_pipe[0], POLLIN, 0}};

	for (;;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fds[1].revents)
			break;
		int c = accept(s->fd, NULL, NULL);
		if (c < 0)
			continue;
		set_timeouts(c);
		s->handle(s->ctx, c);
		close(c);
	}
	return NULL;
}

unix_server *unix_server_start(const char *path, mode_t mode, gid_t group, const char *what,
			       unix_handler handle, void *ctx)
{
	struct sockaddr_un sa;
	unix_server *s;
	int bound = 0, said = 0, e;

	if (fill_addr(&sa, path)) {
		fprintf(stderr, "rookery: the %s socket path %s is too long\n", what, path);
		return NULL;
	}
	s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->what = what;
	s->handle = handle;
	s->ctx = ctx;
	s->stop_pipe[0] = s->stop_pipe[1] = -1;
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || pipe(s->stop_pipe))
		goto fail;
	/* A socket file left by a daemon that died is stale: nobody else may own this database. */
	unlink(path);
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof sa))
		goto fail;
	bound = 1;
	/* The group before the mode: the mode only ever opens the socket to the group meant. */
	if (group != (gid_t)-1 && lchown(path, (uid_t)-1, group)) {
		fprintf(stderr, "rookery: cannot give the %s socket %s the group %ld (the daemon's user must be one "
			"of its members): %s\n", what, path, (long)group, strerror(errno));
		said = 1;
		goto fail;
	}
	if (chmod(path, mode) || listen(s->fd, LIMIT_SOCKET_BACKLOG))
		goto fail;
	if ((e = pthread_create(&s->thread, NULL, serve, s))) {
		errno = e;
		goto fail;
	}
	return s;
fail:
	if (!said)
		fprintf(stderr, "rookery: cannot listen on the %s socket %s: %s\n", what, path, strerror(errno));
	if (bound)
		unlink(path);
	if (s->fd >= 0)
		close(s->fd);
	if (s->stop_pipe[0] >= 0) {
		close(s->stop_pipe[0]);
		close(s->stop_pipe[1]);
	}
	free(s->path);
	free(s);
	return NULL;
}

void unix_server_stop(unix_server *s)
{
	if (!s)
		return;
	if (write(s->stop_pipe[1], "x", 1) < 0)
		log_event("%s socket: cannot signal the stop", s->what);
	pthread_join(s->thread, NULL);
	close(s->fd);
	close(s->stop_pipe[0]);
	close(s->stop_pipe[1]);
	unlink(s->path);
	free(s->path);
	free(s);
}

int unix_connect(const char *path, char *msg, size_t msg_size)
{
	struct sockaddr_un sa;
	int fd, e;

	if (fill_addr(&sa, path)) {
		snprintf(msg, msg_size, "the socket path %s is too long", path);
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
		e = errno;
		if (e == EACCES || e == EPERM)
			snprintf(msg, msg_size, "cannot reach the Rookery daemon (%s: %s)", path, strerror(e));
		else
			snprintf(msg, msg_size, "the Rookery daemon is not running (%s: %s); try again later",
				 path, strerror(e));
		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	set_timeouts(fd);
	return fd;
}

int unix_read_verdict(int fd, char *msg, size_t msg_size)
{
	char line[LIMIT_SOCKET_LINE];
	int code;

	if (unix_read_line(fd, line, sizeof line) || sscanf(line, "%d", &code) != 1)
		return -1;
	const char *text = strchr(line, ' ');
	snprintf(msg, msg_size, "%s", text ? text + 1 : "");
	return code;
}
