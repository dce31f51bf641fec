/* group_commit.h - the one writer: changes that arrive together share one durable commit. */
#ifndef ROOKERY_GROUP_COMMIT_H
#define ROOKERY_GROUP_COMMIT_H

#include "core/app.h"

/*
 * One change to apply. run makes it with app_db() as the writer, its writes
 * between db_begin and db_commit (a savepoint of the group's transaction);
 * it may be run again when its group failed, so it must start afresh each
 * time. lost is called when its change could not be made durable (the
 * group's and then its own commit failed after run said yes): it turns the
 * answer into a storage error. finish is called last, on the writer thread,
 * once the commit that holds the change is durable (or after lost): the
 * answer may go out.
 */
typedef struct group_job {
	void (*run)(void *arg);
	void (*lost)(void *arg);
	void (*finish)(void *arg);
	void *arg;
	struct group_job *next;   /* the writer's own */
} group_job;

typedef struct group_writer group_writer;

/* Start the writer thread for a; NULL when the thread cannot start. */
group_writer *group_writer_start(app *a);

/* Apply what is queued, then stop the thread and free w. */
void group_writer_stop(group_writer *w);

/*
 * Queue job; it is finished (job->finish) once the commit that holds its
 * change is durable. Jobs queued while a group runs form the next group, of
 * at most LIMIT_GROUP_CHANGES; each has its own savepoint, so a refused or
 * failing change rolls back alone. A failure of the whole transaction (a
 * full disk, an I/O error) runs each change of the group again alone. The
 * job must live until it is finished.
 */
void group_writer_submit(group_writer *w, group_job *job);

#endif
