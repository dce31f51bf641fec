/* view_served.c - the game JSON served from the cache with its clock made at serve time, and entity tags. */
#include "game/view_served.h"
#include "core/versions.h"
#include "game/clock.h"
#include "game/view.h"
#include "game/view_cache.h"
#include "xalloc.h"

#include <pthread.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * A mark of the server's build in every tag: a body cached by a client before an upgrade that
 * changed how views are written must not be confirmed afterwards under the same version, while
 * every daemon of one build (several on one shared database, behind one address) tags a version
 * alike. The hash of the program's own file, or a random mark of the run when it cannot be read.
 */
static unsigned run_mark;
static pthread_once_t run_mark_once = PTHREAD_ONCE_INIT;

static void run_mark_init(void)
{
	unsigned char hash[crypto_generichash_BYTES_MIN], buf[65536];
	crypto_generichash_state st;
	FILE *f = fopen("/proc/self/exe", "rb");
	size_t n;

	run_mark = randombytes_random();
	if (!f)
		return;
	crypto_generichash_init(&st, NULL, 0, sizeof hash);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		crypto_generichash_update(&st, buf, n);
	if (!ferror(f) && crypto_generichash_final(&st, hash, sizeof hash) == 0)
		memcpy(&run_mark, hash, sizeof run_mark);
	fclose(f);
}

/* The start every tag shares: the run, the version and the viewer. */
static int tag_start(char *tag, long long version, int viewer)
{
	pthread_once(&run_mark_once, run_mark_init);
	if (viewer >= 0)
		return snprintf(tag, VIEW_TAG_TEXT, "\"%08x-%lld-s%d", run_mark, version, viewer);
	return snprintf(tag, VIEW_TAG_TEXT, "\"%08x-%lld-p", run_mark, version);
}

int view_version(app *a, const char *id, long long *version, app_error *err)
{
	db_error de;
	int r;

	/*
	 * The writer reads its own changes before they are committed: memory is for readers only.
	 * While a commit is being told, memory knows nothing (versions_get): the snapshot answers.
	 */
	if (app_reading() && versions_get(a->versions, id, version))
		return 0;
	r = db_game_version(app_db(a), id, version, &de);
	if (r == 0 && app_reading())
		versions_learn(a->versions, id, *version, app_read_mark());
	if (r == DB_E_NOTFOUND)
		return app_fail(err, E_NOT_FOUND, "there is no game %s", id);
	if (r)
		return app_storage_fail(err, &de);
	return 0;
}

void view_page_tag(long long version, enum view_page_kind kind, int viewer, int from, int limit,
		   char tag[VIEW_TAG_TEXT])
{
	int n = tag_start(tag, version, viewer);

	snprintf(tag + n, VIEW_TAG_TEXT - (size_t)n, "-%c%d-%d\"", "mdr"[kind], from, limit);
}

void view_board_tag(long long version, int ply, int side, char tag[VIEW_TAG_TEXT])
{
	int n;

	if (version >= 0) {
		n = tag_start(tag, version, -1);
	} else {
		pthread_once(&run_mark_once, run_mark_init);
		n = snprintf(tag, VIEW_TAG_TEXT, "\"%08x", run_mark);
	}
	snprintf(tag + n, VIEW_TAG_TEXT - (size_t)n, "-b%d-%d\"", ply, side);
}

/*
 * The tag of the game JSON: the clock part is all that changes without a new
 * version (each seat's time left, and whether its vacation still runs), so
 * those values at now are folded in (FNV-1a).
 */
static void game_tag(long long version, int viewer, const db_clock *clock, long long now, char tag[VIEW_TAG_TEXT])
{
	int n = tag_start(tag, version, viewer);
	uint64_t h = 14695981039346656037ULL;

	if (!clock) {
		snprintf(tag + n, VIEW_TAG_TEXT - (size_t)n, "\"");
		return;
	}
	for (int i = 0; i < clock->nseats; i++) {
		long long v[2] = {clock_remaining(clock, i, now), clock->seats[i].paused_until > now};
		const unsigned char *p = (const unsigned char *)v;
		for (size_t k = 0; k < sizeof v; k++)
			h = (h ^ p[k]) * 1099511628211ULL;
	}
	snprintf(tag + n, VIEW_TAG_TEXT - (size_t)n, "-c%016llx\"", (unsigned long long)h);
}

static char *dump(json_t *v, size_t *len)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);   /* the clock may be null */

	if (!s)
		abort();
	*len = strlen(s);
	return s;
}

/* Keep the text of viewer's view of g, when what the thread read is committed (a change's own is not yet). */
static void keep(app *a, const game_loaded *g, int viewer, const char *text, size_t len)
{
	view_cache_meta meta = {.rules = g->rules, .has_clock = g->clock != NULL};

	if (!a->views || !app_reading())
		return;
	if (g->clock)
		meta.clock = *g->clock;
	view_cache_put(a->views, g->rec->id, g->rec->version, viewer, text, len, &meta);
}

/* Append the clock to a view's text as its last member: {...} becomes {...,"clock":...}. */
static char *with_clock(char *text, size_t *len, const view_cache_meta *meta, long long now)
{
	json_t *c = view_clock_of(meta->rules, meta->has_clock ? &meta->clock : NULL, now);
	size_t clen;
	char *ctext = dump(c, &clen);
	static const char key[] = ",\"clock\":";

	json_decref(c);
	/* The view is an object with members: its text ends with the closing brace. */
	text = xrealloc(text, *len + sizeof key - 1 + clen + 1);
	(*len)--;
	memcpy(text + *len, key, sizeof key - 1);
	*len += sizeof key - 1;
	memcpy(text + *len, ctext, clen);
	*len += clen;
	memcpy(text + *len, "}", 2);
	(*len)++;
	free(ctext);
	return text;
}

int view_serve_game(app *a, const char *id, int viewer, view_held_fn held, void *ctx, view_served *out,
		    app_error *err)
{
	long long now = (long long)time(NULL);
	view_cache_meta meta = {0};
	game_loaded g;
	char *text = NULL;
	size_t len = 0;
	db_error de;
	int r;

	memset(out, 0, sizeof *out);
	if ((r = view_version(a, id, &out->version, err)))
		return r;
	int hit = view_cache_get(a->views, id, out->version, viewer, &text, &len, &meta);
	if (!hit && held) {
		/* The tag needs the clock alone: two indexed reads, still not the game. */
		r = db_clock_load(app_db(a), id, &meta.clock, &de);
		if (r && r != DB_E_NOTFOUND)
			return app_storage_fail(err, &de);
		meta.has_clock = r == 0;
	}
	if (held) {
		game_tag(out->version, viewer, meta.has_clock ? &meta.clock : NULL, now, out->tag);
		if (held(ctx, out->tag)) {
			free(text);
			return 0;
		}
	}
	if (!hit) {
		if ((r = game_load(a, id, &g, err)))
			return r;
		/*
		 * The snapshot may be newer than the version found in memory (a commit that began
		 * after the lookup): answer and tag what was loaded, and raise memory to it now.
		 */
		out->version = g.rec->version;
		if (app_reading())
			versions_learn(a->versions, id, out->version, app_read_mark());
		json_t *o = view_game_timeless(&g, viewer);
		text = dump(o, &len);
		json_decref(o);
		keep(a, &g, viewer, text, len);
		meta = (view_cache_meta){.rules = g.rules, .has_clock = g.clock != NULL};
		if (g.clock)
			meta.clock = *g.clock;
		game_loaded_free(&g);
	}
	game_tag(out->version, viewer, meta.has_clock ? &meta.clock : NULL, now, out->tag);
	out->text = with_clock(text, &len, &meta, now);
	out->len = len;
	return 0;
}

json_t *view_game_cached(app *a, const game_loaded *g, int viewer)
{
	view_cache_meta meta;
	char *text;
	size_t len;
	json_t *o = NULL;

	/* A change's answer is made from what is not committed yet: never from the cache, nor into it. */
	if (!a->views || !app_reading())
		return view_game(g, viewer);
	/* What this read saw is committed: memory may lag behind it (see view_serve_game). */
	versions_learn(a->versions, g->rec->id, g->rec->version, app_read_mark());
	if (view_cache_get(a->views, g->rec->id, g->rec->version, viewer, &text, &len, &meta)) {
		o = json_loadb(text, len, 0, NULL);
		free(text);
	}
	if (!o) {
		o = view_game_timeless(g, viewer);
		text = dump(o, &len);
		keep(a, g, viewer, text, len);
		free(text);
	}
	json_object_set_new(o, "clock", view_clock(g, (long long)time(NULL)));
	return o;
}
