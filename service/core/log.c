/* log.c - timestamped lines on standard error, written whole so threads do not interleave. */
#include "core/log.h"
#include "core/utc.h"
#include "core/limits.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

void log_event(const char *fmt, ...)
{
	char line[LIMIT_LOG_LINE], now[32];
	va_list ap;
	int n;

	utc_now(now);
	n = snprintf(line, sizeof line, "%s ", now);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	/* One write per line: atomic on a pipe, so lines never mix. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

void log_sanitize(char *out, size_t size, const char *s)
{
	size_t n = 0;

	for (; *s && n + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(out + n, size - n, "\\x%02x", c);
		else
			out[n++] = (char)c;
	}
	out[n] = 0;
}
