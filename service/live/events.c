/* events.c - live events: streams grouped by game, one shared event text per game version. */
#include "live/events.h"
#include "core/errors.h"
#include "core/limits.h"
#include "core/log.h"
#include "game/game.h"
#include "game/view.h"
#include "game/view_served.h"
#include "xalloc.h"
#include "core/text.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EVENT_BUCKETS 256            /* hash buckets of the games followed and of the client addresses */
#define KEEPALIVE_TEXT ": keep-alive\n\n"

/*
 * What one version of a game says to the public: "data: <game JSON>\n\n",
 * built once and shared by every stream of the game (refs, under the hub's
 * lock). The text never changes once built.
 */
typedef struct snapshot {
	unsigned refs;
	long long version;
	int ply, over;
	char *text;
	size_t len;
} snapshot;

struct feed;

/*
 * One stream. Its output (head, out, off) belongs to its reader, which
 * libmicrohttpd calls on one thread at a time; the rest is the hub's.
 */
typedef struct sub {
	event_hub *hub;
	struct feed *feed;
	http_stream *stream;         /* NULL until the answer is made */
	char addr[HTTP_ADDRESS_TEXT];
	long long sent;              /* the version the client has, -1: none */
	int ply, over;               /* ... its ply and whether it was over (ply -1: nothing sent) */
	int keepalive;               /* a keep-alive comment is due */
	int failed;                  /* this stream could not build an event: it ends */
	char head[64];               /* "id: ...\nevent: ...\n", or the keep-alive comment */
	size_t head_len;
	snapshot *out;               /* the event being written after head, or NULL */
	size_t off;                  /* bytes of head and out written so far */
	struct sub *prev, *next;     /* the feed's streams */
} sub;

/* A game followed by at least one stream. */
typedef struct feed {
	char id[LIMIT_GAME_ID + 1];
	long long published;         /* the latest version the writer told of (or seen at a connect) */
	snapshot *snap;              /* the latest event built, or NULL */
	int loading;                 /* a stream is building the event of published */
	sub *subs;
	struct feed *next;           /* in its bucket */
} feed;

/* Open streams from one client address. */
typedef struct address_count {
	char addr[HTTP_ADDRESS_TEXT];
	unsigned n;
	struct address_count *next;
} address_count;

struct event_hub {
	app *app;
	pthread_mutex_t lock;
	pthread_cond_t stop_wake;
	int stop;
	unsigned keepalive_s;
	unsigned streams;            /* open, all games together */
	feed *feeds[EVENT_BUCKETS];
	address_count *addresses[EVENT_BUCKETS];
	pthread_t keepalive;
};

static unsigned bucket(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % EVENT_BUCKETS;
}

static feed *feed_find(event_hub *h, const char *id)
{
	feed *f = h->feeds[bucket(id)];

	while (f && strcmp(f->id, id))
		f = f->next;
	return f;
}

static address_count **address_slot(event_hub *h, const char *addr)
{
	address_count **p = &h->addresses[bucket(addr)];

	while (*p && strcmp((*p)->addr, addr))
		p = &(*p)->next;
	return p;
}

static void snapshot_release(snapshot *s)
{
	if (s && --s->refs == 0) {
		free(s->text);
		free(s);
	}
}

static void sub_wake(sub *s)
{
	if (s->stream)
		http_stream_wake(s->stream);
}

/* The latest move as the public sees it, or JSON null before the first. */
static json_t *last_move(app *a, const game_loaded *g, app_error *err)
{
	json_t *page, *m;

	if (g->rec->ply == 0)
		return json_null();
	if (!(page = view_moves(a, g, -1, g->rec->ply - 1, 1, err)))
		return NULL;
	m = json_incref(json_array_get(json_object_get(page, "moves"), 0));
	json_decref(page);
	return m ? m : json_null();
}

/* The event text of the game as it stands, on the calling thread's connection; NULL with err filled. */
static snapshot *snapshot_build(app *a, const char *id, app_error *err)
{
	game_loaded g;
	json_t *o, *last;
	char *json;
	snapshot *s;

	if (game_load(a, id, &g, err))
		return NULL;
	if (!(last = last_move(a, &g, err))) {
		game_loaded_free(&g);
		return NULL;
	}
	/* Exactly the public game JSON, and the move that made this version when one did. */
	o = view_game_cached(a, &g, -1);   /* the public view a GET of this version makes and keeps too */
	json_object_set_new(o, "last_move", last);
	json = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);   /* one line: newlines are escaped */
	json_decref(o);
	if (!json)
		abort();
	s = xcalloc(1, sizeof *s);
	s->refs = 1;
	s->version = g.rec->version;
	s->ply = g.rec->ply;
	s->over = g.rec->over;
	s->text = xasprintf("data: %s\n\n", json);
	s->len = strlen(s->text);
	free(json);
	game_loaded_free(&g);
	return s;
}

/* snapshot_build on a reading connection of its own, in one snapshot of the database. */
static snapshot *snapshot_read(app *a, const char *id, app_error *err)
{
	snapshot *s;

	if (!a->readers) {   /* a server without reading connections reads on the writer */
		app_writer_lock(a);
		s = snapshot_build(a, id, err);
		app_writer_unlock(a);
		return s;
	}
	app_read_begin(a);
	s = snapshot_build(a, id, err);
	app_read_end(a);
	return s;
}

/*
 * Make snap (its reference passes to the feed) the feed's event when it is
 * newer, and wake the streams that have not sent it but self; else drop it.
 */
static void feed_install(feed *f, snapshot *snap, const sub *self)
{
	if (f->snap && f->snap->version >= snap->version) {
		snapshot_release(snap);
		return;
	}
	snapshot_release(f->snap);
	f->snap = snap;
	if (snap->version > f->published)
		f->published = snap->version;
	for (sub *s = f->subs; s; s = s->next)
		if (s != self && s->sent != snap->version)
			sub_wake(s);
}

/* Whether the feed's writer has told of a version no event has been built for, and nobody builds it. */
static int feed_behind(const feed *f)
{
	return !f->loading && (!f->snap || f->snap->version < f->published);
}

/* The event kind that takes a stream from what it sent to n. */
static const char *kind_of(const sub *s, const snapshot *n)
{
	if (s->ply < 0)
		return "state";
	if (n->over && !s->over)
		return "result";
	return n->ply != s->ply ? "move" : "action";
}

/*
 * What s writes next, under the hub's lock (s has nothing left to write):
 * the feed's event when the client lacks it, else a keep-alive when one is
 * due. Returns 1 when s should build the event of the feed's newer version
 * (loading is then set), else 0.
 */
static int sub_next(sub *s)
{
	feed *f = s->feed;
	snapshot *n = f->snap;

	if (n && n->version != s->sent) {
		s->head_len = (size_t)snprintf(s->head, sizeof s->head, "id: %lld\nevent: %s\n", n->version,
					       kind_of(s, n));
		s->out = n;
		n->refs++;
		s->sent = n->version;
		s->ply = n->ply;
		s->over = n->over;
		s->keepalive = 0;
		return 0;
	}
	if (feed_behind(f)) {
		f->loading = 1;
		return 1;
	}
	if (s->keepalive) {
		s->head_len = strlen(KEEPALIVE_TEXT);
		memcpy(s->head, KEEPALIVE_TEXT, s->head_len);
		s->keepalive = 0;
	}
	return 0;
}

/* Copy what s has left to write into buf: the bytes copied. */
static size_t sub_copy(sub *s, char *buf, size_t max)
{
	size_t total = s->head_len + (s->out ? s->out->len : 0), n = 0;

	while (n < max && s->off < total) {
		size_t chunk;
		if (s->off < s->head_len) {
			chunk = s->head_len - s->off;
			if (chunk > max - n)
				chunk = max - n;
			memcpy(buf + n, s->head + s->off, chunk);
		} else {
			size_t at = s->off - s->head_len;
			chunk = s->out->len - at;
			if (chunk > max - n)
				chunk = max - n;
			memcpy(buf + n, s->out->text + at, chunk);
		}
		n += chunk;
		s->off += chunk;
	}
	return n;
}

/* The stream's reader (http_reply_stream). */
static long sub_read(void *cls, char *buf, size_t max)
{
	sub *s = cls;
	event_hub *h = s->hub;
	size_t n;

	if (s->off == s->head_len + (s->out ? s->out->len : 0)) {
		/* All written: forget it and look for what comes next. */
		pthread_mutex_lock(&h->lock);
		snapshot_release(s->out);
		s->out = NULL;
		s->head_len = s->off = 0;
		if (sub_next(s)) {
			app_error err = {0};
			snapshot *snap;
			pthread_mutex_unlock(&h->lock);
			snap = snapshot_read(h->app, s->feed->id, &err);
			pthread_mutex_lock(&h->lock);
			s->feed->loading = 0;
			if (snap) {
				feed_install(s->feed, snap, s);
				sub_next(s);
			} else {
				/* This stream ends; another of the game tries when it goes (sub_done). */
				log_event("events: cannot build the event of game %s: %s", s->feed->id, err.message);
				s->failed = 1;
			}
		}
		pthread_mutex_unlock(&h->lock);
	}
	if (s->failed)
		return HTTP_STREAM_END;
	n = sub_copy(s, buf, max);
	return (long)n;
}

/* A stream is over: forget it, and its game when it was the last to follow it. */
static void sub_done(void *cls)
{
	sub *s = cls;
	event_hub *h = s->hub;
	feed *f = s->feed;
	address_count **slot, *c;

	pthread_mutex_lock(&h->lock);
	if (s->prev)
		s->prev->next = s->next;
	else
		f->subs = s->next;
	if (s->next)
		s->next->prev = s->prev;
	snapshot_release(s->out);
	if (!f->subs) {
		feed **p = &h->feeds[bucket(f->id)];
		while (*p != f)
			p = &(*p)->next;
		*p = f->next;
		snapshot_release(f->snap);
		free(f);
	} else if (feed_behind(f)) {
		sub_wake(f->subs);   /* the one that was to build the event has gone */
	}
	slot = address_slot(h, s->addr);
	c = *slot;
	if (--c->n == 0) {
		*slot = c->next;
		free(c);
	}
	h->streams--;
	pthread_mutex_unlock(&h->lock);
	free(s);
}

void events_publish(app *a, const char *game_id, long long version)
{
	event_hub *h = a->events;
	feed *f;

	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	f = feed_find(h, game_id);
	if (f && version > f->published) {
		f->published = version;
		/* One stream builds the event, then wakes the others (feed_install). */
		if (feed_behind(f))
			sub_wake(f->subs);
	}
	pthread_mutex_unlock(&h->lock);
}

void events_each_followed(app *a, void (*fn)(void *ctx, const char *game_id), void *ctx)
{
	event_hub *h = a->events;
	char (*ids)[LIMIT_GAME_ID + 1] = NULL;
	size_t n = 0, cap = 0;

	if (!h)
		return;
	/* Copied under the lock, told without it: fn may publish, which takes the lock. */
	pthread_mutex_lock(&h->lock);
	for (size_t b = 0; b < EVENT_BUCKETS; b++)
		for (feed *f = h->feeds[b]; f; f = f->next) {
			if (n == cap)
				ids = xrealloc(ids, (cap = cap ? 2 * cap : 16) * sizeof *ids);
			memcpy(ids[n++], f->id, sizeof ids[0]);
		}
	pthread_mutex_unlock(&h->lock);
	for (size_t i = 0; i < n; i++)
		fn(ctx, ids[i]);
	free(ids);
}

/* The Last-Event-ID a reconnecting client sent: the version it has, or -1. */
static long long last_event_id(http_request *req)
{
	long long version;

	return text_whole_number(http_header(req, "Last-Event-ID"), 18, &version) ? -1 : version;
}

/*
 * Count a new stream from addr against the caps and follow the game: the
 * new stream, linked to its feed, or NULL with err filled. Under the lock.
 */
static sub *sub_add(event_hub *h, const char *id, const char *addr, long long version, app_error *err)
{
	address_count **slot = address_slot(h, addr);
	feed *f;
	sub *s;

	if (*slot && (*slot)->n >= LIMIT_EVENT_STREAMS_PER_ADDRESS) {
		app_fail(err, E_TOO_MANY_STREAMS, "this address already follows %d event streams; close one first",
			 LIMIT_EVENT_STREAMS_PER_ADDRESS);
		return NULL;
	}
	if (h->streams >= LIMIT_EVENT_STREAMS) {
		app_fail(err, E_UNAVAILABLE, "the server follows as many event streams as it can; try again later");
		return NULL;
	}
	if (!*slot) {
		*slot = xcalloc(1, sizeof **slot);
		snprintf((*slot)->addr, sizeof (*slot)->addr, "%s", addr);
	}
	(*slot)->n++;
	h->streams++;
	if (!(f = feed_find(h, id))) {
		unsigned b = bucket(id);
		f = xcalloc(1, sizeof *f);
		snprintf(f->id, sizeof f->id, "%s", id);
		f->next = h->feeds[b];
		h->feeds[b] = f;
	}
	if (version > f->published)
		f->published = version;
	s = xcalloc(1, sizeof *s);
	s->hub = h;
	s->feed = f;
	snprintf(s->addr, sizeof s->addr, "%s", addr);
	s->sent = -1;
	s->ply = -1;
	s->next = f->subs;
	if (s->next)
		s->next->prev = s;
	f->subs = s;
	return s;
}

void events_serve(http_request *req, http_response *res)
{
	app *a = req->app;
	event_hub *h = a->events;
	const char *id = req->params[0];
	char addr[HTTP_ADDRESS_TEXT];
	long long version, had = last_event_id(req);
	app_error err = {0};
	snapshot *snap = NULL;
	db_error de;
	sub *s;

	if (!h) {
		http_reply_error(req, res, E_UNAVAILABLE, "this server sends no live events");
		return;
	}
	if (db_game_version(app_db(a), id, &version, &de)) {
		if (de.code == DB_E_NOTFOUND)
			app_fail(&err, E_NOT_FOUND, "there is no game %s", id);
		else
			app_storage_fail(&err, &de);
		http_reply_error(req, res, err.code, err.message);
		return;
	}
	http_client_address(req, addr, sizeof addr);
	pthread_mutex_lock(&h->lock);
	s = sub_add(h, id, addr, version, &err);
	if (s && s->feed->snap && s->feed->snap->version == version) {
		snap = s->feed->snap;
		snap->refs++;
	}
	pthread_mutex_unlock(&h->lock);
	if (!s) {
		http_reply_error(req, res, err.code, err.message);
		return;
	}
	/* The game as it stands, on this request's reading connection, unless the feed has it. */
	if (!snap && !(snap = snapshot_build(a, id, &err))) {
		sub_done(s);
		http_reply_error(req, res, err.code, err.message);
		return;
	}
	pthread_mutex_lock(&h->lock);
	if (had == snap->version) {
		/* Resumed up to date: nothing until the next change. */
		s->sent = had;
		s->ply = snap->ply;
		s->over = snap->over;
	}
	feed_install(s->feed, snap, s);   /* takes this reference */
	s->stream = http_reply_stream(res, "text/event-stream; charset=utf-8", sub_read, sub_done, s);
	pthread_mutex_unlock(&h->lock);
}

/* Every keepalive_s seconds, a keep-alive comment on every stream. */
static void *keepalive_loop(void *arg)
{
	event_hub *h = arg;

	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += h->keepalive_s;
		while (!h->stop && pthread_cond_timedwait(&h->stop_wake, &h->lock, &until) == 0)
			;
		if (h->stop)
			break;
		for (unsigned b = 0; b < EVENT_BUCKETS; b++)
			for (feed *f = h->feeds[b]; f; f = f->next)
				for (sub *s = f->subs; s; s = s->next) {
					s->keepalive = 1;
					sub_wake(s);
				}
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

event_hub *events_start(app *a, unsigned keepalive_s)
{
	event_hub *h = xcalloc(1, sizeof *h);

	h->app = a;
	h->keepalive_s = keepalive_s;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->stop_wake, NULL);
	if (pthread_create(&h->keepalive, NULL, keepalive_loop, h)) {
		pthread_cond_destroy(&h->stop_wake);
		pthread_mutex_destroy(&h->lock);
		free(h);
		return NULL;
	}
	a->events = h;
	a->game_changed = events_publish;
	return h;
}

void events_stop(event_hub *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stop = 1;
	pthread_cond_signal(&h->stop_wake);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->keepalive, NULL);
	pthread_mutex_lock(&h->app->lock);
	h->app->game_changed = NULL;
	h->app->events = NULL;
	pthread_mutex_unlock(&h->app->lock);
	pthread_cond_destroy(&h->stop_wake);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
