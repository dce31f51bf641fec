/* log.h - one line per request and per state change, on standard error. */
#ifndef ROOKERY_LOG_H
#define ROOKERY_LOG_H

#include <stddef.h>

/* Write "<time> <message>\n" to standard error. Never pass tokens or seeds. */
void log_event(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Copy s into out (size bytes), with control characters shown as \xNN, cut to fit. */
void log_sanitize(char *out, size_t size, const char *s);

#endif
