/* mail_socket.c - the daemon's mail door: "MAIL <length> <recipient>\n<message>" in, "<status> <text>\n" out. */
#include "mail_in/mail_socket.h"
#include "core/unix_socket.h"
#include "mail_in/mail_in.h"
#include "mail_in/mail_parse.h"
#include "core/limits.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *mail_socket_path(const char *db_path)
{
	return xasprintf("%s.mail.sock", db_path);
}

/* Whoever may hand mail in may do nothing else here (backups go through the control socket). */
static void serve_one(void *ctx, int fd)
{
	app *a = ctx;
	/* recipient: room for any a client sends (under LIMIT_SOCKET_RECIPIENT), as %519s reads. */
	char line[LIMIT_SOCKET_LINE], recipient[520], msg[512];
	unsigned long len;
	char *data;
	int code;

	if (unix_read_line(fd, line, sizeof line) || sscanf(line, "MAIL %lu %519s", &len, recipient) != 2 ||
	    len > MAIL_MAX_BYTES) {
		dprintf(fd, "%d the request was not understood\n", MAIL_IN_SOFTWARE);
		return;
	}
	data = xmalloc(len + 1);
	if (unix_read_full(fd, data, len) == 0) {
		data[len] = 0;
		code = mail_in_handle(a, data, len, strcmp(recipient, "-") ? recipient : NULL, msg, sizeof msg);
		msg[strcspn(msg, "\r\n")] = 0;
		dprintf(fd, "%d %s\n", code, msg);
	}
	free(data);
}

unix_server *mail_socket_start(app *a, const char *path, gid_t group)
{
	return unix_server_start(path, 0660, group, "mail", serve_one, a);
}

int mail_socket_send(const char *path, const char *message, size_t len, const char *recipient,
		     char *msg, size_t msg_size)
{
	char header[LIMIT_SOCKET_LINE];
	int fd = unix_connect(path, msg, msg_size), code;

	if (fd < 0)
		return MAIL_IN_TEMPFAIL;
	/* An address with white space cannot be ours; send "-" and let the headers speak. */
	snprintf(header, sizeof header, "MAIL %zu %s\n", len,
		 recipient && *recipient && !strpbrk(recipient, " \t\r\n") && strlen(recipient) < LIMIT_SOCKET_RECIPIENT ? recipient : "-");
	if (unix_write_full(fd, header, strlen(header)) || unix_write_full(fd, message, len) ||
	    (code = unix_read_verdict(fd, msg, msg_size)) < 0) {
		snprintf(msg, msg_size, "the Rookery daemon did not answer; try again later");
		code = MAIL_IN_TEMPFAIL;
	}
	close(fd);
	return code;
}
