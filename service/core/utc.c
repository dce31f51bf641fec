/* utc.c - the current time as text, in UTC. */
#include "core/utc.h"

#include <time.h>

void utc_now(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
