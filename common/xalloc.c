/* xalloc.c - the one place where out-of-memory is handled: by aborting. */
#define _GNU_SOURCE
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *check(void *p)
{
	if (!p) {
		fputs("rookery: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *xcalloc(size_t count, size_t size) { return check(calloc(count ? count : 1, size ? size : 1)); }
void *xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *xstrdup(const char *s) { return check(strdup(s)); }
void *xmemdup(const void *p, size_t n) { return memcpy(xmalloc(n), p, n); }
char *xstrndup(const char *s, size_t n) { return check(strndup(s, n)); }

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		check(NULL);
	return s;
}
