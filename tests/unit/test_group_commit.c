/* test_group_commit.c - the writer thread: changes that arrive together, one commit, each in its savepoint. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/app.h"
#include "core/group_commit.h"
#include "db.h"
#include "db_internal.h"

#define JOBS 8

/* What a job does with its change. */
enum kind {
	KEEP,          /* writes its setting and commits its savepoint */
	UNDO,          /* writes its setting, then rolls its savepoint back: refused */
	BREAK,         /* first run: writes, then the whole transaction is rolled back under it */
	BAD_COMMIT,    /* leaves a deferred foreign-key violation: no COMMIT holding it can succeed */
};

struct job {
	group_job gj;
	struct fixture *f;
	int id;
	enum kind kind;
	int gate;              /* waits in run until the test opens the gate */
	int runs, lost, finished;
	int seen_at_finish;    /* its setting was committed when finish came (read on another connection) */
	int fault;             /* something the writer thread saw that the test must fail on */
};

struct fixture {
	char path[64];
	app a;
	group_writer *w;
	db *reader;            /* read in finish, on the writer thread; by the test once all finished */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	int gate_entered, gate_open, finished;
	struct job jobs[JOBS + 1];
};

static void key_of(const struct job *j, char *key, size_t size)
{
	snprintf(key, size, "job-%d", j->id);
}

static void wait_for_gate(struct fixture *f)
{
	pthread_mutex_lock(&f->lock);
	f->gate_entered = 1;
	pthread_cond_broadcast(&f->changed);
	while (!f->gate_open)
		pthread_cond_wait(&f->changed, &f->lock);
	pthread_mutex_unlock(&f->lock);
}

static void job_run(void *arg)
{
	struct job *j = arg;
	db *d = app_db(&j->f->a);
	db_error de;
	char key[16];

	j->runs++;
	if (j->gate)
		wait_for_gate(j->f);
	key_of(j, key, sizeof key);
	if (db_begin(d, &de) || db_setting_put(d, key, &j->runs, sizeof j->runs, &de)) {
		j->fault = 1;
		db_rollback(d);
		return;
	}
	switch (j->kind) {
	case UNDO:
		db_rollback(d);
		return;
	case BREAK:
		/* What SQLite does on a full disk or an I/O error: the transaction is gone. */
		if (j->runs == 1) {
			dbi_exec(d, "ROLLBACK", NULL);
			return;
		}
		break;
	case BAD_COMMIT:
		if (dbi_exec(d, "PRAGMA defer_foreign_keys = ON; "
			     "INSERT INTO game_clocks (game_id, type, base_s) VALUES ('no-such-game', 'bank', 60)",
			     NULL))
			j->fault = 1;
		break;
	case KEEP:
		break;
	}
	if (db_commit(d, &de))
		j->fault = 1;
}

static void job_lost(void *arg)
{
	struct job *j = arg;
	j->lost++;
}

static void job_finish(void *arg)
{
	struct job *j = arg;
	struct fixture *f = j->f;
	void *value = NULL;
	size_t len = 0;
	db_error de;
	char key[16];

	key_of(j, key, sizeof key);
	if (db_setting_get(f->reader, key, &value, &len, &de) == 0 && value)
		j->seen_at_finish = 1;
	free(value);
	pthread_mutex_lock(&f->lock);
	j->finished++;
	f->finished++;
	pthread_cond_broadcast(&f->changed);
	pthread_mutex_unlock(&f->lock);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	db_error de;
	int fd;

	snprintf(f->path, sizeof f->path, "/tmp/rookery-test-group-XXXXXX");
	if ((fd = mkstemp(f->path)) < 0)
		return -1;
	close(fd);
	unlink(f->path);
	if (db_open(f->path, &f->a.db, &de) || db_open_reader(f->path, &f->reader, &de))
		return -1;
	pthread_mutex_init(&f->a.lock, NULL);
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->changed, NULL);
	if (!(f->w = group_writer_start(&f->a)))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char p[80];

	group_writer_stop(f->w);
	db_close(f->reader);
	db_close(f->a.db);
	pthread_cond_destroy(&f->changed);
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->a.lock);
	unlink(f->path);
	snprintf(p, sizeof p, "%s-wal", f->path);
	unlink(p);
	snprintf(p, sizeof p, "%s-shm", f->path);
	unlink(p);
	free(f);
	return 0;
}

/*
 * Submit a gate job and, once the writer is inside it, JOBS jobs of the given
 * kinds: they queue together and form the next group. Wait until every job
 * is finished.
 */
static void run_jobs(struct fixture *f, const enum kind kinds[JOBS])
{
	for (int i = 0; i <= JOBS; i++) {
		struct job *j = &f->jobs[i];
		j->f = f;
		j->id = i;
		j->kind = i ? kinds[i - 1] : KEEP;
		j->gate = i == 0;
		j->gj = (group_job){.run = job_run, .lost = job_lost, .finish = job_finish, .arg = j};
	}
	group_writer_submit(f->w, &f->jobs[0].gj);
	pthread_mutex_lock(&f->lock);
	while (!f->gate_entered)
		pthread_cond_wait(&f->changed, &f->lock);
	pthread_mutex_unlock(&f->lock);
	for (int i = 1; i <= JOBS; i++)
		group_writer_submit(f->w, &f->jobs[i].gj);
	pthread_mutex_lock(&f->lock);
	f->gate_open = 1;
	pthread_cond_broadcast(&f->changed);
	while (f->finished < JOBS + 1)
		pthread_cond_wait(&f->changed, &f->lock);
	pthread_mutex_unlock(&f->lock);
}

/* Whether job i's setting is stored, as a new connection sees it. */
static int stored(struct fixture *f, int i)
{
	db *d;
	db_error de;
	void *value = NULL;
	size_t len = 0;
	char key[16];
	int r;

	assert_int_equal(db_open_reader(f->path, &d, &de), 0);
	key_of(&f->jobs[i], key, sizeof key);
	r = db_setting_get(d, key, &value, &len, &de);
	assert_true(r == 0 || r == DB_E_NOTFOUND);
	free(value);
	db_close(d);
	return r == 0;
}

/* Every job: no fault, finished once; kept ones stored and seen at finish. */
static void check_jobs(struct fixture *f, const int kept[JOBS + 1])
{
	for (int i = 0; i <= JOBS; i++) {
		struct job *j = &f->jobs[i];
		assert_int_equal(j->fault, 0);
		assert_int_equal(j->finished, 1);
		assert_int_equal(j->seen_at_finish, kept[i]);
		assert_int_equal(stored(f, i), kept[i]);
	}
	assert_false(db_in_transaction(f->a.db));
}

static void jobs_of_a_group_all_commit(void **state)
{
	struct fixture *f = *state;
	const enum kind kinds[JOBS] = {KEEP, KEEP, KEEP, KEEP, KEEP, KEEP, KEEP, KEEP};
	const int kept[JOBS + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

	run_jobs(f, kinds);
	check_jobs(f, kept);
	for (int i = 0; i <= JOBS; i++) {
		assert_int_equal(f->jobs[i].runs, 1);
		assert_int_equal(f->jobs[i].lost, 0);
	}
}

static void a_refused_change_rolls_back_alone(void **state)
{
	struct fixture *f = *state;
	const enum kind kinds[JOBS] = {KEEP, KEEP, UNDO, KEEP, KEEP, UNDO, KEEP, KEEP};
	const int kept[JOBS + 1] = {1, 1, 1, 0, 1, 1, 0, 1, 1};

	run_jobs(f, kinds);
	check_jobs(f, kept);
	/* The group stood: nobody was run again. */
	for (int i = 0; i <= JOBS; i++) {
		assert_int_equal(f->jobs[i].runs, 1);
		assert_int_equal(f->jobs[i].lost, 0);
	}
}

static void a_lost_transaction_runs_each_change_alone(void **state)
{
	struct fixture *f = *state;
	const enum kind kinds[JOBS] = {KEEP, KEEP, KEEP, BREAK, KEEP, UNDO, KEEP, KEEP};
	const int kept[JOBS + 1] = {1, 1, 1, 1, 1, 1, 0, 1, 1};

	run_jobs(f, kinds);
	check_jobs(f, kept);
	/* The group's transaction was lost at job 4: jobs 1-4 ran in it and again alone, the
	 * rest alone only (the gate, job 0, was a group of its own). */
	const int runs[JOBS + 1] = {1, 2, 2, 2, 2, 1, 1, 1, 1};
	for (int i = 0; i <= JOBS; i++) {
		assert_int_equal(f->jobs[i].runs, runs[i]);
		assert_int_equal(f->jobs[i].lost, 0);
	}
}

static void a_change_that_cannot_commit_is_lost_alone(void **state)
{
	struct fixture *f = *state;
	const enum kind kinds[JOBS] = {KEEP, KEEP, BAD_COMMIT, KEEP, UNDO, KEEP, KEEP, KEEP};
	const int kept[JOBS + 1] = {1, 1, 1, 0, 1, 0, 1, 1, 1};

	run_jobs(f, kinds);
	check_jobs(f, kept);
	/* The group's COMMIT failed: every change ran again alone; the bad one's commit failed
	 * again, and it was told so (lost) before it was finished. */
	for (int i = 0; i <= JOBS; i++) {
		assert_int_equal(f->jobs[i].runs, i == 0 ? 1 : 2);
		assert_int_equal(f->jobs[i].lost, i == 3);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(jobs_of_a_group_all_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(a_refused_change_rolls_back_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(a_lost_transaction_runs_each_change_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(a_change_that_cannot_commit_is_lost_alone, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
