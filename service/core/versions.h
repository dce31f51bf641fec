/* versions.h - the latest committed version of games, known in memory so that a warm read touches no database. */
#ifndef ROOKERY_VERSIONS_H
#define ROOKERY_VERSIONS_H

#include <stdint.h>

typedef struct versions versions;

/* A table of room games' versions (direct-mapped by the id's hash: a newcomer replaces a game). */
versions *versions_new(unsigned room);
void versions_free(versions *v);   /* NULL is fine */

/*
 * The writer committed game_id at version (app->game_changed, after the
 * commit is durable and before the change is answered): from now on this is
 * the game's version for every reader.
 */
void versions_committed(versions *v, const char *game_id, long long version);

/*
 * The writer's commits in flight. versions_commit_begins: a commit that may
 * change games' versions is about to become visible (called inside its
 * COMMIT, before any reader can see it); versions_commit_told: every version
 * of the commits since has been told (versions_committed). In between,
 * versions_get knows nothing, so that a reader reads the version from its
 * snapshot: one read may already have seen the commit in the database, and
 * a later one must not be answered from memory with the version before it.
 * Only the writer calls these (holding the writing connection); v may be NULL.
 */
void versions_commit_begins(versions *v);
void versions_commit_told(versions *v);

/* A mark to take before a reader reads a version from the database (versions_learn). */
uint64_t versions_mark(versions *v);

/*
 * A reader read version from the database in a snapshot begun after it took
 * mark. It is kept unless a commit the snapshot may not have seen could
 * have been forgotten since (a record replaced after mark); a version
 * already known is only ever raised.
 */
void versions_learn(versions *v, const char *game_id, long long version, uint64_t mark);

/*
 * 1 with the game's latest committed version in *version when known; 0 when
 * not (v may be NULL), and while a commit is being told.
 */
int versions_get(versions *v, const char *game_id, long long *version);

#endif
