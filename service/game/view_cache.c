/* view_cache.c - a bounded LRU of rendered views: a hash table by (game, viewer) and a list by last use, under one mutex. */
#include "game/view_cache.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
	char game_id[DB_GAME_ID_TEXT];
	int viewer;
	long long version;
	char *text;
	size_t len;
	view_cache_meta meta;
	struct entry *chain;            /* next in its bucket */
	struct entry *newer, *older;    /* the use list */
} entry;

struct view_cache {
	pthread_mutex_t lock;
	size_t max_entries, max_bytes;
	size_t nbuckets;                /* a power of two */
	entry **buckets;
	entry *newest, *oldest;
	view_cache_stats stats;
};

view_cache *view_cache_new(size_t max_entries, size_t max_bytes)
{
	view_cache *c = xcalloc(1, sizeof *c);

	pthread_mutex_init(&c->lock, NULL);
	c->max_entries = max_entries;
	c->max_bytes = max_bytes;
	/* About one entry a bucket when full; a handful of buckets when the cache keeps nothing. */
	c->nbuckets = 16;
	while (c->nbuckets < max_entries)
		c->nbuckets *= 2;
	c->buckets = xcalloc(c->nbuckets, sizeof *c->buckets);
	return c;
}

static void entry_free(entry *e)
{
	free(e->text);
	free(e);
}

void view_cache_free(view_cache *c)
{
	if (!c)
		return;
	for (entry *e = c->newest, *next; e; e = next) {
		next = e->older;
		entry_free(e);
	}
	free(c->buckets);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* FNV-1a of the game id and the viewer. */
static size_t bucket_of(const view_cache *c, const char *game_id, int viewer)
{
	uint64_t h = 14695981039346656037ULL;

	for (const unsigned char *p = (const unsigned char *)game_id; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	h = (h ^ (unsigned)(viewer + 1)) * 1099511628211ULL;
	return (size_t)(h & (c->nbuckets - 1));
}

/* The slot pointing at the entry of (game_id, viewer), or at the NULL ending its bucket. */
static entry **find(view_cache *c, const char *game_id, int viewer)
{
	entry **slot = &c->buckets[bucket_of(c, game_id, viewer)];

	while (*slot && ((*slot)->viewer != viewer || strcmp((*slot)->game_id, game_id) != 0))
		slot = &(*slot)->chain;
	return slot;
}

static void unlink_use(view_cache *c, entry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		c->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		c->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void link_newest(view_cache *c, entry *e)
{
	e->older = c->newest;
	e->newer = NULL;
	if (c->newest)
		c->newest->newer = e;
	c->newest = e;
	if (!c->oldest)
		c->oldest = e;
}

/* Take e (found at slot) out of the table and the use list, and free it. */
static void drop(view_cache *c, entry **slot)
{
	entry *e = *slot;

	*slot = e->chain;
	unlink_use(c, e);
	c->stats.entries--;
	c->stats.bytes -= e->len;
	entry_free(e);
}

int view_cache_get(view_cache *c, const char *game_id, long long version, int viewer, char **text, size_t *len,
		   view_cache_meta *meta)
{
	entry *e;

	if (!c)
		return 0;
	pthread_mutex_lock(&c->lock);
	e = *find(c, game_id, viewer);
	if (!e || e->version != version) {
		c->stats.misses++;
		pthread_mutex_unlock(&c->lock);
		return 0;
	}
	c->stats.hits++;
	unlink_use(c, e);
	link_newest(c, e);
	*text = xmalloc(e->len + 1);
	memcpy(*text, e->text, e->len + 1);
	*len = e->len;
	*meta = e->meta;
	pthread_mutex_unlock(&c->lock);
	return 1;
}

void view_cache_put(view_cache *c, const char *game_id, long long version, int viewer, const char *text, size_t len,
		    const view_cache_meta *meta)
{
	entry **slot, *e;

	if (!c || c->max_entries == 0 || len > c->max_bytes || strlen(game_id) >= DB_GAME_ID_TEXT)
		return;
	/* Copied before the lock: the lock guards the table, not the work. */
	e = xcalloc(1, sizeof *e);
	strcpy(e->game_id, game_id);
	e->viewer = viewer;
	e->version = version;
	e->text = xmalloc(len + 1);
	memcpy(e->text, text, len);
	e->text[len] = 0;
	e->len = len;
	e->meta = *meta;
	pthread_mutex_lock(&c->lock);
	slot = find(c, game_id, viewer);
	if (*slot && (*slot)->version >= version) {
		/* As new or newer already: a reader with an older snapshot, or two readers at once. */
		pthread_mutex_unlock(&c->lock);
		entry_free(e);
		return;
	}
	if (*slot)
		drop(c, slot);
	/* Where find stopped, in the bucket it already hashed to. */
	e->chain = *slot;
	*slot = e;
	link_newest(c, e);
	c->stats.entries++;
	c->stats.bytes += len;
	c->stats.stores++;
	while (c->stats.entries > c->max_entries || c->stats.bytes > c->max_bytes) {
		entry *old = c->oldest;
		drop(c, find(c, old->game_id, old->viewer));
		c->stats.evictions++;
	}
	pthread_mutex_unlock(&c->lock);
}

void view_cache_stats_get(view_cache *c, view_cache_stats *out)
{
	memset(out, 0, sizeof *out);
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	*out = c->stats;
	pthread_mutex_unlock(&c->lock);
}
