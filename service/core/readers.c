/* readers.c - a pool of reading connections: WAL readers wait for no writer and no other reader. */
#include "core/readers.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdlib.h>

struct reader_pool {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	unsigned n, nfree;
	db **all;
	db **free;            /* a stack of the connections not lent */
};

reader_pool *readers_open(const char *path, unsigned n, db_error *err)
{
	reader_pool *p = xcalloc(1, sizeof *p);

	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->freed, NULL);
	p->all = xcalloc(n, sizeof *p->all);
	p->free = xcalloc(n, sizeof *p->free);
	for (; p->n < n; p->n++) {
		if (db_open_reader(path, &p->all[p->n], err)) {
			readers_close(p);
			return NULL;
		}
		p->free[p->nfree++] = p->all[p->n];
	}
	return p;
}

void readers_close(reader_pool *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->n; i++)
		db_close(p->all[i]);
	pthread_cond_destroy(&p->freed);
	pthread_mutex_destroy(&p->lock);
	free(p->all);
	free(p->free);
	free(p);
}

db *readers_take(reader_pool *p)
{
	db *d;

	pthread_mutex_lock(&p->lock);
	while (p->nfree == 0)
		pthread_cond_wait(&p->freed, &p->lock);
	d = p->free[--p->nfree];
	pthread_mutex_unlock(&p->lock);
	return d;
}

void readers_give(reader_pool *p, db *d)
{
	pthread_mutex_lock(&p->lock);
	p->free[p->nfree++] = d;
	pthread_cond_signal(&p->freed);
	pthread_mutex_unlock(&p->lock);
}
