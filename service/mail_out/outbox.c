/* outbox.c - claim due mails under the lock, send them without it, record the outcome. */
#define _GNU_SOURCE   /* pthread_timedjoin_np */
#include "mail_out/outbox.h"
#include "core/log.h"
#include "core/utc.h"
#include "mail_out/mail.h"
#include "mail_out/maildir.h"
#include "mail_out/smtp.h"
#include "core/limits.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct outbox {
	app *app;
	int retry_base_s;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int woken;
	atomic_int stopping;   /* read by an SMTP transfer in progress, which then gives up */
	int interrupted_left;  /* a previous run's 'sending' rows are not marked failed yet */
	int abandon_tries;
};

static long long retry_delay(int attempts, int base_s)
{
	long long d = base_s;

	for (int i = 1; i < attempts && d < LIMIT_MAIL_RETRY_DELAY_MAX_S; i++)
		d *= 2;
	return d < LIMIT_MAIL_RETRY_DELAY_MAX_S ? d : LIMIT_MAIL_RETRY_DELAY_MAX_S;
}

/*
 * Record a delivery's outcome. A row left 'sending' counts as interrupted at the next start
 * (marked failed: a sent mail called failed, a retry never made), so when the write fails (a
 * full or failing disk) it is tried again every second until it goes through, or until the
 * worker is told to stop (stop NULL: once only).
 */
static void record(app *a, const db_outbox_row *row, int result, const char *why, int retry_base_s,
		   const atomic_int *stop)
{
	db_error de;
	char now[32];
	int r;

	for (int attempt = 1;; attempt++) {
		utc_now(now);
		app_writer_lock(a);
		if (result == SMTP_SENT)
			r = db_outbox_sent(app_db(a), row->id, now, &de);
		else if (result == SMTP_TEMPORARY && row->attempts < LIMIT_MAIL_ATTEMPTS)
			r = db_outbox_retry(app_db(a), row->id, (long long)time(NULL) +
					    retry_delay(row->attempts, retry_base_s), why, &de);
		else
			r = db_outbox_failed(app_db(a), row->id, why, &de);
		app_writer_unlock(a);
		if (!r)
			break;
		int last = !stop || atomic_load(stop);
		if (last)
			log_event("mail %lld: cannot record its delivery: %s", row->id, de.message);
		else if (attempt == 1)
			log_event("mail %lld: cannot record its delivery (trying again every %d s): %s", row->id,
				  LIMIT_OUTBOX_RECORD_RETRY_S, de.message);
		if (last)
			break;
		/* In tenths of a second, to hear a stop. */
		for (int i = 0; i < LIMIT_OUTBOX_RECORD_RETRY_S * 10 && !atomic_load(stop); i++)
			nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
	}
	if (result == SMTP_SENT)
		log_event("mail %lld (%s) delivered", row->id, row->kind);
	else
		log_event("mail %lld (%s) attempt %d failed%s: %s", row->id, row->kind, row->attempts,
			  result == SMTP_PERMANENT || row->attempts >= LIMIT_MAIL_ATTEMPTS ? " for good" : "",
			  why);
}

/*
 * Claim and send one due mail. Claiming one at a time means a crash gives
 * up at most the mail in flight (see db_outbox_abandon_interrupted).
 * Returns 1 when a mail was tried, 0 when none was due.
 */
static int send_one(app *a, int retry_base_s, const atomic_int *stop)
{
	db_outbox_row *rows;
	size_t n;
	db_error de;
	char why[256] = "";
	int r, result;

	app_writer_lock(a);
	r = db_outbox_claim(app_db(a), (long long)time(NULL), 1, &rows, &n, &de);
	app_writer_unlock(a);
	if (r) {
		log_event("mail: cannot read the outbox: %s", de.message);
		return 0;
	}
	if (n == 0) {
		db_outbox_rows_free(rows, n);
		return 0;
	}
	if (a->mail->smtp_url)
		result = smtp_send(a->mail, rows[0].recipient, rows[0].message, stop, why, sizeof why);
	else
		result = maildir_deliver(a->mail->maildir, rows[0].id, rows[0].message, why, sizeof why)
			 ? SMTP_TEMPORARY : SMTP_SENT;
	record(a, &rows[0], result, why, retry_base_s, stop);
	db_outbox_rows_free(rows, n);
	return 1;
}

int outbox_run_once(app *a, int retry_base_s)
{
	int sent = 0;

	while (sent < LIMIT_OUTBOX_BATCH && send_one(a, retry_base_s, NULL))
		sent++;
	return sent;
}

/*
 * Mark failed the mails a previous run left 'sending' (it stopped while sending them: they
 * are not sent again). Done at start; when the disk fails then, the worker tries again
 * between mails, when no row of this run is 'sending', until it goes through.
 *
 * On a database other daemons share, a row 'sending' may be another daemon's mail in flight:
 * only claims older than any delivery lasts count as interrupted, and the worker looks for
 * them at every round, since a daemon that dies leaves its claims to the others.
 */
static void abandon_interrupted(outbox *o)
{
	db_error de;
	int lost = 0, r, shared = db_shared(o->app->db);
	long long before = shared ? (long long)time(NULL) - LIMIT_MAIL_SENDING_S : LLONG_MAX;

	app_writer_lock(o->app);
	r = db_outbox_abandon_interrupted(app_db(o->app), before, &lost, &de);
	app_writer_unlock(o->app);
	if (r && o->abandon_tries++ == 0)
		log_event("mail: cannot mark the mails interrupted by the last stop (trying again): %s", de.message);
	o->interrupted_left = r != 0 || shared;
	if (lost)
		log_event("mail: %d mail(s) were being sent when the server stopped; marked failed, not resent", lost);
}

static void *worker(void *arg)
{
	outbox *o = arg;

	for (;;) {
		pthread_mutex_lock(&o->mu);
		if (!o->woken && !atomic_load(&o->stopping)) {
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += LIMIT_OUTBOX_POLL_S;
			pthread_cond_timedwait(&o->cv, &o->mu, &until);
		}
		o->woken = 0;
		pthread_mutex_unlock(&o->mu);
		if (o->interrupted_left && !atomic_load(&o->stopping))
			abandon_interrupted(o);
		/* Drain what is due, one mail at a time, until told to stop. */
		while (!atomic_load(&o->stopping) && send_one(o->app, o->retry_base_s, &o->stopping))
			;
		if (atomic_load(&o->stopping))
			break;
	}
	return NULL;
}

outbox *outbox_start(app *a, int retry_base_s)
{
	outbox *o = calloc(1, sizeof *o);

	if (!o)
		abort();
	o->app = a;
	o->retry_base_s = retry_base_s;
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->cv, NULL);
	abandon_interrupted(o);
	if (pthread_create(&o->thread, NULL, worker, o)) {
		free(o);
		return NULL;
	}
	return o;
}

void outbox_wake(outbox *o)
{
	if (!o)
		return;
	pthread_mutex_lock(&o->mu);
	o->woken = 1;
	pthread_cond_signal(&o->cv);
	pthread_mutex_unlock(&o->mu);
}

int outbox_stop(outbox *o, int grace_s)
{
	struct timespec until;

	if (!o)
		return 0;
	pthread_mutex_lock(&o->mu);
	atomic_store(&o->stopping, 1);
	pthread_cond_signal(&o->cv);
	pthread_mutex_unlock(&o->mu);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += grace_s;
	/* libcurl waits for an SMTP server's last answer without asking whether to give up. */
	if (pthread_timedjoin_np(o->thread, NULL, &until)) {
		log_event("mail: a delivery is still waiting for its SMTP server; leaving it (it will not be resent)");
		return -1;
	}
	pthread_cond_destroy(&o->cv);
	pthread_mutex_destroy(&o->mu);
	free(o);
	return 0;
}
