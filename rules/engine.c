/* engine.c - the scaffolding every game's engine shares (see engine.h). */
#include "engine.h"
#include "xalloc.h"

#include <assert.h>
#include <stdarg.h>
#include <stddef.h>
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

int engine_format_open(const rules_move *move, void *m, size_t m_size, char *buf, size_t size)
{
	if (!size)
		return -1;
	buf[0] = 0;
	engine_unpack(move, m, m_size);
	return 0;
}

void engine_unpack(const rules_move *move, void *m, size_t size)
{
	assert(size <= sizeof move->raw);
	memcpy(m, move->raw, size);
}

int engine_parse(const engine_reader *r, const rules_position *pos, int seat, const char *text,
		 rules_move *move, rules_error *err)
{
	_Alignas(max_align_t) unsigned char s[ENGINE_SCAN_BYTES], m[RULES_MOVE_BYTES];
	int rc, anytime;

	assert(r->scan_size <= sizeof s && r->move_size <= sizeof m);
	memset(move, 0, sizeof *move);
	move->seat = seat;
	if ((rc = r->scan(text, s, err)))
		return rc;
	anytime = r->anytime && r->anytime(s);
	move->anytime = anytime;
	if (r->check_turn && (rc = r->check_turn(pos, seat, err)))
		return rc;
	memset(m, 0, r->move_size);
	rc = r->check(pos, seat, s, m, err);
	if (rc && rc != RULES_E_INCOMPLETE)
		return rc;
	engine_pack(move, m, r->move_size, seat);
	move->partial = rc == RULES_E_INCOMPLETE;
	move->anytime = anytime;
	return rc;
}

int engine_recheck(const engine_reader *r, const rules_position *pos, const rules_move *move,
		   void *m, rules_error *err)
{
	_Alignas(max_align_t) unsigned char s[ENGINE_SCAN_BYTES], canon[RULES_MOVE_BYTES];
	int rc;

	assert(r->scan_size <= sizeof s && r->move_size <= sizeof canon);
	if (move->partial)
		return rules_fail(err, RULES_E_INCOMPLETE, "a partial move cannot be applied");
	engine_unpack(move, m, r->move_size);
	if (r->unscan(m, s))
		return rules_fail(err, RULES_E_ILLEGAL, "malformed move");
	memset(canon, 0, r->move_size);
	if ((rc = r->check(pos, move->seat, s, canon, err)))
		return rc;
	if (memcmp(canon, m, r->move_size) != 0)
		return rules_fail(err, RULES_E_ILLEGAL, "malformed move");
	return 0;
}

int engine_gesture_open(const engine_reader *r, const rules_move *move, void *m,
			rules_gesture *out)
{
	_Alignas(max_align_t) unsigned char s[ENGINE_SCAN_BYTES];

	assert(r->scan_size <= sizeof s);
	memset(out, 0, sizeof *out);
	engine_unpack(move, m, r->move_size);
	return r->unscan(m, s);
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

const char *engine_position_body(const char *text, const char *tag, const char *a_title,
				 rules_error *err)
{
	if (!text || strncmp(text, tag, strlen(tag)) != 0) {
		rules_fail(err, RULES_E_DATA, "not %s position", a_title);
		return NULL;
	}
	return text + strlen(tag);
}

int engine_seat_of_letter(const char *letters, char ch)
{
	const char *p = ch ? strchr(letters, ch) : NULL;

	return p ? (int)(p - letters) : -1;
}

int engine_read_seat_field(const char **pp, const char *letters, int *seat)
{
	const char *p = *pp;

	if (*p == '-')
		*seat = -1;
	else if ((*seat = engine_seat_of_letter(letters, *p)) < 0)
		return -1;
	if (*++p != ':')
		return -1;
	*pp = p + 1;
	return 0;
}

int engine_read_seat_set(const char **pp, const char *letters, unsigned *mask)
{
	const char *p = *pp;
	int seat, last = -1;

	*mask = 0;
	while ((seat = engine_seat_of_letter(letters, *p)) >= 0) {
		if (seat <= last)
			return -1;
		last = seat;
		*mask |= 1u << seat;
		p++;
	}
	*pp = p;
	return 0;
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
