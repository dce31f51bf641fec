/* sqlite_backup.c - an online copy of the database into a new private file that nothing else can be made to overwrite or lose. */
#include "sqlite_db.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The copy is made in a private directory "<dest>.part", which also holds SQLite's journal while it works. */
#define PART_FILE "copy.db"
static const char *const part_sidecars[] = {PART_FILE "-journal", PART_FILE "-wal", PART_FILE "-shm"};

struct backup_place {
	char *dir;        /* dest's directory, as given */
	const char *name; /* dest's last component (inside dir's buffer) */
	int dirfd;        /* dest's directory, opened without following a link */
	char *part;       /* "<name>.part", relative to dirfd */
	char *inner;      /* "<name>.part/copy.db", relative to dirfd */
};

/* Split dest and open its directory; refuse a directory that is a symbolic link or an existing dest. */
static int open_place(struct backup_place *p, const char *dest, db_error *err)
{
	char *slash;
	struct stat st;

	p->dir = xstrdup(dest);
	slash = strrchr(p->dir, '/');
	if (slash) {
		*slash = 0;
		p->name = slash + 1;
	} else {
		p->name = p->dir;
	}
	const char *dir = !slash ? "." : slash == p->dir ? "/" : p->dir;
	if (!*p->name || !strcmp(p->name, ".") || !strcmp(p->name, ".."))
		return dbi_fail(err, DB_E_IO, "%s does not name a file", dest);
	p->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (p->dirfd < 0) {
		if (errno == ELOOP || (errno == ENOTDIR && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)))
			return dbi_fail(err, DB_E_IO, "the directory %s is a symbolic link; give its real path", dir);
		return dbi_fail(err, DB_E_IO, "cannot open the directory %s: %s", dir, strerror(errno));
	}
	/* A dangling symbolic link counts as existing: it would lead the copy elsewhere. */
	if (fstatat(p->dirfd, p->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return dbi_fail(err, DB_E_CONFLICT, "%s already exists; choose a new file", dest);
	if (errno != ENOENT)
		return dbi_fail(err, DB_E_IO, "cannot look at %s: %s", dest, strerror(errno));
	p->part = xasprintf("%s.part", p->name);
	p->inner = xasprintf("%s/" PART_FILE, p->part);
	return 0;
}

/* SQLite's online backup into the empty file at path, left a plain database (no WAL). */
static int copy_into(db *d, const char *path, db_error *err)
{
	sqlite3 *out = NULL;
	sqlite3_backup *b;
	int r = 0, rc;

	if (sqlite3_open_v2(path, &out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		r = dbi_fail(err, DB_E_IO, "cannot open %s: %s", path, out ? sqlite3_errmsg(out) : "out of memory");
		goto done;
	}
	b = sqlite3_backup_init(out, "main", sqlite_of(d)->conn, "main");
	if (!b) {
		r = dbi_fail(err, DB_E_IO, "cannot start the backup: %s", sqlite3_errmsg(out));
		goto done;
	}
	rc = sqlite3_backup_step(b, -1);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		r = dbi_fail(err, DB_E_IO, "the backup failed: %s", sqlite3_errstr(rc));
		goto done;
	}
	/* The copy is a plain database file (no WAL) with the same schema version. */
	if (sqlite3_exec(out, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL) != SQLITE_OK)
		r = dbi_fail(err, DB_E_IO, "cannot finish the copy: %s", sqlite3_errmsg(out));
done:
	if (sqlite3_close(out) != SQLITE_OK && !r)
		r = dbi_fail(err, DB_E_IO, "cannot close the copy: %s", sqlite3_errmsg(out));
	return r;
}

int sqlite_backup(db *d, const char *dest, db_error *err)
{
	struct backup_place p = {.dirfd = -1};
	int made_dir = 0, made_file = 0, r, fd;

	if ((r = open_place(&p, dest, err)))
		goto done;
	/* Only what this call creates is ever removed: a "<dest>.part" already there is refused, not cleared. */
	if (mkdirat(p.dirfd, p.part, 0700)) {
		r = errno == EEXIST
			    ? dbi_fail(err, DB_E_CONFLICT,
				       "%s.part already exists (left by an interrupted backup?); remove it or choose a new file",
				       dest)
			    : dbi_fail(err, DB_E_IO, "cannot create %s.part: %s", dest, strerror(errno));
		goto done;
	}
	made_dir = 1;
	fd = openat(p.dirfd, p.inner, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = dbi_fail(err, DB_E_IO, "cannot create %s.part/" PART_FILE ": %s", dest, strerror(errno));
		goto done;
	}
	made_file = 1;
	close(fd);
	char *path = xasprintf("%s.part/" PART_FILE, dest);
	r = copy_into(d, path, err);
	free(path);
	if (r)
		goto done;
	/* A hard link never replaces: a dest that appeared meanwhile is kept and the copy dropped. */
	if (linkat(p.dirfd, p.inner, p.dirfd, p.name, 0))
		r = errno == EEXIST ? dbi_fail(err, DB_E_CONFLICT, "%s already exists; choose a new file", dest)
				    : dbi_fail(err, DB_E_IO, "cannot move the copy to %s: %s", dest, strerror(errno));
done:
	if (made_dir) {
		/* The private directory holds only the copy and what SQLite made beside it. */
		for (size_t i = 0; i < sizeof part_sidecars / sizeof *part_sidecars; i++) {
			char *side = xasprintf("%s/%s", p.part, part_sidecars[i]);
			unlinkat(p.dirfd, side, 0);
			free(side);
		}
		if (made_file)
			unlinkat(p.dirfd, p.inner, 0);
		unlinkat(p.dirfd, p.part, AT_REMOVEDIR);
	}
	if (p.dirfd >= 0)
		close(p.dirfd);
	free(p.dir);
	free(p.part);
	free(p.inner);
	return r;
}
