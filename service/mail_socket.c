/* mail_socket.c - the daemon's mail door: "MAIL <length> <recipient>\n<message>" in, "<status> <text>\n" out. */
#include "mail_socket.h"
#include "log.h"
#include "mail_in.h"
#include "mail_parse.h"
#include "outbox.h"
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

#define IO_TIMEOUT_S 30

struct mail_socket {
	app *app;
	char *path;
	int fd;
	int stop_pipe[2];
	pthread_t thread;
};

char *mail_socket_path(const char *db_path)
{
	return xasprintf("%s.mail.sock", db_path);
}

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
	struct timeval tv = {IO_TIMEOUT_S, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static int read_full(int fd, char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = read(fd, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

static int write_full(int fd, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

/* Read one line (without its LF) of at most size-1 bytes. */
static int read_line(int fd, char *line, size_t size)
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

static void serve_one(mail_socket *s, int fd)
{
	char line[600], recipient[520], msg[512];
	unsigned long len;
	char *data;
	int code;

	set_timeouts(fd);
	if (read_line(fd, line, sizeof line)) {
		dprintf(fd, "%d the request was not understood\n", MAIL_IN_SOFTWARE);
		return;
	}
	/* The same door takes an operator's backup request: "BACKUP <absolute path>". */
	if (!strncmp(line, "BACKUP /", 8)) {
		db_error de;
		pthread_mutex_lock(&s->app->lock);
		int r = db_backup(s->app->db, line + 7, &de);
		pthread_mutex_unlock(&s->app->lock);
		if (r)
			log_event("backup to %s failed: %s", line + 7, de.message);
		else
			log_event("backed up to %s", line + 7);
		dprintf(fd, "%d %s\n", r ? 74 : 0, r ? de.message : "backed up");
		return;
	}
	if (sscanf(line, "MAIL %lu %519s", &len, recipient) != 2 ||
	    len > MAIL_MAX_BYTES) {
		dprintf(fd, "%d the request was not understood\n", MAIL_IN_SOFTWARE);
		return;
	}
	data = xmalloc(len + 1);
	if (read_full(fd, data, len) == 0) {
		data[len] = 0;
		code = mail_in_handle(s->app, data, len, strcmp(recipient, "-") ? recipient : NULL, msg, sizeof msg);
		msg[strcspn(msg, "\r\n")] = 0;
		dprintf(fd, "%d %s\n", code, msg);
		outbox_wake(s->app->outbox);
	}
	free(data);
}

static void *serve(void *arg)
{
	mail_socket *s = arg;
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
		serve_one(s, c);
		close(c);
	}
	return NULL;
}

mail_socket *mail_socket_start(app *a, const char *path)
{
	struct sockaddr_un sa;
	mail_socket *s;

	if (fill_addr(&sa, path)) {
		fprintf(stderr, "rookery: the mail socket path %s is too long\n", path);
		return NULL;
	}
	s = xcalloc(1, sizeof *s);
	s->app = a;
	s->path = xstrdup(path);
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || pipe(s->stop_pipe))
		goto fail;
	/* A socket file left by a daemon that died is stale: nobody else may own this database. */
	unlink(path);
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof sa) || listen(s->fd, 16))
		goto fail;
	chmod(path, 0660);
	if (pthread_create(&s->thread, NULL, serve, s))
		goto fail;
	return s;
fail:
	fprintf(stderr, "rookery: cannot listen for mail on %s: %s\n", path, strerror(errno));
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s);
	return NULL;
}

void mail_socket_stop(mail_socket *s)
{
	if (!s)
		return;
	if (write(s->stop_pipe[1], "x", 1) < 0)
		log_event("mail socket: cannot signal the stop");
	pthread_join(s->thread, NULL);
	close(s->fd);
	close(s->stop_pipe[0]);
	close(s->stop_pipe[1]);
	unlink(s->path);
	free(s->path);
	free(s);
}

/* Connect to the daemon's socket; -1 with msg filled when it is not there. */
static int connect_daemon(const char *path, char *msg, size_t msg_size)
{
	struct sockaddr_un sa;
	int fd;

	if (fill_addr(&sa, path)) {
		snprintf(msg, msg_size, "the socket path %s is too long", path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
		snprintf(msg, msg_size, "the Rookery daemon is not running (%s: %s); try again later", path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	set_timeouts(fd);
	return fd;
}

/* Read the daemon's one-line verdict "<code> <text>"; -1 when none came. */
static int read_verdict(int fd, char *msg, size_t msg_size)
{
	char line[600];
	int code;

	if (read_line(fd, line, sizeof line) || sscanf(line, "%d", &code) != 1)
		return -1;
	const char *text = strchr(line, ' ');
	snprintf(msg, msg_size, "%s", text ? text + 1 : "");
	return code;
}

int mail_socket_backup(const char *path, const char *dest, char *msg, size_t msg_size)
{
	int fd = connect_daemon(path, msg, msg_size), code;

	if (fd < 0)
		return MAIL_IN_TEMPFAIL;
	if (dest[0] != '/' || strchr(dest, '\n') || strlen(dest) > 500) {
		close(fd);
		snprintf(msg, msg_size, "the backup path must be absolute");
		return 64;
	}
	if (dprintf(fd, "BACKUP %s\n", dest) < 0 || (code = read_verdict(fd, msg, msg_size)) < 0) {
		snprintf(msg, msg_size, "the Rookery daemon did not answer");
		code = MAIL_IN_TEMPFAIL;
	}
	close(fd);
	return code;
}

int mail_socket_send(const char *path, const char *message, size_t len, const char *recipient,
		     char *msg, size_t msg_size)
{
	char header[600];
	int fd = connect_daemon(path, msg, msg_size), code;

	if (fd < 0)
		return MAIL_IN_TEMPFAIL;
	/* An address with white space cannot be ours; send "-" and let the headers speak. */
	snprintf(header, sizeof header, "MAIL %zu %s\n", len,
		 recipient && *recipient && !strpbrk(recipient, " \t\r\n") && strlen(recipient) < 500 ? recipient : "-");
	if (write_full(fd, header, strlen(header)) || write_full(fd, message, len) ||
	    (code = read_verdict(fd, msg, msg_size)) < 0) {
		snprintf(msg, msg_size, "the Rookery daemon did not answer; try again later");
		code = MAIL_IN_TEMPFAIL;
	}
	close(fd);
	return code;
}
