/* outbox.h - the delivery worker: sends queued mails over SMTP or into a maildir, with retries. */
#ifndef ROOKERY_OUTBOX_H
#define ROOKERY_OUTBOX_H

#include "core/app.h"

typedef struct outbox outbox;

/*
 * Start the worker thread for a->mail. Mails left half-sent by a crash are
 * marked failed first: each outbox row is sent at most once. retry_base_s is
 * the first retry delay; each further one doubles it.
 */
outbox *outbox_start(app *a, int retry_base_s);

/* Look for due mails now (after a commit that queued some). */
void outbox_wake(outbox *o);

/*
 * Stop: a transfer in progress is abandoned where libcurl lets it be.
 * Returns 0 once the worker has ended, or -1 when it is still blocked after
 * grace_s seconds: then the worker must be left alone (it will wait for
 * a->lock, which the caller should keep while it closes the database).
 */
int outbox_stop(outbox *o, int grace_s);

/* One pass over the due mails, in the caller's thread; returns how many were tried. */
int outbox_run_once(app *a, int retry_base_s);

#endif
