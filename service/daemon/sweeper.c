/* sweeper.c - periodic maintenance: a table of jobs, run under the app lock at a fixed interval. */
#include "daemon/sweeper.h"
#include "core/limits.h"
#include "core/log.h"
#include "game/game.h"
#include "pipeline/pipeline.h"
#include "game/vacation.h"
#include "mail_out/notify.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The settings key of the heartbeat: the unix time of the last sweep (clocks stand still while the daemon is down). */
#define SWEEP_HEARTBEAT "clock_heartbeat"

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
	int n, r = db_links_expire(app_db(a), now, &n, &de);

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

/* The daemon is alive at now: the heartbeat an outage is measured from at the next start. */
static int sweep_heartbeat(app *a, long long now)
{
	char text[24];
	db_error de;
	int r;

	snprintf(text, sizeof text, "%lld", now);
	if ((r = db_setting_put(app_db(a), SWEEP_HEARTBEAT, text, strlen(text), &de)))
		log_event("sweep: cannot record the heartbeat: %s", de.message);
	return r;
}

/*
 * At start, before any job: time the daemon was not running is charged to
 * nobody. Every running clock moves on by the time since the last heartbeat,
 * when that is more than a sweep interval (a heartbeat is at most one interval old).
 */
static void resume_clocks(app *a, long long now)
{
	void *value;
	size_t len;
	db_error de;
	int n = 0;

	app_writer_lock(a);
	if (db_setting_get(app_db(a), SWEEP_HEARTBEAT, &value, &len, &de) == 0) {
		long long last = atoll(value), outage = now - last;
		free(value);
		if (last > 0 && outage > (long long)a->sweep_interval_s) {
			if (db_begin(app_db(a), &de) || db_clocks_extend(app_db(a), outage, &n, &de) ||
			    db_vacations_outage(app_db(a), last, now, &de) ||
			    db_setting_put(app_db(a), SWEEP_HEARTBEAT, "0", 1, &de) || db_commit(app_db(a), &de)) {
				db_rollback(app_db(a));
				log_event("sweep: cannot extend the clocks by the outage: %s", de.message);
			} else {
				log_event("sweep: the daemon was down %lld s; %d running clock(s) extended by it", outage, n);
			}
		}
	}
	app_writer_unlock(a);
}

/* Vacations that began stop their players' clocks (before the timeouts: none fires during one). */
static int sweep_vacations(app *a, long long now)
{
	db_error de;
	int n, r = vacation_pause_due(a, now, &n, &de);

	if (r)
		log_event("sweep: cannot stop the clocks of vacations: %s", de.message);
	else if (n)
		log_event("sweep: %d clock(s) stand still for vacations", n);
	return r;
}

/* Each seat whose deadline passed loses on time, or leaves the game (game_timeout). */
static int sweep_timeouts(app *a, long long now)
{
	db_clock_due due[LIMIT_CLOCK_SWEEP_BATCH];
	db_error de;
	app_error err;
	int n, r = db_clocks_expired(app_db(a), now, due, LIMIT_CLOCK_SWEEP_BATCH, &n, &de);

	if (r)
		log_event("sweep: cannot list the clocks that ran out: %s", de.message);
	for (int i = 0; !r && i < n; i++)
		if (game_timeout(a, due[i].game_id, due[i].seat, now, &err))
			log_event("sweep: game %s: cannot end on time: %s", due[i].game_id, err.message);
	return r;
}

/* Reminders to seats whose time runs out: a day left, then the last tenth (game_remind). */
static int sweep_reminders(app *a, long long now)
{
	db_clock_due due[LIMIT_CLOCK_SWEEP_BATCH];
	db_error de;
	app_error err;
	static const db_reminder_rule rule = {
		LIMIT_REMINDER_DAY_S, LIMIT_REMINDER_LAST_SHARE, LIMIT_REMINDER_LAST_MIN_S,
	};
	int n, sent, total = 0, r = db_clocks_remind(app_db(a), now, &rule, due, LIMIT_CLOCK_SWEEP_BATCH, &n, &de);

	if (r)
		log_event("sweep: cannot list the clocks owed a reminder: %s", de.message);
	for (int i = 0; !r && i < n; i++) {
		if (game_remind(a, due[i].game_id, due[i].seat, now, &sent, &err))
			log_event("sweep: game %s: cannot remind: %s", due[i].game_id, err.message);
		total += sent;
	}
	if (total)
		log_event("sweep: %d reminder(s) of running clocks", total);
	return r;
}

/*
 * Open games nobody filled in time end unplayed (game_expire_open), at
 * every sweep: migration 0017's index holds only the open games, by when
 * they lapse, so finding them reads none of the others.
 */
static int sweep_open_games(app *a, long long now)
{
	app_error err;
	int n;

	do {
		if (game_expire_open(a, now, &n, &err)) {
			log_event("sweep: cannot end the lapsed open games: %s", err.message);
			return -1;
		}
	} while (n == LIMIT_CLOCK_SWEEP_BATCH);
	return 0;
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
	sweep_vacations,
	sweep_timeouts,
	sweep_reminders,
	sweep_open_games,
	sweep_heartbeat,   /* last: a heartbeat at t says a whole sweep ran from t on (run_jobs) */
};

#define SWEEP_HOLD "rookery sweep"
#define JOBS (sizeof jobs / sizeof *jobs)

/*
 * Run every job once, in the caller's thread, each at the time it starts; the heartbeat, last,
 * records the time the sweep began, when every job was due at the latest. Daemons sharing a
 * database take turns: while one sweeps, the others skip their sweep (its heartbeat too), so
 * that a deadline or a digest is acted on once. The writer is let go between jobs; the hold
 * stays with the writing connection.
 */
static void run_jobs(app *a)
{
	long long began = (long long)time(NULL);
	int held;

	app_writer_lock(a);
	held = db_hold_try(a->db, SWEEP_HOLD);
	app_writer_unlock(a);
	if (!held)
		return;
	for (size_t i = 0; i < JOBS; i++) {
		app_writer_lock(a);
		jobs[i](a, i == JOBS - 1 ? began : (long long)time(NULL));
		app_writer_unlock(a);
	}
	app_writer_lock(a);
	db_hold_end(a->db, SWEEP_HOLD);
	app_writer_unlock(a);
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
	resume_clocks(a, (long long)time(NULL));
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
