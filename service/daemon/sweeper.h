/* sweeper.h - periodic maintenance: jobs run at start and every a->sweep_interval_s. */
#ifndef ROOKERY_SWEEPER_H
#define ROOKERY_SWEEPER_H

#include "core/app.h"

typedef struct sweeper sweeper;

/*
 * Run every job once now, in the caller's thread (so that what expired while the daemon was
 * down is gone at once; expired links are refused anyway), then start the thread that runs them again every
 * a->sweep_interval_s (serve --sweep-seconds, default LIMIT_SWEEP_INTERVAL_S). Each job runs under a->lock, as every user of the database does.
 * Returns NULL when the thread cannot be started.
 */
sweeper *sweeper_start(app *a);

/* Stop the thread (it wakes at once, a job in progress finishes) and free it. NULL is a no-op. */
void sweeper_stop(sweeper *s);

#endif
