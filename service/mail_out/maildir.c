/* maildir.c - the maildir writer: tmp, fsync, rename into new. */
#include "mail_out/maildir.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int ensure_dir(const char *path, char *why, size_t why_size)
{
	if (mkdir(path, 0700) == 0 || errno == EEXIST)
		return 0;
	snprintf(why, why_size, "cannot create %s: %s", path, strerror(errno));
	return -1;
}

int maildir_deliver(const char *dir, long long id, const char *message, char *why, size_t why_size)
{
	static const char *const subdirs[] = {"", "/tmp", "/new", "/cur"};
	char host[64] = "localhost", *tmp = NULL, *dst = NULL, *sub;
	size_t len = strlen(message), off = 0;
	int fd = -1, r = -1;

	for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++) {
		sub = xasprintf("%s%s", dir, subdirs[i]);
		int bad = ensure_dir(sub, why, why_size);
		free(sub);
		if (bad)
			return -1;
	}
	gethostname(host, sizeof host - 1);
	host[strcspn(host, "/:")] = 0;
	tmp = xasprintf("%s/tmp/%lld.R%lldP%d.%s", dir, (long long)time(NULL), id, (int)getpid(), host);
	dst = xasprintf("%s/new/%lld.R%lldP%d.%s", dir, (long long)time(NULL), id, (int)getpid(), host);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		snprintf(why, why_size, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t n = write(fd, message + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, why_size, "cannot write %s: %s", tmp, strerror(errno));
			goto out;
		}
		off += (size_t)n;
	}
	if (fsync(fd) || close(fd)) {
		fd = -1;
		snprintf(why, why_size, "cannot flush %s: %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, dst)) {
		snprintf(why, why_size, "cannot move %s into new: %s", tmp, strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	if (r)
		unlink(tmp);
	free(tmp);
	free(dst);
	return r;
}
