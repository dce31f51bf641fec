/* log.h - one line per request and per state change, on standard error. */
#ifndef ROOKERY_LOG_H
#define ROOKERY_LOG_H

/* Write "<time> <message>\n" to standard error. Never pass tokens or seeds. */
void log_event(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
