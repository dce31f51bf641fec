/* view_cache.h - rendered views of games kept in memory, one per game and viewer, least recently used out first. */
#ifndef ROOKERY_VIEW_CACHE_H
#define ROOKERY_VIEW_CACHE_H

#include "db.h"
#include "rules.h"

#include <stddef.h>

typedef struct view_cache view_cache;

/*
 * What a stored view was made with besides its text: the rules of its game
 * and its clock, so that the part of the view that changes with time (the
 * clock) can be made at serve time without loading the game.
 */
typedef struct view_cache_meta {
	const rules_game *rules;
	int has_clock;
	db_clock clock;
} view_cache_meta;

typedef struct view_cache_stats {
	unsigned long long hits, misses, stores, evictions;
	size_t entries, bytes;
} view_cache_stats;

/*
 * A cache of at most max_entries views holding at most max_bytes of text
 * together; max_entries 0 keeps nothing (every get misses). Thread-safe.
 */
view_cache *view_cache_new(size_t max_entries, size_t max_bytes);
void view_cache_free(view_cache *c);   /* NULL is fine */

/*
 * The view of game_id at version as viewer (a seat, or -1: the public)
 * sees it: 1 with a copy of its text in *text (malloc'd, NUL-terminated),
 * its length in *len and *meta filled; 0 when it is not held (c may be
 * NULL). Only the exact key answers: a seat's view is never given for
 * another seat or for the public, nor any version for another.
 */
int view_cache_get(view_cache *c, const char *game_id, long long version, int viewer, char **text, size_t *len,
		   view_cache_meta *meta);

/*
 * Keep text (len bytes) as the view of game_id at version for viewer. It
 * replaces the view held for that game and viewer when that one is older
 * (an older version is never asked for again) and is dropped when a newer
 * one is held (a reader's older snapshot). The least recently used views
 * go while the bounds are exceeded; a text larger than max_bytes is not kept.
 */
void view_cache_put(view_cache *c, const char *game_id, long long version, int viewer, const char *text, size_t len,
		    const view_cache_meta *meta);

/* Counters since creation, and what is held now. */
void view_cache_stats_get(view_cache *c, view_cache_stats *out);

#endif
