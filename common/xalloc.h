/* xalloc.h - allocation that aborts on out-of-memory, so callers need no checks. */
#ifndef ROOKERY_XALLOC_H
#define ROOKERY_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* A copy of n bytes at p. */
void *xmemdup(const void *p, size_t n);
char *xstrndup(const char *s, size_t n);
/* printf into a new string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
