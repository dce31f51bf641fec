/* ceiling.c - the commit ceilings' command line, row and timed loop (ceiling.h). */
#include "ceiling.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void ceiling_args(ceiling *c, int argc, char **argv, const char *usage)
{
	if (argc < 3) {
		fprintf(stderr, "%s\n", usage);
		exit(2);
	}
	c->target = argv[1];
	c->secs = atof(argv[2]);
	c->row = argc > 3 ? (size_t)atol(argv[3]) : 240;
	c->payload = malloc(c->row + 1);
	if (!c->payload)
		exit(1);
	for (size_t i = 0; i < c->row; i++)
		c->payload[i] = "abcdefghijklmnopqrstuvwxyz./~+-:"[i % 32];
	c->payload[c->row] = 0;
}

void ceiling_free(ceiling *c)
{
	free(c->payload);
	c->payload = NULL;
}

void ceiling_run(const ceiling *c, void (*commit)(void *ctx, long n, const ceiling *c), void *ctx)
{
	double t0 = now_s(), t1;
	long n = 0;

	do {
		commit(ctx, n++, c);
		t1 = now_s();
	} while (t1 - t0 < c->secs);
	printf("commits=%ld seconds=%.3f rate=%.1f\n", n, t1 - t0, (double)n / (t1 - t0));
}
