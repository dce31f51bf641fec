/* group_commit.c - the writer thread: a queue of changes, applied in groups under one COMMIT. */
#include "core/group_commit.h"
#include "core/limits.h"
#include "core/log.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdlib.h>

struct group_writer {
	app *app;
	pthread_mutex_t lock;        /* the queue and stop */
	pthread_cond_t queued;       /* a job came, or stop */
	group_job *head, *tail;
	int stop;
	pthread_t thread;
};

/* One change in a transaction of its own: answered as it ran, or lost if its commit failed. */
static void run_alone(app *a, group_job *job)
{
	db_error de;

	if (db_group_begin(a->db, &de)) {
		log_event("writer: cannot begin: %s", de.message);
		job->lost(job->arg);
		return;
	}
	job->run(job->arg);
	if (db_group_commit(a->db, &de)) {
		log_event("writer: a change was not kept: %s", de.message);
		job->lost(job->arg);
	}
}

/*
 * Up to n jobs in one transaction, each in its savepoint; on a failure of the whole, each alone.
 * On a database other daemons share, each alone always: a group holds the lock of every game it
 * changed until its commit, and two daemons' groups taking two games' locks in opposite order
 * would deadlock (one change refused as busy). Alone, a change holds one game's lock at a time.
 */
static void run_group(app *a, group_job **jobs, int n)
{
	db_error de;
	int ran = 0;

	if (n == 1 || db_shared(a->db)) {
		for (int i = 0; i < n; i++)
			run_alone(a, jobs[i]);
		return;
	}
	if (db_group_begin(a->db, &de) == 0) {
		for (; ran < n; ran++) {
			jobs[ran]->run(jobs[ran]->arg);
			if (!db_group_intact(a->db))
				break;
		}
		if (ran == n && db_group_commit(a->db, &de) == 0)
			return;
		if (ran < n)
			db_group_abort(a->db);
		log_event("writer: a group of %d changes failed (%s); applying each alone", n,
			  ran < n ? "its transaction was rolled back" : de.message);
	}
	for (int i = 0; i < n; i++)
		run_alone(a, jobs[i]);
}

static void *writer_main(void *arg)
{
	group_writer *w = arg;
	group_job *jobs[LIMIT_GROUP_CHANGES];

	pthread_mutex_lock(&w->lock);
	for (;;) {
		int n = 0;

		while (!w->head && !w->stop)
			pthread_cond_wait(&w->queued, &w->lock);
		if (!w->head)
			break;
		while (w->head && n < LIMIT_GROUP_CHANGES) {
			jobs[n++] = w->head;
			w->head = w->head->next;
		}
		if (!w->head)
			w->tail = NULL;
		pthread_mutex_unlock(&w->lock);

		/* Whoever follows the games hears of the changes once they are durable (on unlock). */
		app_writer_lock(w->app);
		run_group(w->app, jobs, n);
		app_writer_unlock(w->app);
		for (int i = 0; i < n; i++)
			jobs[i]->finish(jobs[i]->arg);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

group_writer *group_writer_start(app *a)
{
	group_writer *w = xcalloc(1, sizeof *w);

	w->app = a;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->queued, NULL);
	if (pthread_create(&w->thread, NULL, writer_main, w)) {
		pthread_cond_destroy(&w->queued);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

void group_writer_stop(group_writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	pthread_cond_signal(&w->queued);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->queued);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

void group_writer_submit(group_writer *w, group_job *job)
{
	job->next = NULL;
	pthread_mutex_lock(&w->lock);
	if (w->tail)
		w->tail->next = job;
	else
		w->head = job;
	w->tail = job;
	pthread_cond_signal(&w->queued);
	pthread_mutex_unlock(&w->lock);
}
