/* events.h - live events: the streams that follow each game, and the one event text each version makes. */
#ifndef ROOKERY_EVENTS_H
#define ROOKERY_EVENTS_H

#include "core/app.h"
#include "http/http.h"

typedef struct event_hub event_hub;

/*
 * Start following games for a's streams, with a keep-alive comment on every
 * stream each keepalive_s seconds (a thread that sleeps in between). Set
 * a->events to the hub and a->game_changed to events_publish. NULL when the
 * thread cannot start.
 */
event_hub *events_start(app *a, unsigned keepalive_s);

/* Stop the keep-alive thread and free the hub; no stream may be open (http_stop ends them). */
void events_stop(event_hub *h);

/*
 * a->game_changed: the game's version is now version, durably. Called on the
 * writer's thread with the writer held: records it and wakes one stream of
 * the game, which builds the event for all of them.
 */
void events_publish(app *a, const char *game_id, long long version);

/* Call fn for each game a stream follows now (fn may call events_publish). */
void events_each_followed(app *a, void (*fn)(void *ctx, const char *game_id), void *ctx);

/*
 * GET /api/games/{id}/events: a Server-Sent Events stream of the game as the
 * public sees it (docs/api.md, "Live events"). Runs on a reading connection.
 */
void events_serve(http_request *req, http_response *res);

#endif
