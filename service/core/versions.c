/* versions.c - games' latest committed versions in a fixed table: the writer's word, and what readers learnt safely. */
#include "core/versions.h"
#include "db.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	char id[DB_GAME_ID_TEXT];   /* "" when empty */
	long long version;
};

struct versions {
	pthread_mutex_t lock;
	unsigned room;
	struct slot *slots;
	_Atomic uint64_t commits;   /* versions_committed calls so far: the marks readers take (written under lock) */
	uint64_t replaced_at;       /* commits when a record was last replaced by another game's */
	_Atomic uint64_t telling;   /* odd from a commit's COMMIT until its versions are told (the writer's alone) */
};

versions *versions_new(unsigned room)
{
	versions *v = xcalloc(1, sizeof *v);

	pthread_mutex_init(&v->lock, NULL);
	v->room = room ? room : 1;
	v->slots = xcalloc(v->room, sizeof *v->slots);
	return v;
}

void versions_free(versions *v)
{
	if (!v)
		return;
	pthread_mutex_destroy(&v->lock);
	free(v->slots);
	free(v);
}

/* FNV-1a: ids are random already; this only spreads them over the table. */
static struct slot *slot_of(versions *v, const char *id)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)id; *p; p++)
		h = (h ^ *p) * 16777619u;
	return &v->slots[h % v->room];
}

/* Record version for id under the lock; a different game's record gives way. */
static void record(versions *v, struct slot *s, const char *id, long long version)
{
	if (strcmp(s->id, id) != 0) {
		if (s->id[0])
			v->replaced_at = v->commits;
		snprintf(s->id, sizeof s->id, "%s", id);
		s->version = version;
	} else if (version > s->version) {
		s->version = version;
	}
}

void versions_committed(versions *v, const char *game_id, long long version)
{
	if (!v || strlen(game_id) >= DB_GAME_ID_TEXT)
		return;
	pthread_mutex_lock(&v->lock);
	atomic_fetch_add(&v->commits, 1);
	record(v, slot_of(v, game_id), game_id, version);
	pthread_mutex_unlock(&v->lock);
}

/*
 * The order that keeps a client's reads from going back. The writer makes
 * telling odd (seq_cst: a full barrier) inside COMMIT, before SQLite writes
 * the commit to the WAL and publishes it in the WAL index behind a memory
 * barrier of its own; so whatever has seen the commit in a snapshot (a read,
 * and everything after it: its answer, the client's next request) finds
 * telling odd, or even again at a later value. The writer makes it even
 * (release) only after versions_committed has recorded every version the
 * commit changed; a reader that loads that even value (acquire) sees those
 * records. Hence a reader that finds telling even finds in the table the
 * version of every commit any snapshot before its load could have seen (or
 * no record of the game: it reads the database); one that finds it odd reads
 * the database in any case. A commit that begins after the reader's load
 * is not a concern, whether its version is found or not: nothing this client
 * read before could have seen it. So there is nothing to check again after
 * the lookup.
 */
void versions_commit_begins(versions *v)
{
	/* Several commits while the writer holds the connection: one odd stretch, told at its end. */
	if (v && !(atomic_load_explicit(&v->telling, memory_order_relaxed) & 1))
		atomic_fetch_add_explicit(&v->telling, 1, memory_order_seq_cst);
}

void versions_commit_told(versions *v)
{
	if (v && (atomic_load_explicit(&v->telling, memory_order_relaxed) & 1))
		atomic_fetch_add_explicit(&v->telling, 1, memory_order_release);
}

uint64_t versions_mark(versions *v)
{
	/* Every read takes one: no lock, the count alone is enough. */
	return v ? atomic_load(&v->commits) : 0;
}

void versions_learn(versions *v, const char *game_id, long long version, uint64_t mark)
{
	if (!v || strlen(game_id) >= DB_GAME_ID_TEXT)
		return;
	pthread_mutex_lock(&v->lock);
	struct slot *s = slot_of(v, game_id);
	/*
	 * A commit the reader's snapshot did not see was told after the mark. If
	 * its record is still here, it is newer and stays (versions only rise);
	 * if a record was replaced since the mark, it may have been that one, and
	 * the reader's version could be stale: then it is not kept.
	 */
	if (strcmp(s->id, game_id) == 0 || v->replaced_at <= mark)
		record(v, s, game_id, version);
	pthread_mutex_unlock(&v->lock);
}

int versions_get(versions *v, const char *game_id, long long *version)
{
	int found = 0;

	if (!v || (atomic_load_explicit(&v->telling, memory_order_acquire) & 1))
		return 0;
	pthread_mutex_lock(&v->lock);
	struct slot *s = slot_of(v, game_id);
	if (strcmp(s->id, game_id) == 0) {
		*version = s->version;
		found = 1;
	}
	pthread_mutex_unlock(&v->lock);
	return found;
}
