/*
 * faultvfs.c - an SQLite VFS that fails writes and syncs on demand, for the disk-failure test.
 *
 * Loaded into an unchanged daemon with LD_PRELOAD: its constructor registers, as the new
 * default VFS, a VFS that wraps the previous default ("unix"). Every file opened through it
 * gets io methods that pass everything to the real file, except that xWrite, xTruncate and
 * xSync fail (SQLITE_IOERR_WRITE, SQLITE_IOERR_TRUNCATE, SQLITE_IOERR_FSYNC) while the
 * trigger file exists - as a full or dying disk would.
 *
 * Environment:
 *   ROOKERY_FAULT_TRIGGER  path of the trigger file; unset: the shim never fails anything.
 *                          The file is looked at (stat) on every write, truncate and sync.
 *                          Empty: every such call fails while it exists. Its words, if any:
 *                            N         the first N calls after the file appeared still pass,
 *                                      then every one fails (a fault striking in the middle
 *                                      of a commit or of a checkpoint);
 *                            write, truncate, sync
 *                                      only these calls fail (and count for N); default all;
 *                            db, wal, journal
 *                                      only calls on the main database file, the WAL, or a
 *                                      rollback or other journal fail; default every file;
 *                            once      only the first call due to fail fails, the rest pass
 *                                      (a passing fault, struck in the middle of a group).
 *                          Create it with rename() so that it never appears half-written; a
 *                          new file (another inode or time) re-arms the count.
 *   ROOKERY_FAULT_LOG      optional: a line is appended here for every failure injected
 *                          ("xSync rookery.db-wal"), so that a test can see what it hit.
 *
 * On loading it prints "faultvfs: ..." to standard error, so that a test can check it is
 * in place. Reads, locks and the WAL's shared memory are never failed.
 */
#include <sqlite3.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fault_file {
	sqlite3_file base;     /* base.pMethods: one of fault_methods */
	sqlite3_file *real;    /* the wrapped file, stored right after this struct */
	const char *name;      /* valid until xClose (SQLite's promise); NULL for temp files */
	int kind;              /* FILE_DB, FILE_WAL or FILE_JOURNAL */
};

static sqlite3_vfs *real_vfs;
static sqlite3_vfs fault_vfs;
static const char *trigger_path, *log_path;

enum { CALL_WRITE = 1, CALL_TRUNCATE = 2, CALL_SYNC = 4, CALL_ALL = 7 };
enum { FILE_DB = 1, FILE_WAL = 2, FILE_JOURNAL = 4, FILE_ALL = 7 };

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static int armed;              /* the trigger file was seen and read */
static struct stat armed_by;   /* ... this trigger file */
static long budget;            /* matching calls still let through before failing */
static int calls, files;       /* which calls on which files fail */
static int once;               /* fail one call only; spent: failed it already */
static int spent;

/* Read the trigger file's words into budget, calls and files. */
static void read_trigger(const char *path)
{
	char buf[128], *word, *save;
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	budget = calls = files = once = spent = 0;
	if (fd >= 0) {
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
	for (word = strtok_r(buf, " \t\n,", &save); word; word = strtok_r(NULL, " \t\n,", &save)) {
		if (*word >= '0' && *word <= '9')
			budget = strtol(word, NULL, 10);
		else if (!strcmp(word, "write"))
			calls |= CALL_WRITE;
		else if (!strcmp(word, "truncate"))
			calls |= CALL_TRUNCATE;
		else if (!strcmp(word, "sync"))
			calls |= CALL_SYNC;
		else if (!strcmp(word, "db"))
			files |= FILE_DB;
		else if (!strcmp(word, "wal"))
			files |= FILE_WAL;
		else if (!strcmp(word, "journal"))
			files |= FILE_JOURNAL;
		else if (!strcmp(word, "once"))
			once = 1;
		else
			fprintf(stderr, "faultvfs: unknown word \"%s\" in %s\n", word, path);
	}
	if (!calls)
		calls = CALL_ALL;
	if (!files)
		files = FILE_ALL;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void note(const char *what, const struct fault_file *f)
{
	char line[512];
	const char *base = f->name ? strrchr(f->name, '/') : NULL;
	int fd, n;

	if (!log_path)
		return;
	n = snprintf(line, sizeof line, "%s %s\n", what, base ? base + 1 : f->name ? f->name : "(temp)");
	if (n <= 0 || (size_t)n >= sizeof line)
		return;
	fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		(void)0;        /* only a record for the test: nothing to do about it */
	close(fd);
}

/* Whether this write, truncate or sync is to fail; records it if so. */
static int fault_now(int call, const char *what, const struct fault_file *f)
{
	struct stat st;
	int fail = 0, saved = errno;

	if (!trigger_path)
		return 0;
	pthread_mutex_lock(&state_lock);
	if (stat(trigger_path, &st) != 0) {
		armed = 0;
	} else {
		if (!armed || !same_file(&st, &armed_by)) {
			armed = 1;
			armed_by = st;
			read_trigger(trigger_path);
		}
		if (!(calls & call) || !(files & f->kind))
			fail = 0;
		else if (budget > 0)
			budget--;
		else if (!spent) {
			fail = 1;
			spent = once;
		}
	}
	pthread_mutex_unlock(&state_lock);
	if (fail)
		note(what, f);
	errno = saved;
	return fail;
}

#define REAL(f) (((struct fault_file *)(f))->real)
#define FF(f) ((struct fault_file *)(f))

static int f_close(sqlite3_file *f)
{
	int rc = REAL(f)->pMethods ? REAL(f)->pMethods->xClose(REAL(f)) : SQLITE_OK;
	f->pMethods = NULL;
	return rc;
}

static int f_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	return REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}

static int f_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	if (fault_now(CALL_WRITE, "xWrite", FF(f)))
		return SQLITE_IOERR_WRITE;
	return REAL(f)->pMethods->xWrite(REAL(f), buf, n, off);
}

static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	if (fault_now(CALL_TRUNCATE, "xTruncate", FF(f)))
		return SQLITE_IOERR_TRUNCATE;
	return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int f_sync(sqlite3_file *f, int flags)
{
	if (fault_now(CALL_SYNC, "xSync", FF(f)))
		return SQLITE_IOERR_FSYNC;
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int f_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int f_lock(sqlite3_file *f, int level)
{
	return REAL(f)->pMethods->xLock(REAL(f), level);
}

static int f_unlock(sqlite3_file *f, int level)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), level);
}

static int f_check_reserved_lock(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int f_file_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int f_sector_size(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int f_device_characteristics(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int f_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **p)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, p);
}

static int f_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static void f_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int f_shm_unmap(sqlite3_file *f, int delete_flag)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), delete_flag);
}

static int f_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **p)
{
	return REAL(f)->pMethods->xFetch(REAL(f), off, n, p);
}

static int f_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	return REAL(f)->pMethods->xUnfetch(REAL(f), off, p);
}

/* One table per io methods version, so that the wrapper offers what the real file offers. */
#define METHODS(v) { v, f_close, f_read, f_write, f_truncate, f_sync, f_file_size, f_lock, \
	f_unlock, f_check_reserved_lock, f_file_control, f_sector_size, f_device_characteristics, \
	(v) >= 2 ? f_shm_map : NULL, (v) >= 2 ? f_shm_lock : NULL, (v) >= 2 ? f_shm_barrier : NULL, \
	(v) >= 2 ? f_shm_unmap : NULL, (v) >= 3 ? f_fetch : NULL, (v) >= 3 ? f_unfetch : NULL }
static const sqlite3_io_methods fault_methods[3] = {METHODS(1), METHODS(2), METHODS(3)};

static int v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags)
{
	struct fault_file *f = FF(file);
	int rc, v;

	(void)vfs;
	f->real = (sqlite3_file *)(f + 1);
	f->name = name;
	f->kind = flags & SQLITE_OPEN_MAIN_DB ? FILE_DB : flags & SQLITE_OPEN_WAL ? FILE_WAL : FILE_JOURNAL;
	memset(f->real, 0, (size_t)real_vfs->szOsFile);
	rc = real_vfs->xOpen(real_vfs, name, f->real, flags, out_flags);
	/* SQLite calls xClose exactly when pMethods is set, even after a failed open. */
	if (!f->real->pMethods) {
		file->pMethods = NULL;
		return rc;
	}
	v = f->real->pMethods->iVersion;
	file->pMethods = &fault_methods[(v < 1 ? 1 : v > 3 ? 3 : v) - 1];
	return rc;
}

/* Everything else is the real VFS's, called with the real VFS (unix keeps state in it). */
static int v_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
	(void)vfs;
	return real_vfs->xDelete(real_vfs, name, sync_dir);
}

static int v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return real_vfs->xAccess(real_vfs, name, flags, out);
}

static int v_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return real_vfs->xFullPathname(real_vfs, name, n, out);
}

static void *v_dlopen(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs;
	return real_vfs->xDlOpen(real_vfs, name);
}

static void v_dlerror(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	real_vfs->xDlError(real_vfs, n, msg);
}

static void (*v_dlsym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
	(void)vfs;
	return real_vfs->xDlSym(real_vfs, h, sym);
}

static void v_dlclose(sqlite3_vfs *vfs, void *h)
{
	(void)vfs;
	real_vfs->xDlClose(real_vfs, h);
}

static int v_randomness(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return real_vfs->xRandomness(real_vfs, n, out);
}

static int v_sleep(sqlite3_vfs *vfs, int us)
{
	(void)vfs;
	return real_vfs->xSleep(real_vfs, us);
}

static int v_current_time(sqlite3_vfs *vfs, double *t)
{
	(void)vfs;
	return real_vfs->xCurrentTime(real_vfs, t);
}

static int v_get_last_error(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	return real_vfs->xGetLastError(real_vfs, n, msg);
}

static int v_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *t)
{
	(void)vfs;
	return real_vfs->xCurrentTimeInt64(real_vfs, t);
}

static int v_set_system_call(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr p)
{
	(void)vfs;
	return real_vfs->xSetSystemCall(real_vfs, name, p);
}

static sqlite3_syscall_ptr v_get_system_call(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs;
	return real_vfs->xGetSystemCall(real_vfs, name);
}

static const char *v_next_system_call(sqlite3_vfs *vfs, const char *name)
{
	(void)vfs;
	return real_vfs->xNextSystemCall(real_vfs, name);
}

__attribute__((constructor)) static void faultvfs_install(void)
{
	real_vfs = sqlite3_vfs_find(NULL);
	if (!real_vfs) {
		fprintf(stderr, "faultvfs: SQLite has no default VFS to wrap\n");
		return;
	}
	trigger_path = getenv("ROOKERY_FAULT_TRIGGER");
	if (trigger_path && !*trigger_path)
		trigger_path = NULL;
	log_path = getenv("ROOKERY_FAULT_LOG");
	if (log_path && !*log_path)
		log_path = NULL;

	fault_vfs = (sqlite3_vfs){
		.iVersion = real_vfs->iVersion < 3 ? real_vfs->iVersion : 3,
		.szOsFile = (int)sizeof(struct fault_file) + real_vfs->szOsFile,
		.mxPathname = real_vfs->mxPathname,
		.zName = "faultvfs",
		.xOpen = v_open,
		.xDelete = v_delete,
		.xAccess = v_access,
		.xFullPathname = v_full_pathname,
		.xDlOpen = real_vfs->xDlOpen ? v_dlopen : NULL,
		.xDlError = real_vfs->xDlError ? v_dlerror : NULL,
		.xDlSym = real_vfs->xDlSym ? v_dlsym : NULL,
		.xDlClose = real_vfs->xDlClose ? v_dlclose : NULL,
		.xRandomness = v_randomness,
		.xSleep = v_sleep,
		.xCurrentTime = v_current_time,
		.xGetLastError = v_get_last_error,
	};
	if (fault_vfs.iVersion >= 2)
		fault_vfs.xCurrentTimeInt64 = real_vfs->xCurrentTimeInt64 ? v_current_time_int64 : NULL;
	if (fault_vfs.iVersion >= 3) {
		fault_vfs.xSetSystemCall = real_vfs->xSetSystemCall ? v_set_system_call : NULL;
		fault_vfs.xGetSystemCall = real_vfs->xGetSystemCall ? v_get_system_call : NULL;
		fault_vfs.xNextSystemCall = real_vfs->xNextSystemCall ? v_next_system_call : NULL;
	}
	if (sqlite3_vfs_register(&fault_vfs, 1) != SQLITE_OK) {
		fprintf(stderr, "faultvfs: cannot register the VFS\n");
		return;
	}
	fprintf(stderr, "faultvfs: wrapping the \"%s\" VFS; writes and syncs fail while %s exists\n",
		real_vfs->zName, trigger_path ? trigger_path : "(no ROOKERY_FAULT_TRIGGER: never)");
}
