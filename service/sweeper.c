/* sweeper.c - periodic maintenance: a table of jobs, run under the app lock at a fixed interval. */
#include "sweeper.h"
#include "limits.h"
#include "log.h"
#include "notify.h"
#include "outbox.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct sweeper {
	app *app;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;     /* on CLOCK_MONOTONIC: a change of the wall clock neither stalls nor hurries it */
	int stopping;
};

/* Expired seat links and sign-in links are deleted, not only refused: nothing usable stays at rest. */
static int sweep_links(app *a, long long now)
{
	db_error de;
	int n, r = db_links_expire(a->db, now, &n, &de);

	if (r)
		log_event("sweep: cannot delete expired links: %s", de.message);
	else if (n)
		log_event("sweep: deleted %d expired link(s)", n);
	return r;
}

/* A job of mails to addresses (notify.h): what names them in the log. */
static int sweep_mails(app *a, long long now, int (*job)(app *, long long, int *, db_error *), const char *what)
{
	db_error de;
	int n = 0, r;

	if (!a->mail)
		return 0;
	if ((r = job(a, now, &n, &de)))
		log_event("sweep: cannot send the %s: %s", what, de.message);
	if (n)
		log_event("sweep: %s done for %d address(es)", what, n);
	return r;
}

/* Mails held back by yesterday's daily caps go out as one summary an address (consent.h). */
static int sweep_summaries(app *a, long long now)
{
	return sweep_mails(a, now, notify_summaries, "summaries of held mails");
}

/* The daily digests of the addresses that chose one for this hour (mail_prefs.h). */
static int sweep_digests(app *a, long long now)
{
	return sweep_mails(a, now, notify_digests, "daily digests");
}

/*
 * The jobs, in order. A job is called with a->lock held and the current unix time, does its
 * own transactions, logs what it did and returns 0, or nonzero when it failed (it is tried again
 * at the next sweep). Mail it queues is sent at once.
 */
static int (*const jobs[])(app *a, long long now) = {
	sweep_links,
	sweep_summaries,
	sweep_digests,
};

/* Run every job once, in the caller's thread. */
static void run_jobs(app *a)
{
	for (size_t i = 0; i < sizeof jobs / sizeof *jobs; i++) {
		pthread_mutex_lock(&a->lock);
		unsigned long queued = db_outbox_added(a->db);
		jobs[i](a, (long long)time(NULL));
		queued = db_outbox_added(a->db) - queued;
		pthread_mutex_unlock(&a->lock);
		if (queued)
			outbox_wake(a->outbox);
	}
}

static void *worker(void *arg)
{
	sweeper *s = arg;
	struct timespec until;

	pthread_mutex_lock(&s->mu);
	clock_gettime(CLOCK_MONOTONIC, &until);
	while (!s->stopping) {
		until.tv_sec += s->app->sweep_interval_s ? s->app->sweep_interval_s : LIMIT_SWEEP_INTERVAL_S;
		while (!s->stopping && pthread_cond_timedwait(&s->cv, &s->mu, &until) == 0)
			;
		if (s->stopping)
			break;
		pthread_mutex_unlock(&s->mu);
		run_jobs(s->app);
		pthread_mutex_lock(&s->mu);
		/* A sweep that took longer than the interval does not make the next ones pile up. */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > until.tv_sec)
			until = now;
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

sweeper *sweeper_start(app *a)
{
	sweeper *s = calloc(1, sizeof *s);
	pthread_condattr_t attr;

	if (!s)
		abort();
	s->app = a;
	run_jobs(a);
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&s->thread, NULL, worker, s)) {
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		free(s);
		return NULL;
	}
	return s;
}

void sweeper_stop(sweeper *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stopping = 1;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
