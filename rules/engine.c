/* engine.c - the scaffolding every game's engine shares (see engine.h). */
#include "engine.h"
#include "xalloc.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void engine_pack(rules_move *move, const void *m, size_t size, int seat)
{
	assert(size <= sizeof move->raw);
	memset(move, 0, sizeof *move);
	memcpy(move->raw, m, size);
	move->seat = seat;
}

void engine_unpack(const rules_move *move, void *m, size_t size)
{
	assert(size <= sizeof move->raw);
	memcpy(m, move->raw, size);
}

size_t engine_generate(int (*gen_all)(engine_gen *g), const rules_position *pos, int seat,
		       rules_move_list *out)
{
	engine_gen g = { pos, seat, out, 0 };

	gen_all(&g);
	return g.count;
}

int engine_push(engine_gen *g, const void *m, size_t size, int partial)
{
	rules_move rm;

	g->count++;
	if (!g->out)
		return 1;
	engine_pack(&rm, m, size, g->seat);
	rm.partial = partial;
	rules_move_list_push(g->out, &rm);
	return 0;
}

void engine_note(rules_outcome *outcome, const char *fmt, ...)
{
	char part[RULES_NOTE_MAX];
	va_list ap;
	size_t len;

	if (!outcome)
		return;
	va_start(ap, fmt);
	vsnprintf(part, sizeof part, fmt, ap);
	va_end(ap);
	len = strlen(outcome->note);
	snprintf(outcome->note + len, sizeof outcome->note - len, "%s%s", len ? "; " : "", part);
}

int engine_corrupt(rules_error *err, const char *title, const char *what)
{
	return rules_fail(err, RULES_E_DATA, "corrupt %s position: %s", title, what);
}

rules_position *engine_start(const char *options, const char *title, size_t size,
			     rules_position **out, rules_error *err)
{
	*out = NULL;
	if (options && *options) {
		rules_fail(err, RULES_E_DATA, "%s takes no options", title);
		return NULL;
	}
	*out = xcalloc(1, size);
	return *out;
}

void engine_free_flat(rules_position *pos)
{
	free(pos);
}

size_t engine_no_continuations(const rules_position *pos, const rules_move *partial,
			       rules_move_list *out)
{
	(void)pos;
	(void)partial;
	(void)out;
	return 0;
}

size_t engine_text_out(const char *text, char *buf, size_t size)
{
	size_t len = strlen(text);

	if (!size)
		return 0;
	if (len >= size)
		len = size - 1;
	memcpy(buf, text, len);
	buf[len] = 0;
	return len;
}
