/* errors.c - the one table mapping error codes to names and HTTP statuses. */
#include "core/errors.h"

#include <stdarg.h>
#include <stdio.h>

static const struct {
	const char *name;
	int status;
} codes[E_CODE_COUNT_] = {
	[0] = {"ok", 200},
	[-E_BAD_REQUEST] = {"bad_request", 400},
	[-E_BAD_JSON] = {"bad_json", 400},
	[-E_MEDIA_TYPE] = {"unsupported_media_type", 415},
	[-E_TOO_LARGE] = {"too_large", 413},
	[-E_NOT_FOUND] = {"not_found", 404},
	[-E_METHOD] = {"method_not_allowed", 405},
	[-E_UNAUTHORIZED] = {"unauthorized", 401},
	[-E_FORBIDDEN] = {"forbidden", 403},
	[-E_NOT_YOUR_TURN] = {"not_your_turn", 403},
	[-E_STALE] = {"stale_ply", 409},
	[-E_GAME_OVER] = {"game_over", 409},
	[-E_BAD_MOVE] = {"bad_move", 422},
	[-E_ILLEGAL] = {"illegal_move", 422},
	[-E_INCOMPLETE] = {"incomplete_move", 422},
	[-E_NO_OFFER] = {"no_draw_offer", 409},
	[-E_OFFER_PENDING] = {"draw_offer_pending", 409},
	[-E_UNKNOWN_VARIANT] = {"unknown_variant", 422},
	[-E_INTERNAL] = {"internal", 500},
	[-E_UNAVAILABLE] = {"unavailable", 503},
	[-E_URI_TOO_LONG] = {"uri_too_long", 414},
	[-E_RATE_LIMITED] = {"rate_limited", 429},
	[-E_SEEDS_FIXED] = {"seeds_fixed", 409},
	[-E_BAD_CLOCK] = {"bad_clock", 422},
	[-E_NO_CLOCK] = {"no_clock", 409},
	[-E_BAD_VACATION] = {"bad_vacation", 422},
	[-E_VACATION_OVERLAP] = {"vacation_overlap", 422},
	[-E_VACATION_DAYS] = {"vacation_days", 422},
	[-E_TOO_MANY_STREAMS] = {"too_many_streams", 429},
	[-E_BAD_MESSAGE] = {"bad_message", 422},
	[-E_BAD_CONDITIONAL] = {"bad_conditional", 422},
	[-E_CONDITIONAL_NOT_NOW] = {"conditional_not_now", 409},
	[-E_SEAT_TAKEN] = {"seat_taken", 409},
	[-E_NOT_STARTED] = {"game_not_started", 409},
};

int app_fail(app_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return code;
}

static int index_of(int code)
{
	return code <= 0 && code > -E_CODE_COUNT_ ? -code : -E_INTERNAL;
}

const char *app_code_name(int code)
{
	return codes[index_of(code)].name;
}

int app_code_status(int code)
{
	return codes[index_of(code)].status;
}
