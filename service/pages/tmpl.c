/* tmpl.c - mustache-like templates whose every tag is escaped for the HTML context it stands in. */
#include "pages/tmpl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/limits.h"
#include "xalloc.h"

#define NAME_CAP 32      /* room for a tag or attribute name, with NUL */
#define NO_FILE SIZE_MAX

/* ---- errors and output buffer ---------------------------------------- */

static int fail(tmpl_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(tmpl_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;

		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return -1;
}

struct buf {
	char *p;
	size_t n, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->cap - b->n <= n) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap - b->n <= n)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* ---- character classes (ASCII only, so the locale cannot change them) - */

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* ---- embedded files ---------------------------------------------------- */

static size_t file_count(void)
{
	size_t n = 0;

	while (tmpl_files[n].name)
		n++;
	return n;
}

static size_t find_file(const char *name, size_t len)
{
	for (size_t i = 0; name && tmpl_files[i].name; i++)
		if (strlen(tmpl_files[i].name) == len &&
		    memcmp(tmpl_files[i].name, name, len) == 0)
			return i;
	return NO_FILE;
}

static bool is_html(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && strcmp(name + n - 5, ".html") == 0;
}

const char *tmpl_file_get(const char *name, size_t *len)
{
	size_t i = name ? find_file(name, strlen(name)) : NO_FILE;

	if (i == NO_FILE)
		return NULL;
	if (len)
		*len = tmpl_files[i].len;
	return tmpl_files[i].data;
}

/* ---- HTML tokenizer -----------------------------------------------------
 * A cut-down version of the HTML5 tokenizer states: just enough to know,
 * at each {{tag}}, whether the browser will be reading text, a quoted
 * attribute value (and which attribute), or something we refuse to put
 * data into. Where it simplifies, it does so towards refusing.
 */

enum hstate {
	H_DATA,
	H_RCDATA,              /* <textarea>, <title>: text, entities decoded */
	H_RAWTEXT,             /* <script>, <style>, ...: escaping cannot work */
	H_TAG_OPEN,
	H_END_TAG_OPEN,
	H_TAG_NAME,
	H_BEFORE_ATTR_NAME,
	H_ATTR_NAME,
	H_AFTER_ATTR_NAME,
	H_BEFORE_ATTR_VALUE,
	H_ATTR_VALUE_DQ,
	H_ATTR_VALUE_SQ,
	H_ATTR_VALUE_UNQ,
	H_AFTER_ATTR_VALUE,
	H_SELF_CLOSING,
	H_MARKUP_DECL,         /* after "<!" */
	H_MARKUP_DASH,         /* after "<!-" */
	H_BOGUS_COMMENT,       /* <!DOCTYPE ...>, <?...>, </ ...>: ends at '>' */
	H_COMMENT_START,
	H_COMMENT_START_DASH,
	H_COMMENT,
	H_COMMENT_END_DASH,
	H_COMMENT_END,
	H_COMMENT_END_BANG,
};

enum attr_kind {
	A_PLAIN,      /* text escaping is enough */
	A_URL,        /* the value is a URL: check the scheme, encode parts */
	A_FORBIDDEN,  /* the value is script or CSS: no tags at all */
};

struct html {
	enum hstate st;
	char tag[NAME_CAP];     /* lowercased; a longer name keeps counting */
	size_t taglen;          /* in taglen, so it never equals a short one */
	bool endtag;
	char attr[NAME_CAP];
	size_t attrlen;
	enum attr_kind ak;      /* of the attribute whose value we are in */
	bool at_start;          /* nothing is in that value yet */
	char raw[NAME_CAP];     /* element whose RCDATA/RAWTEXT we are in */
	size_t rawlen;
	size_t rawmatch;        /* how much of "</" raw we have just seen */
	bool script;            /* the RAWTEXT is a <script> */
	size_t cmatch;          /* how much of "<!--" we have just seen */
};

static void name_add(char *buf, size_t *len, char c)
{
	if (*len < NAME_CAP - 1)
		buf[*len] = lower(c);
	(*len)++;
}

static bool name_is(const char *buf, size_t len, const char *name)
{
	return strlen(name) == len && memcmp(buf, name, len) == 0;
}

static bool name_in(const char *buf, size_t len, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (name_is(buf, len, list[i]))
			return true;
	return false;
}

#define NAME_IN(buf, len, list) name_in(buf, len, list, sizeof list / sizeof list[0])

static void start_tag(struct html *h, bool end)
{
	h->taglen = 0;
	h->endtag = end;
	h->attrlen = 0;
}

static void emit_tag(struct html *h)
{
	/* Elements whose content the tokenizer does not parse as markup. */
	static const char *const rawtext[] = {
		"script", "style", "xmp", "iframe", "noembed", "noframes",
		"noscript", "plaintext",
	};
	static const char *const rcdata[] = { "textarea", "title" };

	h->st = H_DATA;
	if (h->endtag)
		return;
	if (NAME_IN(h->tag, h->taglen, rawtext))
		h->st = H_RAWTEXT;
	else if (NAME_IN(h->tag, h->taglen, rcdata))
		h->st = H_RCDATA;
	else
		return;
	memcpy(h->raw, h->tag, h->taglen);
	h->rawlen = h->taglen;
	h->rawmatch = 0;
	h->cmatch = 0;
	h->script = name_is(h->tag, h->taglen, "script");
}

static enum attr_kind attr_kind(const struct html *h)
{
	/* SVG animation can rewrite any attribute, href included. */
	static const char *const animation[] = {
		"animate", "animatemotion", "animatetransform", "set",
	};
	/* Values that are CSS or a whole document: entities are decoded
	 * before they are parsed, so escaping would not contain the data. */
	static const char *const code[] = { "style", "srcdoc" };
	static const char *const url[] = {
		"href", "src", "action", "formaction", "xlink:href", "poster",
		"cite", "data", "background", "codebase", "manifest",
	};

	if (NAME_IN(h->tag, h->taglen, animation) || NAME_IN(h->attr, h->attrlen, code))
		return A_FORBIDDEN;
	/* Event handlers (onclick=...) are script. */
	if (h->attrlen > 2 && h->attr[0] == 'o' && h->attr[1] == 'n' &&
	    !name_is(h->attr, h->attrlen, "open"))
		return A_FORBIDDEN;
	if (NAME_IN(h->attr, h->attrlen, url))
		return A_URL;
	return A_PLAIN;
}

static void begin_value(struct html *h)
{
	h->ak = attr_kind(h);
	h->at_start = true;
}

static bool html_feed(struct html *h, char c);

/* Inside RCDATA or RAWTEXT only "</name" followed by a delimiter ends it. */
static bool raw_feed(struct html *h, char c)
{
	size_t full = h->rawlen + 2;
	bool next;

	if (h->script) {
		/* "<!--" in a script enters the escaped states, where a
		 * "</script>" may no longer end it; rather than model that,
		 * refuse. */
		static const char open[] = "<!--";

		if (c == open[h->cmatch]) {
			if (++h->cmatch == 4)
				return false;
		} else {
			h->cmatch = c == '<';
		}
	}
	if (h->rawmatch == full && (is_ws(c) || c == '/' || c == '>')) {
		memcpy(h->tag, h->raw, h->rawlen);
		h->taglen = h->rawlen;
		h->endtag = true;
		h->attrlen = 0;
		h->rawmatch = 0;
		h->st = H_TAG_NAME;
		return html_feed(h, c);
	}
	if (h->rawmatch == 0)
		next = c == '<';
	else if (h->rawmatch == 1)
		next = c == '/';
	else if (h->rawmatch < full)
		next = lower(c) == h->raw[h->rawmatch - 2];
	else
		next = false;
	h->rawmatch = next ? h->rawmatch + 1 : c == '<';
	return true;
}

/* Advance by one character of template text. False: "<!--" in a script. */
static bool html_feed(struct html *h, char c)
{
	for (;;) {
		switch (h->st) {
		case H_DATA:
			if (c == '<')
				h->st = H_TAG_OPEN;
			return true;
		case H_RCDATA:
		case H_RAWTEXT:
			return raw_feed(h, c);
		case H_TAG_OPEN:
			if (c == '!') {
				h->st = H_MARKUP_DECL;
			} else if (c == '/') {
				h->st = H_END_TAG_OPEN;
			} else if (is_alpha(c)) {
				start_tag(h, false);
				name_add(h->tag, &h->taglen, c);
				h->st = H_TAG_NAME;
			} else {
				/* "<?" is a bogus comment; "< " is just text. */
				h->st = c == '?' ? H_BOGUS_COMMENT : H_DATA;
				continue;
			}
			return true;
		case H_END_TAG_OPEN:
			if (is_alpha(c)) {
				start_tag(h, true);
				name_add(h->tag, &h->taglen, c);
				h->st = H_TAG_NAME;
			} else if (c == '>') {
				h->st = H_DATA;
			} else {
				h->st = H_BOGUS_COMMENT;
				continue;
			}
			return true;
		case H_TAG_NAME:
			if (is_ws(c))
				h->st = H_BEFORE_ATTR_NAME;
			else if (c == '/')
				h->st = H_SELF_CLOSING;
			else if (c == '>')
				emit_tag(h);
			else
				name_add(h->tag, &h->taglen, c);
			return true;
		case H_BEFORE_ATTR_NAME:
			if (is_ws(c))
				return true;
			if (c == '/' || c == '>') {
				h->st = H_AFTER_ATTR_NAME;
				continue;
			}
			h->attrlen = 0;
			h->st = H_ATTR_NAME;
			if (c == '=') {
				/* A leading '=' is part of the name. */
				name_add(h->attr, &h->attrlen, c);
				return true;
			}
			continue;
		case H_ATTR_NAME:
			if (is_ws(c) || c == '/' || c == '>') {
				h->st = H_AFTER_ATTR_NAME;
				continue;
			}
			if (c == '=')
				h->st = H_BEFORE_ATTR_VALUE;
			else
				name_add(h->attr, &h->attrlen, c);
			return true;
		case H_AFTER_ATTR_NAME:
			if (is_ws(c))
				return true;
			if (c == '/') {
				h->st = H_SELF_CLOSING;
			} else if (c == '=') {
				h->st = H_BEFORE_ATTR_VALUE;
			} else if (c == '>') {
				emit_tag(h);
			} else {
				h->attrlen = 0;
				h->st = H_ATTR_NAME;
				continue;
			}
			return true;
		case H_BEFORE_ATTR_VALUE:
			if (is_ws(c))
				return true;
			if (c == '>') {
				emit_tag(h);
				return true;
			}
			begin_value(h);
			if (c == '"') {
				h->st = H_ATTR_VALUE_DQ;
				return true;
			}
			if (c == '\'') {
				h->st = H_ATTR_VALUE_SQ;
				return true;
			}
			h->st = H_ATTR_VALUE_UNQ;
			continue;
		case H_ATTR_VALUE_DQ:
		case H_ATTR_VALUE_SQ:
			if (c == (h->st == H_ATTR_VALUE_DQ ? '"' : '\''))
				h->st = H_AFTER_ATTR_VALUE;
			else
				h->at_start = false;
			return true;
		case H_ATTR_VALUE_UNQ:
			if (is_ws(c))
				h->st = H_BEFORE_ATTR_NAME;
			else if (c == '>')
				emit_tag(h);
			return true;
		case H_AFTER_ATTR_VALUE:
			if (is_ws(c)) {
				h->st = H_BEFORE_ATTR_NAME;
			} else if (c == '/') {
				h->st = H_SELF_CLOSING;
			} else if (c == '>') {
				emit_tag(h);
			} else {
				h->st = H_BEFORE_ATTR_NAME;
				continue;
			}
			return true;
		case H_SELF_CLOSING:
			if (c == '>') {
				/* "<script/>" still opens a script in HTML. */
				emit_tag(h);
				return true;
			}
			h->st = H_BEFORE_ATTR_NAME;
			continue;
		case H_MARKUP_DECL:
			if (c == '-') {
				h->st = H_MARKUP_DASH;
				return true;
			}
			h->st = H_BOGUS_COMMENT;
			continue;
		case H_MARKUP_DASH:
			if (c == '-') {
				h->st = H_COMMENT_START;
				return true;
			}
			h->st = H_BOGUS_COMMENT;
			continue;
		case H_BOGUS_COMMENT:
			if (c == '>')
				h->st = H_DATA;
			return true;
		case H_COMMENT_START:
		case H_COMMENT_START_DASH:
			/* "<!-->" and "<!--->" are complete comments. */
			if (c == '-') {
				h->st = h->st == H_COMMENT_START ? H_COMMENT_START_DASH : H_COMMENT_END;
			} else if (c == '>') {
				h->st = H_DATA;
			} else {
				h->st = H_COMMENT;
				continue;
			}
			return true;
		case H_COMMENT:
			if (c == '-')
				h->st = H_COMMENT_END_DASH;
			return true;
		case H_COMMENT_END_DASH:
			if (c != '-') {
				h->st = H_COMMENT;
				continue;
			}
			h->st = H_COMMENT_END;
			return true;
		case H_COMMENT_END:
			if (c == '>') {
				h->st = H_DATA;
			} else if (c == '!') {
				h->st = H_COMMENT_END_BANG;
			} else if (c != '-') {
				h->st = H_COMMENT;
				continue;
			}
			return true;
		case H_COMMENT_END_BANG:
			if (c == '-') {
				h->st = H_COMMENT_END_DASH;
			} else if (c == '>') {
				h->st = H_DATA;
			} else {
				h->st = H_COMMENT;
				continue;
			}
			return true;
		}
		return true;
	}
}

/* ---- parsed form ------------------------------------------------------- */

enum esc {
	ESC_HTML,       /* text or quoted attribute value */
	ESC_URL_START,  /* start of a URL attribute: check scheme, then ESC_HTML */
	ESC_URL_PART,   /* later in a URL attribute: percent-encode */
};

/* A dotted name; no segments means "." (the current context). */
struct path {
	char **seg;
	size_t n;
};

enum node_kind { N_TEXT, N_VAR, N_SECTION, N_INVERTED, N_PARTIAL };

struct node;

struct block {
	struct node *v;
	size_t n, cap;
};

struct node {
	enum node_kind kind;
	const char *text;   /* N_TEXT: a slice of the static file */
	size_t len;
	struct path path;   /* N_VAR, N_SECTION, N_INVERTED */
	enum esc esc;       /* N_VAR */
	struct block body;  /* N_SECTION, N_INVERTED */
	size_t file;        /* N_PARTIAL: index into tmpl_files */
};

static void free_block(struct block *b);

static void free_node(struct node *n)
{
	for (size_t i = 0; i < n->path.n; i++)
		free(n->path.seg[i]);
	free(n->path.seg);
	free_block(&n->body);
}

static void free_block(struct block *b)
{
	for (size_t i = 0; i < b->n; i++)
		free_node(&b->v[i]);
	free(b->v);
	b->v = NULL;
	b->n = b->cap = 0;
}

static void push_node(struct block *b, const struct node *n)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 8;
		b->v = xrealloc(b->v, b->cap * sizeof b->v[0]);
	}
	b->v[b->n++] = *n;
}

/* ---- parser ------------------------------------------------------------ */

struct parser {
	const char *name;
	const char *s;
	size_t len;
	size_t pos;
	struct html h;
	tmpl_error *err;
};

static int report(const struct parser *p, size_t at, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* An error at byte offset at, reported as file:line:column. */
static int report(const struct parser *p, size_t at, int code, const char *fmt, ...)
{
	char why[TMPL_MESSAGE_MAX];
	size_t line = 1, col = 1;
	va_list ap;

	for (size_t i = 0; i < at && i < p->len; i++) {
		col++;
		if (p->s[i] == '\n') {
			line++;
			col = 1;
		}
	}
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return fail(p->err, code, "%s:%zu:%zu: %s", p->name, line, col, why);
}

#define syntax(p, at, ...) report(p, at, TMPL_E_SYNTAX, __VA_ARGS__)

static int feed_text(struct parser *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (!html_feed(&p->h, p->s[i]))
			return syntax(p, i - 3, "\"<!--\" inside <script> is not supported");
	return 0;
}

/*
 * May a tag stand here? Returns 0 and sets *esc for a value printed here,
 * or reports why not at offset at (the tag's position).
 */
static int tag_allowed(const struct parser *p, size_t at, enum esc *esc)
{
	const struct html *h = &p->h;

	switch (h->st) {
	case H_DATA:
		*esc = ESC_HTML;
		return 0;
	case H_RCDATA:
		if (h->rawmatch)
			return syntax(p, at, "tag inside a closing </%.*s> tag",
				(int)h->rawlen, h->raw);
		*esc = ESC_HTML;
		return 0;
	case H_RAWTEXT:
		return syntax(p, at, "tag inside <%.*s>, where escaping cannot protect it",
			(int)h->rawlen, h->raw);
	case H_ATTR_VALUE_DQ:
	case H_ATTR_VALUE_SQ:
		if (h->ak == A_FORBIDDEN)
			return syntax(p, at, "tag in the value of %.*s on <%.*s>, which is code, not text",
				(int)(h->attrlen < NAME_CAP ? h->attrlen : NAME_CAP - 1), h->attr,
				(int)(h->taglen < NAME_CAP ? h->taglen : NAME_CAP - 1), h->tag);
		if (h->ak == A_URL)
			*esc = h->at_start ? ESC_URL_START : ESC_URL_PART;
		else
			*esc = ESC_HTML;
		return 0;
	case H_BEFORE_ATTR_VALUE:
	case H_ATTR_VALUE_UNQ:
		return syntax(p, at, "tag in an unquoted attribute value; quote the value");
	case H_COMMENT_START:
	case H_COMMENT_START_DASH:
	case H_COMMENT:
	case H_COMMENT_END_DASH:
	case H_COMMENT_END:
	case H_COMMENT_END_BANG:
		return syntax(p, at, "tag inside an HTML comment");
	case H_MARKUP_DECL:
	case H_MARKUP_DASH:
	case H_BOGUS_COMMENT:
		return syntax(p, at, "tag inside a <! or <? declaration");
	default:
		return syntax(p, at, "tag inside an HTML tag; only text and quoted attribute values may hold tags");
	}
}

/* Would output after a section have the same context however often it ran? */
static bool same_context(const struct html *a, const struct html *b)
{
	if (a->st != b->st)
		return false;
	switch (a->st) {
	case H_RCDATA:
		return a->rawlen == b->rawlen && memcmp(a->raw, b->raw, a->rawlen) == 0;
	case H_ATTR_VALUE_DQ:
	case H_ATTR_VALUE_SQ:
		/* at_start may differ; see the comment in parse_block. */
		return a->taglen == b->taglen && a->attrlen == b->attrlen &&
			memcmp(a->tag, b->tag, a->taglen < NAME_CAP ? a->taglen : NAME_CAP - 1) == 0 &&
			memcmp(a->attr, b->attr, a->attrlen < NAME_CAP ? a->attrlen : NAME_CAP - 1) == 0;
	default:
		return true;
	}
}

static const char *describe(const struct html *h)
{
	switch (h->st) {
	case H_DATA:
		return "text";
	case H_RCDATA:
	case H_RAWTEXT:
		return "the content of an unclosed element";
	case H_COMMENT_START:
	case H_COMMENT_START_DASH:
	case H_COMMENT:
	case H_COMMENT_END_DASH:
	case H_COMMENT_END:
	case H_COMMENT_END_BANG:
		return "an HTML comment";
	case H_ATTR_VALUE_DQ:
	case H_ATTR_VALUE_SQ:
		return "an attribute value";
	default:
		return "an HTML tag";
	}
}

static bool name_char(char c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '-';
}

/* Parse "a.b.c" or "." into out. */
static int parse_path(const struct parser *p, size_t at, const char *s, size_t n, struct path *out)
{
	out->seg = NULL;
	out->n = 0;
	if (n == 1 && s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!name_char(s[i]) && s[i] != '.')
			return syntax(p, at, "bad character in name \"%.*s\"", (int)n, s);
	for (size_t start = 0; start <= n;) {
		size_t end = start;

		while (end < n && s[end] != '.')
			end++;
		if (end == start) {
			for (size_t i = 0; i < out->n; i++)
				free(out->seg[i]);
			free(out->seg);
			out->seg = NULL;
			out->n = 0;
			return syntax(p, at, "empty part in name \"%.*s\"", (int)n, s);
		}
		out->seg = xrealloc(out->seg, (out->n + 1) * sizeof out->seg[0]);
		out->seg[out->n++] = xstrndup(s + start, end - start);
		start = end + 1;
	}
	return 0;
}

static size_t find(const char *s, size_t len, size_t from, const char *what)
{
	size_t wl = strlen(what);

	for (size_t i = from; i + wl <= len; i++)
		if (memcmp(s + i, what, wl) == 0)
			return i;
	return NO_FILE;
}

/*
 * Parse nodes into b until the end of the file (open == NULL) or the
 * {{/open}} that closes the section whose tag began at open_at.
 */
static int parse_block(struct parser *p, struct block *b, const char *open, size_t open_len,
	size_t open_at, int depth)
{
	struct html before = p->h;

	for (;;) {
		size_t t = find(p->s, p->len, p->pos, "{{");
		size_t end = t == NO_FILE ? p->len : t;

		if (feed_text(p, p->pos, end) < 0)
			return -1;
		if (end > p->pos)
			push_node(b, &(struct node){ .kind = N_TEXT, .text = p->s + p->pos, .len = end - p->pos });
		if (t == NO_FILE) {
			p->pos = p->len;
			if (open)
				return syntax(p, open_at, "{{#%.*s}} is never closed", (int)open_len, open);
			if (p->h.st != H_DATA)
				return syntax(p, p->len, "template ends inside %s", describe(&p->h));
			return 0;
		}

		size_t close = find(p->s, p->len, t + 2, "}}");

		if (close == NO_FILE)
			return syntax(p, t, "\"{{\" without \"}}\"");
		p->pos = close + 2;

		const char *in = p->s + t + 2;
		size_t n = close - (t + 2);
		char sigil = n ? in[0] : '\0';

		if (sigil == '!')
			continue;  /* a comment prints nothing, so it may stand anywhere */
		if (sigil == '{' || sigil == '&')
			return syntax(p, t, "unescaped output is not supported; use {{name}}");
		if (sigil == '#' || sigil == '^' || sigil == '/' || sigil == '>' || sigil == '=') {
			in++;
			n--;
		} else {
			sigil = '\0';
		}
		if (sigil == '=')
			return syntax(p, t, "changing delimiters is not supported");
		while (n && is_ws(in[0])) {
			in++;
			n--;
		}
		while (n && is_ws(in[n - 1]))
			n--;
		if (!n)
			return syntax(p, t, "empty tag");

		struct node node = { 0 };
		enum esc esc = ESC_HTML;

		if (sigil == '>') {
			size_t f = find_file(in, n);

			if (p->h.st != H_DATA)
				return syntax(p, t, "{{>%.*s}} may only stand in text", (int)n, in);
			if (f == NO_FILE || !is_html(tmpl_files[f].name))
				return report(p, t, TMPL_E_PARTIAL, "no HTML template named %.*s",
					(int)n, in);
			node.kind = N_PARTIAL;
			node.file = f;
			push_node(b, &node);
			continue;
		}
		if (tag_allowed(p, t, &esc) < 0)
			return -1;
		if (sigil == '/') {
			if (!open)
				return syntax(p, t, "{{/%.*s}} closes no section", (int)n, in);
			if (n != open_len || memcmp(in, open, n) != 0)
				return syntax(p, t, "{{/%.*s}} does not match {{#%.*s}}",
					(int)n, in, (int)open_len, open);
			/*
			 * A section may run any number of times, so the text
			 * after it must be in the same context either way. Only
			 * "at the start of a URL" may differ: later tags in the
			 * value are then percent-encoded, which is safe even at
			 * the start, and tags inside the body keep the scheme
			 * check, which is safe after other text.
			 */
			if (!same_context(&before, &p->h))
				return syntax(p, t, "{{/%.*s}} ends in %s but the section starts in %s",
					(int)n, in, describe(&p->h), describe(&before));
			return 0;
		}
		if (parse_path(p, t, in, n, &node.path) < 0)
			return -1;
		if (sigil == '\0') {
			node.kind = N_VAR;
			node.esc = esc;
			push_node(b, &node);
			/* Whatever it prints, the value is no longer empty. */
			p->h.at_start = false;
			continue;
		}
		node.kind = sigil == '#' ? N_SECTION : N_INVERTED;
		if (depth >= LIMIT_TEMPLATE_NESTING) {
			free_node(&node);
			return syntax(p, t, "sections nest too deeply");
		}
		if (parse_block(p, &node.body, in, n, t, depth + 1) < 0) {
			free_node(&node);
			return -1;
		}
		push_node(b, &node);
	}
}

/* ---- cache of parsed templates ----------------------------------------- */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct block **cache;   /* parallel to tmpl_files; NULL: not parsed */
static size_t cache_n;

/* The parsed template tmpl_files[i], parsing it on first use. */
static const struct block *get_template(size_t i, tmpl_error *err)
{
	struct block *b;

	pthread_mutex_lock(&cache_lock);
	if (!cache) {
		cache_n = file_count();
		cache = xcalloc(cache_n, sizeof cache[0]);
	}
	b = cache[i];
	if (!b) {
		struct parser p = {
			.name = tmpl_files[i].name,
			.s = tmpl_files[i].data,
			.len = tmpl_files[i].len,
			.err = err,
		};

		b = xcalloc(1, sizeof *b);
		if (parse_block(&p, b, NULL, 0, 0, 0) < 0) {
			/* Not cached: the error is reported again each time. */
			free_block(b);
			free(b);
			b = NULL;
		} else {
			cache[i] = b;
		}
	}
	pthread_mutex_unlock(&cache_lock);
	return b;
}

void tmpl_cleanup(void)
{
	pthread_mutex_lock(&cache_lock);
	for (size_t i = 0; i < cache_n; i++) {
		if (cache[i]) {
			free_block(cache[i]);
			free(cache[i]);
		}
	}
	free(cache);
	cache = NULL;
	cache_n = 0;
	pthread_mutex_unlock(&cache_lock);
}

int tmpl_check(tmpl_error *err)
{
	for (size_t i = 0; tmpl_files[i].name; i++) {
		const struct tmpl_file *f = &tmpl_files[i];

		if (is_html(f->name)) {
			if (!get_template(i, err))
				return -1;
		} else if (find(f->data, f->len, 0, "{{") != NO_FILE) {
			struct parser p = { .name = f->name, .s = f->data, .len = f->len, .err = err };

			return syntax(&p, find(f->data, f->len, 0, "{{"),
				"tags are only allowed in .html templates");
		}
	}
	return 0;
}

/* ---- rendering --------------------------------------------------------- */

struct ctx {
	json_t *v;
	const struct ctx *up;
};

/* The first segment is looked up from the innermost context outwards. */
static json_t *lookup(const struct path *path, const struct ctx *c)
{
	json_t *v = NULL;

	if (path->n == 0)
		return c->v;
	for (; c && !v; c = c->up)
		if (json_is_object(c->v))
			v = json_object_get(c->v, path->seg[0]);
	for (size_t i = 1; v && i < path->n; i++)
		v = json_is_object(v) ? json_object_get(v, path->seg[i]) : NULL;
	return v;
}

static bool truthy(const json_t *v)
{
	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_OBJECT:
	case JSON_TRUE:
		return true;
	case JSON_ARRAY:
		return json_array_size(v) > 0;
	case JSON_STRING:
		return json_string_length(v) > 0;
	case JSON_INTEGER:
		return json_integer_value(v) != 0;
	case JSON_REAL:
		return json_real_value(v) != 0.0;
	default:
		return false;
	}
}

static void escape_html(struct buf *out, const char *s, size_t n)
{
	size_t done = 0;

	for (size_t i = 0; i < n; i++) {
		const char *rep;

		switch (s[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		case '\0': rep = "\xEF\xBF\xBD"; break;  /* U+FFFD, as browsers do */
		default: continue;
		}
		buf_add(out, s + done, i - done);
		buf_puts(out, rep);
		done = i + 1;
	}
	buf_add(out, s + done, n - done);
}

static void percent_encode(struct buf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (is_alpha((char)c) || is_digit((char)c) || c == '-' || c == '.' || c == '_' || c == '~') {
			buf_add(out, s + i, 1);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };

			buf_add(out, e, 3);
		}
	}
}

/*
 * Is s a URL that cannot run script: relative, or http, https or mailto?
 * Mirrors what browsers ignore: leading spaces and control characters,
 * and tabs and newlines anywhere. Anything odd before a ':' is refused.
 */
static bool url_safe(const char *s, size_t n)
{
	static const char *const allowed[] = { "http", "https", "mailto" };
	char scheme[8];
	size_t i = 0, sl = 0;

	while (i < n && (unsigned char)s[i] <= ' ')
		i++;
	for (; i < n; i++) {
		char c = s[i];

		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c == '/' || c == '?' || c == '#')
			return true;
		if (c == ':')
			break;
		if (sl < sizeof scheme)
			scheme[sl] = lower(c);
		sl++;
	}
	if (i == n)
		return true;  /* no ':' at all: a relative path */
	return sl <= sizeof scheme && NAME_IN(scheme, sl, allowed);
}

/* The shortest text that reads back as the same double. */
static void format_real(char *out, size_t size, double d)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(out, size, "%.*g", prec, d);
		if (strtod(out, NULL) == d)
			return;
	}
}

static void print_value(struct buf *out, const json_t *v, enum esc esc)
{
	char num[40];
	const char *s;
	size_t n;

	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_STRING:
		s = json_string_value(v);
		n = json_string_length(v);
		break;
	case JSON_INTEGER:
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		s = num;
		n = strlen(s);
		break;
	case JSON_REAL:
		format_real(num, sizeof num, json_real_value(v));
		s = num;
		n = strlen(s);
		break;
	case JSON_TRUE:
		s = "true";
		n = 4;
		break;
	case JSON_FALSE:
		s = "false";
		n = 5;
		break;
	default:
		return;  /* null, missing, arrays and objects print nothing */
	}
	switch (esc) {
	case ESC_URL_START:
		if (!url_safe(s, n)) {
			s = "#unsafe";
			n = strlen(s);
		}
		escape_html(out, s, n);
		break;
	case ESC_URL_PART:
		percent_encode(out, s, n);
		break;
	case ESC_HTML:
		escape_html(out, s, n);
		break;
	}
}

static int render_block(struct buf *out, const struct block *b, const struct ctx *c,
	int depth, tmpl_error *err)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct node *n = &b->v[i];
		json_t *v;

		/* Sections nested over the same list multiply: stop before memory runs out. */
		if (out->n > LIMIT_PAGE_SIZE)
			return fail(err, TMPL_E_SIZE, "the page would be larger than %d bytes",
				    LIMIT_PAGE_SIZE);

		switch (n->kind) {
		case N_TEXT:
			buf_add(out, n->text, n->len);
			break;
		case N_VAR:
			print_value(out, lookup(&n->path, c), n->esc);
			break;
		case N_SECTION:
			v = lookup(&n->path, c);
			if (json_is_array(v)) {
				for (size_t k = 0; k < json_array_size(v); k++) {
					struct ctx in = { json_array_get(v, k), c };

					if (render_block(out, &n->body, &in, depth, err) < 0)
						return -1;
				}
			} else if (truthy(v)) {
				struct ctx in = { v, c };

				if (render_block(out, &n->body, &in, depth, err) < 0)
					return -1;
			}
			break;
		case N_INVERTED:
			if (!truthy(lookup(&n->path, c)) &&
			    render_block(out, &n->body, c, depth, err) < 0)
				return -1;
			break;
		case N_PARTIAL: {
			const struct block *t;

			if (depth >= LIMIT_TEMPLATE_PARTIALS)
				return fail(err, TMPL_E_DEPTH, "%s: partials nest more than %d deep",
					tmpl_files[n->file].name, LIMIT_TEMPLATE_PARTIALS);
			t = get_template(n->file, err);
			if (!t || render_block(out, t, c, depth + 1, err) < 0)
				return -1;
			break;
		}
		}
	}
	return 0;
}

char *tmpl_render(const char *name, json_t *data, tmpl_error *err)
{
	size_t i = name ? find_file(name, strlen(name)) : NO_FILE;
	const struct block *b;
	struct ctx root = { data, NULL };
	struct buf out = { 0 };

	if (i == NO_FILE) {
		fail(err, TMPL_E_UNKNOWN, "no template named %s", name ? name : "(null)");
		return NULL;
	}
	if (!is_html(name)) {
		fail(err, TMPL_E_UNKNOWN, "%s is a static file, not an HTML template", name);
		return NULL;
	}
	b = get_template(i, err);
	if (!b)
		return NULL;
	if (render_block(&out, b, &root, 0, err) < 0) {
		free(out.p);
		return NULL;
	}
	if (err) {
		err->code = TMPL_OK;
		err->message[0] = '\0';
	}
	return out.p ? out.p : xstrdup("");
}
