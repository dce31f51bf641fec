/* utc.c - the current time as text, in UTC. */
#include "core/utc.h"

#include <string.h>
#include <time.h>

void utc_now(char out[32])
{
	/* Every request logs a line: the text changes once a second, so each thread keeps its last. */
	static _Thread_local time_t last = -1;
	static _Thread_local char text[32];
	time_t t = time(NULL);

	if (t != last) {
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
		last = t;
	}
	memcpy(out, text, sizeof text);
}
