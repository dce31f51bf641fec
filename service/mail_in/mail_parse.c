/* mail_parse.c - incoming reply mails: GMime does the MIME work, this file picks the player's line. */
#include "mail_in/mail_parse.h"

#include <gmime/gmime.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xalloc.h"

#define NELEM(a) (sizeof (a) / sizeof *(a))

/* Parser options of our own, so the fallback charsets for undeclared 8-bit
 * text are known: windows-1252 covers what old Western clients send. */
static GMimeParserOptions *parse_opts;

/* ---- growable string ---- */

struct sbuf {
	char *p;
	size_t n, cap;
};

static void sb_grow(struct sbuf *b, size_t more)
{
	if (b->n + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->n + more + 1)
		cap *= 2;
	b->p = xrealloc(b->p, cap);
	b->cap = cap;
}

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	sb_grow(b, n);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void sb_putc(struct sbuf *b, char c) { sb_put(b, &c, 1); }
static void sb_puts(struct sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

/* The string built so far (never NULL); the buffer is handed over. */
static char *sb_take(struct sbuf *b)
{
	if (!b->p)
		return xstrdup("");
	char *p = b->p;
	b->p = NULL;
	b->n = b->cap = 0;
	return p;
}

/* c as UTF-8 into u; returns the length. */
static size_t utf8_encode(uint32_t c, char u[4])
{
	size_t n;

	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	return n;
}

/* ---- white space as mail clients produce it ---- */

/* Length of a white-space character at s (0 if none); *drop is set for
 * zero-width ones, which vanish rather than become a space. HTML mail and
 * phones put NBSPs, BOMs and zero-width joiners where people see nothing. */
static size_t uspace(const unsigned char *s, int *drop)
{
	*drop = 0;
	switch (s[0]) {
	case ' ': case '\t': case '\r': case '\v': case '\f':
		return 1;
	case 0xc2:
		if (s[1] == 0xa0)
			return 2;
		if (s[1] == 0xad) { /* soft hyphen */
			*drop = 1;
			return 2;
		}
		return 0;
	case 0xe1:
		return s[1] == 0x9a && s[2] == 0x80 ? 3 : 0;
	case 0xe2:
		if (s[1] == 0x80) {
			if (s[2] >= 0x80 && s[2] <= 0x8a)
				return 3;
			if (s[2] >= 0x8b && s[2] <= 0x8f) {
				*drop = 1;
				return 3;
			}
			if (s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf)
				return 3;
			return 0;
		}
		if (s[1] == 0x81) {
			if (s[2] == 0x9f)
				return 3;
			if (s[2] == 0xa0) {
				*drop = 1;
				return 3;
			}
		}
		return 0;
	case 0xe3:
		return s[1] == 0x80 && s[2] == 0x80 ? 3 : 0;
	case 0xef:
		if (s[1] == 0xbb && s[2] == 0xbf) {
			*drop = 1;
			return 3;
		}
		return 0;
	default:
		return 0;
	}
}

/* A copy of text with every white-space character made ' ', zero-width ones
 * dropped, and each line trimmed and NUL-terminated in place of its '\n'.
 * *lines gets the start of each line, *nlines their count. */
static char *split_lines(const char *text, char ***lines, size_t *nlines)
{
	size_t len = strlen(text), count = 1;
	char *buf = xmalloc(len + 1);
	const unsigned char *s = (const unsigned char *)text;
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		int drop;
		size_t w = uspace(s + i, &drop);
		if (w) {
			if (!drop)
				buf[o++] = ' ';
			i += w;
			continue;
		}
		if (s[i] == '\n')
			count++;
		buf[o++] = (char)s[i++];
	}
	buf[o] = '\0';

	char **v = xmalloc(count * sizeof *v);
	size_t n = 0;
	char *p = buf;
	for (;;) {
		char *nl = strchr(p, '\n');
		char *end = nl ? nl : p + strlen(p);
		while (end > p && end[-1] == ' ')
			end--;
		*end = '\0';
		while (*p == ' ')
			p++;
		v[n++] = p;
		if (!nl)
			break;
		p = nl + 1;
	}
	*lines = v;
	*nlines = n;
	return buf;
}

/* ---- recognising the parts of a reply that are not the player's ---- */

static int prefix_ci(const char *s, const char *pre)
{
	return strncasecmp(s, pre, strlen(pre)) == 0;
}

static int suffix_ci(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcasecmp(s + n - m, suf) == 0;
}

static int all_of(const char *s, char c)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s != c)
			return 0;
	return 1;
}

/* "-- " signatures, "-----Original Message-----", Gmail's "---------- Forwarded
 * message ---------", Outlook's row of underscores: nothing after is the reply. */
static int is_separator(const char *s)
{
	size_t n = strlen(s);

	if (all_of(s, '-') && n >= 2)
		return 1;
	if (all_of(s, '_') && n >= 5)
		return 1;
	if (n >= 8 && strncmp(s, "---", 3) == 0 && strcmp(s + n - 3, "---") == 0)
		return 1;
	return 0;
}

static const char *const stop_prefixes[] = {
	"Begin forwarded message:",
	"Anfang der weitergeleiteten Nachricht:",
	"Début du message réexpédié :",
	/* phone signatures have no "-- " before them */
	"Sent from my ", "Sent from Mail for ", "Sent from Outlook", "Get Outlook for ",
	"Envoyé de mon ", "Von meinem ", "Enviado desde mi ", "Inviato da ",
};

static int is_stop_line(const char *s)
{
	if (is_separator(s))
		return 1;
	for (size_t i = 0; i < NELEM(stop_prefixes); i++)
		if (prefix_ci(s, stop_prefixes[i]))
			return 1;
	return 0;
}

/* s starts with one of labels followed by ':' (spaces before it for French,
 * '*' around it where Gmail turned Outlook's bold into text). */
static int header_label(const char *s, const char *const *labels, size_t nlabels)
{
	while (*s == '*')
		s++;
	for (size_t i = 0; i < nlabels; i++) {
		size_t m = strlen(labels[i]);
		if (strncasecmp(s, labels[i], m) != 0)
			continue;
		const char *t = s + m;
		while (*t == ' ')
			t++;
		if (*t == '*')
			t++;
		if (*t == ':')
			return 1;
	}
	return 0;
}

static const char *const from_labels[] = {
	"From", "De", "Von", "Van", "Da", "Från", "Fra", "Od", "От", "Lähettäjä",
};
static const char *const next_labels[] = {
	"Sent", "Date", "To", "Cc", "Subject", "Envoyé", "Gesendet", "Datum",
	"Enviado", "Inviato", "Verzonden", "Skickat", "Sendt", "Отправлено",
	"Data", "Fecha", "Objet", "Betreff", "À", "An", "Para", "Aan", "Till",
	"Lähetetty",
};

/* Line i opens a quoted header block: "From: ..." and then "Sent: ..." etc. */
static int is_header_block(char **l, size_t i, size_t n)
{
	if (!header_label(l[i], from_labels, NELEM(from_labels)))
		return 0;
	size_t j = i + 1;
	while (j < n && !*l[j])
		j++;
	return j < n && header_label(l[j], next_labels, NELEM(next_labels));
}

static const char *const attrib_endings[] = {
	"wrote:", "wrote :", "writes:", "écrit :", "écrit:", "schrieb:",
	"escribió:", "ha scritto:", "schreef:", "escreveu:", "skrev:",
	"kirjoitti:", "napisał:", "napsal:", "написал:", "написала:",
	"написал(а):", "пишет:", "yazdı:", "写道：", "寫道：", "写道:",
};

static const char *const attrib_openers[] = {
	"On ", "Le ", "Am ", "El ", "Il ", "Op ", "Em ", "Den ", "Dne ", "W dniu ",
};

/* Length of the attribution ending s ends with ("wrote:"), 0 if none. */
static size_t ends_attribution(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < NELEM(attrib_endings); i++)
		if (suffix_ci(s, attrib_endings[i]))
			return strlen(attrib_endings[i]);
	/* "Am ... schrieb Rookery <play@example.org>:", Japanese Gmail's
	 * "2026年11月22日(日) 10:01 Rookery <play@example.org>:" */
	if (n >= 2 && strcmp(s + n - 2, ">:") == 0 && strchr(s, '@'))
		return 2;
	return 0;
}

static int opens_attribution(const char *s)
{
	for (size_t i = 0; i < NELEM(attrib_openers); i++)
		if (strncmp(s, attrib_openers[i], strlen(attrib_openers[i])) == 0)
			return 1;
	return 0;
}

/* If an attribution starts at line i, the index just past it, else 0. A
 * wrapped one needs the first half to look like an opener ("On ...") or the
 * second half to be no more than the ending ("wrote:", "a écrit :"), so that
 * a reply line right above a complete "Rookery wrote:" is not swallowed. */
static size_t attribution_end(char **l, size_t i, size_t n)
{
	if (ends_attribution(l[i]))
		return i + 1;
	if (i + 1 < n && *l[i + 1] && !opens_attribution(l[i + 1])) {
		size_t end = ends_attribution(l[i + 1]);
		if (end && (opens_attribution(l[i]) || strlen(l[i + 1]) <= end + 2))
			return i + 2;
	}
	return 0;
}

/* The index of the first line of the user's own text in l[0..n), or n when there is none. */
static size_t first_own_line(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *s = l[i];
		if (!*s || *s == '>')
			continue;
		if (is_stop_line(s) || is_header_block(l, i, n))
			break;
		size_t end = attribution_end(l, i, n);
		if (end) {
			/* skipped only when quoted text follows: bottom-posting */
			size_t k = end;
			while (k < n && !*l[k])
				k++;
			if (k < n && *l[k] == '>') {
				i = k - 1;
				continue;
			}
			break;
		}
		return i;
	}
	return n;
}

/* The reply's first own line and the words after it (either out may be NULL), from one split of body. */
static void reply_lines(const char *body, char **first, char **words)
{
	char **l;
	size_t n, i, end;
	struct sbuf out = {0};

	if (first)
		*first = NULL;
	if (words)
		*words = NULL;
	if (!body)
		return;
	char *buf = split_lines(body, &l, &n);
	i = first_own_line(l, n);
	if (first && i < n)
		*first = xstrdup(l[i]);
	if (words) {
		/* Up to the first line that is not the player's own: a quote, its attribution, a signature. */
		i += i < n;
		for (end = i; end < n; end++)
			if (*l[end] == '>' || is_stop_line(l[end]) || is_header_block(l, end, n) ||
			    attribution_end(l, end, n))
				break;
		while (end > i && !*l[end - 1])
			end--;
		for (size_t k = i; k < end; k++) {
			/* One blank line between paragraphs, however many the mail had. */
			if (!*l[k] && !*l[k - 1])
				continue;
			if (k > i)
				sb_putc(&out, '\n');
			sb_puts(&out, l[k]);
		}
		if (i < end)
			*words = sb_take(&out);
	}
	free(l);
	free(buf);
}

char *mail_first_line(const char *body)
{
	char *first;

	reply_lines(body, &first, NULL);
	return first;
}

char *mail_reply_words(const char *body)
{
	char *words;

	reply_lines(body, NULL, &words);
	return words;
}

/* ---- HTML to text ---- */

struct html_elem {
	char name[12];
	unsigned char quote, pre;
};

struct html {
	struct sbuf out;
	struct html_elem *stack;
	size_t depth, cap;
	int quote;        /* open quoting elements */
	int rest_quoted;  /* Outlook's reply header seen: the rest is the original */
	int pre;          /* open <pre> elements */
	int line_start;   /* nothing written on the current line yet */
	int space;        /* collapsed white space waiting before the next word */
	int in_head;
};

static int html_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

static void html_break(struct html *h)
{
	if (!h->line_start)
		sb_putc(&h->out, '\n');
	h->line_start = 1;
	h->space = 0;
}

/* <br>: a line break even on an empty line, as the reader sees one. */
static void html_newline(struct html *h)
{
	sb_putc(&h->out, '\n');
	h->line_start = 1;
	h->space = 0;
}

static void html_byte(struct html *h, int c)
{
	if (h->in_head)
		return;
	if (h->pre && c == '\n') {
		/* keep empty lines of quoted preformatted text quoted */
		if (h->line_start)
			for (int i = 0; i < h->quote + h->rest_quoted; i++)
				sb_putc(&h->out, '>');
		sb_putc(&h->out, '\n');
		h->line_start = 1;
		return;
	}
	if (html_space(c) && !h->pre) {
		if (!h->line_start)
			h->space = 1;
		return;
	}
	if (c == '\r')
		return;
	if (h->line_start) {
		for (int i = 0; i < h->quote + h->rest_quoted; i++)
			sb_puts(&h->out, "> ");
		h->line_start = 0;
	} else if (h->space) {
		sb_putc(&h->out, ' ');
	}
	h->space = 0;
	sb_putc(&h->out, (char)c);
}

static void html_codepoint(struct html *h, uint32_t c)
{
	char u[4];
	size_t n = utf8_encode(c, u);

	for (size_t i = 0; i < n; i++)
		html_byte(h, (unsigned char)u[i]);
}

static const struct {
	const char *name;
	uint32_t c;
} entities[] = {
	{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''},
	{"nbsp", 0xa0}, {"shy", 0xad}, {"ensp", 0x2002}, {"emsp", 0x2003},
	{"thinsp", 0x2009}, {"zwnj", 0x200c}, {"zwj", 0x200d},
	{"ndash", 0x2013}, {"mdash", 0x2014}, {"hellip", 0x2026},
	{"lsquo", 0x2018}, {"rsquo", 0x2019}, {"ldquo", 0x201c}, {"rdquo", 0x201d},
	{"laquo", 0xab}, {"raquo", 0xbb}, {"middot", 0xb7}, {"bull", 0x2022},
	{"times", 0xd7}, {"copy", 0xa9}, {"reg", 0xae}, {"trade", 0x2122},
	{"euro", 0x20ac}, {"rarr", 0x2192}, {"larr", 0x2190},
	{"eacute", 0xe9}, {"egrave", 0xe8}, {"ecirc", 0xea}, {"Eacute", 0xc9},
	{"agrave", 0xe0}, {"aacute", 0xe1}, {"acirc", 0xe2}, {"ccedil", 0xe7},
	{"auml", 0xe4}, {"ouml", 0xf6}, {"uuml", 0xfc}, {"Auml", 0xc4},
	{"Ouml", 0xd6}, {"Uuml", 0xdc}, {"szlig", 0xdf}, {"ntilde", 0xf1},
	{"iacute", 0xed}, {"oacute", 0xf3}, {"uacute", 0xfa}, {"oslash", 0xf8},
	{"aring", 0xe5},
};

/* Decode the entity at s (just past '&'); returns the bytes consumed after
 * '&', 0 when it is not one (the '&' is then literal). */
static size_t html_entity(const char *s, uint32_t *out)
{
	size_t i = 0;

	if (s[0] == '#') {
		uint32_t c = 0;
		int hex = s[1] == 'x' || s[1] == 'X', digits = 0;
		i = hex ? 2 : 1;
		for (;; i++) {
			int d;
			if (s[i] >= '0' && s[i] <= '9')
				d = s[i] - '0';
			else if (hex && s[i] >= 'a' && s[i] <= 'f')
				d = s[i] - 'a' + 10;
			else if (hex && s[i] >= 'A' && s[i] <= 'F')
				d = s[i] - 'A' + 10;
			else
				break;
			if (c <= 0x10ffff)
				c = c * (hex ? 16 : 10) + (uint32_t)d;
			digits++;
		}
		if (!digits)
			return 0;
		if (s[i] == ';')
			i++;
		/* what browsers show for the impossible ones */
		if (c == 0 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) ||
		    (c < 0x20 && !html_space((int)c)) || (c >= 0x7f && c < 0xa0))
			c = 0xfffd;
		*out = c;
		return i;
	}
	while (i < 10 && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
	                  (s[i] >= '0' && s[i] <= '9')))
		i++;
	for (size_t k = 0; k < NELEM(entities); k++) {
		if (strlen(entities[k].name) != i || strncmp(s, entities[k].name, i) != 0)
			continue;
		if (s[i] == ';') {
			*out = entities[k].c;
			return i + 1;
		}
		/* the old ones are honoured without ';', as browsers do */
		if (k < 6) {
			*out = entities[k].c;
			return i;
		}
	}
	return 0;
}

struct html_attrs {
	const char *cls, *id, *style;
	size_t ncls, nid, nstyle;
};

static int name_is(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return 1;
	return 0;
}

static const char *const block_elems[] = {
	"p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
	"ul", "ol", "dl", "dt", "dd", "table", "pre", "address", "section",
	"article", "header", "footer", "center", "form", "fieldset", "nav",
	"aside", "main", "figure", "caption", "body",
};
static const char *const void_elems[] = {
	"img", "meta", "link", "input", "wbr", "col", "area", "base", "param",
	"source", "track", "embed", "hr", "br",
};
/* whose content is not shown, and may hold '<' that is not a tag */
static const char *const raw_elems[] = {
	"script", "style", "title", "template", "textarea", "xml",
};
static const char *const quote_classes[] = {
	"gmail_quote", "moz-cite-prefix", "yahoo_quoted", "protonmail_quote",
};

/* The class attribute holds one of quote_classes (Outlook prefixes "x_"
 * to the classes of mail it quotes). */
static int quote_class(const char *v, size_t n)
{
	size_t i = 0;

	while (i < n) {
		while (i < n && html_space(v[i]))
			i++;
		size_t start = i;
		while (i < n && !html_space(v[i]))
			i++;
		const char *t = v + start;
		size_t tn = i - start;
		if (tn > 2 && strncmp(t, "x_", 2) == 0) {
			t += 2;
			tn -= 2;
		}
		for (size_t k = 0; k < NELEM(quote_classes); k++)
			if (tn == strlen(quote_classes[k]) && strncasecmp(t, quote_classes[k], tn) == 0)
				return 1;
	}
	return 0;
}

static int contains_ci(const char *v, size_t n, const char *needle)
{
	size_t m = strlen(needle);
	for (size_t i = 0; i + m <= n; i++)
		if (strncasecmp(v + i, needle, m) == 0)
			return 1;
	return 0;
}

/* Outlook's reply header: the div with id divRplyFwdMsg, the empty
 * appendonsend div before it, or Word's "border:none;border-top:solid" div. */
static int outlook_marker(const char *name, const struct html_attrs *a)
{
	if (a->id && (contains_ci(a->id, a->nid, "divRplyFwdMsg") || contains_ci(a->id, a->nid, "appendonsend")))
		return 1;
	if (strcmp(name, "div") != 0 || !a->style)
		return 0;
	char style[256];
	size_t o = 0;
	for (size_t i = 0; i < a->nstyle && o < sizeof style - 1; i++)
		if (!html_space(a->style[i]))
			style[o++] = a->style[i];
	return contains_ci(style, o, "border-top:solid") ||
	       (contains_ci(style, o, "border:none") && contains_ci(style, o, "border-top:"));
}

static void html_push(struct html *h, const char *name, int quote, int pre)
{
	if (h->depth == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 32;
		h->stack = xrealloc(h->stack, h->cap * sizeof *h->stack);
	}
	struct html_elem *e = &h->stack[h->depth++];
	snprintf(e->name, sizeof e->name, "%s", name);
	e->quote = (unsigned char)quote;
	e->pre = (unsigned char)pre;
	h->quote += quote;
	h->pre += pre;
}

/* Close the nearest open name; only the top few are searched, as real mail
 * mismatches are shallow and hostile mail must not make this quadratic. */
static void html_pop(struct html *h, const char *name)
{
	size_t lim = h->depth > LIMIT_MAIL_HTML_CLOSE_SEARCH ? h->depth - LIMIT_MAIL_HTML_CLOSE_SEARCH : 0;
	for (size_t i = h->depth; i > lim; i--) {
		if (strcmp(h->stack[i - 1].name, name) != 0)
			continue;
		while (h->depth >= i) {
			struct html_elem *e = &h->stack[--h->depth];
			h->quote -= e->quote;
			h->pre -= e->pre;
		}
		return;
	}
}

/* Skip past the end of a raw element's content ("</name ...>"); returns the
 * position after it, or the end of the input. */
static const char *skip_raw(const char *p, const char *name)
{
	size_t m = strlen(name);
	for (; *p; p++)
		if (p[0] == '<' && p[1] == '/' && strncasecmp(p + 2, name, m) == 0) {
			const char *e = strchr(p, '>');
			return e ? e + 1 : p + strlen(p);
		}
	return p;
}

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* A tag starting at p ('<'); returns where parsing goes on. */
static const char *html_tag(struct html *h, const char *p)
{
	int closing = p[1] == '/';
	const char *s = p + 1 + closing;
	char name[12];
	size_t nn = 0;
	struct html_attrs a = {0};
	int self_closing = 0;

	while (is_alpha(*s) || (*s >= '0' && *s <= '9') || *s == ':' || *s == '-' || *s == '_') {
		if (nn < sizeof name - 1)
			name[nn++] = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
		s++;
	}
	name[nn] = '\0';

	/* attributes, with quoted values that may hold '>' */
	while (*s && *s != '>') {
		if (html_space(*s) || *s == '/') {
			self_closing = *s == '/';
			s++;
			continue;
		}
		const char *an = s;
		while (*s && !html_space(*s) && *s != '=' && *s != '>' && *s != '/')
			s++;
		size_t anl = (size_t)(s - an);
		if (!anl) {
			s++;
			continue;
		}
		self_closing = 0;
		while (html_space(*s))
			s++;
		if (*s != '=')
			continue;
		s++;
		while (html_space(*s))
			s++;
		const char *v = s;
		size_t vl;
		if (*s == '"' || *s == '\'') {
			char q = *s++;
			v = s;
			while (*s && *s != q)
				s++;
			vl = (size_t)(s - v);
			if (*s)
				s++;
		} else {
			while (*s && !html_space(*s) && *s != '>')
				s++;
			vl = (size_t)(s - v);
		}
		if (anl == 5 && strncasecmp(an, "class", 5) == 0) {
			a.cls = v;
			a.ncls = vl;
		} else if (anl == 2 && strncasecmp(an, "id", 2) == 0) {
			a.id = v;
			a.nid = vl;
		} else if (anl == 5 && strncasecmp(an, "style", 5) == 0) {
			a.style = v;
			a.nstyle = vl;
		}
	}
	const char *next = *s ? s + 1 : s;

	if (closing) {
		if (strcmp(name, "head") == 0)
			h->in_head = 0;
		if (h->in_head)
			return next;
		if (strcmp(name, "br") == 0) {
			html_newline(h);
			return next;
		}
		int block = name_is(name, block_elems, NELEM(block_elems));
		if (block)
			html_break(h);
		int quote_before = h->quote;
		html_pop(h, name);
		if (h->quote != quote_before)
			html_break(h);
		if (strcmp(name, "td") == 0 || strcmp(name, "th") == 0)
			h->space = !h->line_start;
		return next;
	}

	if (name_is(name, raw_elems, NELEM(raw_elems)))
		return self_closing ? next : skip_raw(next, name);
	if (strcmp(name, "head") == 0) {
		h->in_head = 1;
		return next;
	}
	if (strcmp(name, "body") == 0)
		h->in_head = 0;
	if (h->in_head)
		return next;

	if (strcmp(name, "br") == 0) {
		html_newline(h);
		return next;
	}
	if (outlook_marker(name, &a)) {
		h->rest_quoted = 1;
		html_break(h);
	}
	if (strcmp(name, "hr") == 0) {
		html_break(h);
		return next;
	}
	if (name_is(name, void_elems, NELEM(void_elems)))
		return next;
	if (strcmp(name, "td") == 0 || strcmp(name, "th") == 0)
		h->space = !h->line_start;

	int quote = strcmp(name, "blockquote") == 0 || (a.cls && quote_class(a.cls, a.ncls));
	if (quote || name_is(name, block_elems, NELEM(block_elems)))
		html_break(h);
	if (!self_closing)
		html_push(h, name, quote, strcmp(name, "pre") == 0);
	return next;
}

char *mail_html_to_text(const char *html)
{
	struct html h = {.line_start = 1};
	const char *p = html ? html : "";

	while (*p) {
		if (p[0] == '<') {
			if (strncmp(p, "<!--", 4) == 0) {
				const char *e = strstr(p + 4, "-->");
				p = e ? e + 3 : p + strlen(p);
				continue;
			}
			if (p[1] == '!' || p[1] == '?') {
				const char *e = strchr(p, '>');
				p = e ? e + 1 : p + strlen(p);
				continue;
			}
			if (is_alpha(p[1]) || (p[1] == '/' && is_alpha(p[2]))) {
				p = html_tag(&h, p);
				continue;
			}
		} else if (p[0] == '&') {
			uint32_t c;
			size_t n = html_entity(p + 1, &c);
			if (n) {
				html_codepoint(&h, c);
				p += 1 + n;
				continue;
			}
		}
		html_byte(&h, (unsigned char)*p++);
	}
	if (!h.line_start)
		sb_putc(&h.out, '\n');
	free(h.stack);
	return sb_take(&h.out);
}

/* ---- plain text clean-up ---- */

/* CRLF and lone CR become LF. */
static char *unix_lines(const char *s)
{
	struct sbuf b = {0};

	for (; *s; s++) {
		if (*s == '\r') {
			sb_putc(&b, '\n');
			if (s[1] == '\n')
				s++;
		} else {
			sb_putc(&b, *s);
		}
	}
	return sb_take(&b);
}

/* RFC 3676 format=flowed: join soft-broken lines (those ending in a space)
 * of the same quote depth, undo space-stuffing; "-- " stays a hard line. */
static char *unflow(const char *s, int delsp)
{
	struct sbuf b = {0};
	int open = 0, open_depth = 0;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		int depth = 0;
		while ((size_t)depth < n && s[depth] == '>')
			depth++;
		const char *t = s + depth;
		size_t tn = n - (size_t)depth;
		if (tn && *t == ' ') {
			t++;
			tn--;
		}
		int sig = tn == 3 && strncmp(t, "-- ", 3) == 0;
		int flowed = !sig && tn && t[tn - 1] == ' ';
		if (open && depth != open_depth)
			sb_putc(&b, '\n');
		if (!open || depth != open_depth) {
			for (int i = 0; i < depth; i++)
				sb_putc(&b, '>');
			if (depth)
				sb_putc(&b, ' ');
		}
		sb_put(&b, t, flowed && delsp ? tn - 1 : tn);
		open = flowed;
		open_depth = depth;
		if (!flowed)
			sb_putc(&b, '\n');
		s = nl ? nl + 1 : s + n;
	}
	if (open)
		sb_putc(&b, '\n');
	return sb_take(&b);
}

/* Only white space (as mail_first_line counts it) in s. */
static int blank(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	while (*u) {
		int drop;
		size_t w = uspace(u, &drop);
		if (!w && *u != '\n')
			return 0;
		u += w ? w : 1;
	}
	return 1;
}

/* A malloc'd copy of s at most max bytes long, not cutting a character. */
static char *cut_utf8(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max)
		return xstrdup(s);
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return xstrndup(s, n);
}

/* Header text made safe to log or put back in a header: control characters
 * (which RFC 2047 can smuggle in) become spaces. NULL for NULL or empty. */
static char *clean_header(const char *s)
{
	if (!s || !*s)
		return NULL;
	char *r = xstrdup(s);
	for (char *p = r; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	return r;
}

/* ---- GMime glue ---- */

/* Counted like g_mime_init itself, so that nested users stay balanced. */
static int init_count;

int mail_parse_init(void)
{
	static const char *charsets[] = {"UTF-8", "windows-1252", NULL};

	g_mime_init();
	if (init_count++ == 0) {
		parse_opts = g_mime_parser_options_new();
		g_mime_parser_options_set_fallback_charsets(parse_opts, charsets);
	}
	return 0;
}

void mail_parse_shutdown(void)
{
	if (init_count == 0)
		return;
	if (--init_count == 0) {
		g_mime_parser_options_free(parse_opts);
		parse_opts = NULL;
	}
	g_mime_shutdown();
}

void mail_incoming_clear(mail_incoming *m)
{
	if (!m)
		return;
	free(m->message_id);
	free(m->from);
	free(m->from_name);
	free(m->subject);
	for (size_t i = 0; i < m->nrecipients; i++)
		free(m->recipients[i]);
	free(m->recipients);
	free(m->in_reply_to);
	free(m->command);
	free(m->words);
	free(m->text);
	memset(m, 0, sizeof *m);
}

static void set_why(char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_why(char *why, const char *fmt, ...)
{
	va_list ap;
	if (!why)
		return;
	va_start(ap, fmt);
	vsnprintf(why, 256, fmt, ap);
	va_end(ap);
}

/* End of the header block: the first empty line, or the end of the data. */
static size_t header_end(const char *d, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (d[i] != '\n')
			continue;
		if (i + 1 < len && d[i + 1] == '\n')
			return i + 1;
		if (i + 2 < len && d[i + 1] == '\r' && d[i + 2] == '\n')
			return i + 1;
	}
	return len;
}

/* Control bytes in the headers: no mail client writes them, and GMime would
 * read past a NUL differently from other software looking at the same mail. */
static int header_garbage(const char *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)d[i];
		if (c == '\t' || c == '\n')
			continue;
		if (c == '\r' && (i + 1 == n || d[i + 1] == '\n' || d[i + 1] == '\r'))
			continue;
		if (c < 0x20 || c == 0x7f)
			return 1;
	}
	return 0;
}

/* An addr-spec fit to keep: no white space or control characters. */
static char *clean_addr(const char *addr)
{
	if (!addr || !*addr)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)addr; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return NULL;
	return xstrdup(addr);
}

struct rcpts {
	char **v;
	size_t n, cap;
};

static void rcpt_add(struct rcpts *r, const char *addr)
{
	char *a = clean_addr(addr);
	if (!a)
		return;
	for (char *p = a; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p + 32);
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i], a) == 0) {
			free(a);
			return;
		}
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->v = xrealloc(r->v, r->cap * sizeof *r->v);
	}
	r->v[r->n++] = a;
}

/* Mailboxes of list, and of the groups in it (groups do not nest). */
static void rcpt_add_list(struct rcpts *r, InternetAddressList *list, int in_group)
{
	int n = list ? internet_address_list_length(list) : 0;
	for (int i = 0; i < n; i++) {
		InternetAddress *ia = internet_address_list_get_address(list, i);
		if (INTERNET_ADDRESS_IS_MAILBOX(ia))
			rcpt_add(r, internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia)));
		else if (INTERNET_ADDRESS_IS_GROUP(ia) && !in_group)
			rcpt_add_list(r, internet_address_group_get_members(INTERNET_ADDRESS_GROUP(ia)), 1);
	}
}

static void rcpt_add_header(struct rcpts *r, GMimeObject *obj, const char *name)
{
	GMimeHeaderList *hl = g_mime_object_get_header_list(obj);
	int n = g_mime_header_list_get_count(hl);
	for (int i = 0; i < n; i++) {
		GMimeHeader *hd = g_mime_header_list_get_header_at(hl, i);
		if (g_ascii_strcasecmp(g_mime_header_get_name(hd), name) != 0)
			continue;
		const char *raw = g_mime_header_get_raw_value(hd);
		if (!raw)
			continue;
		InternetAddressList *list = internet_address_list_parse(parse_opts, raw);
		if (list) {
			rcpt_add_list(r, list, 0);
			g_object_unref(list);
		}
	}
}

/* The first mailbox of list (or of its first group). */
static InternetAddressMailbox *first_mailbox(InternetAddressList *list, int in_group)
{
	int n = list ? internet_address_list_length(list) : 0;
	for (int i = 0; i < n; i++) {
		InternetAddress *ia = internet_address_list_get_address(list, i);
		if (INTERNET_ADDRESS_IS_MAILBOX(ia))
			return INTERNET_ADDRESS_MAILBOX(ia);
		if (INTERNET_ADDRESS_IS_GROUP(ia) && !in_group) {
			InternetAddressMailbox *mb = first_mailbox(internet_address_group_get_members(INTERNET_ADDRESS_GROUP(ia)), 1);
			if (mb)
				return mb;
		}
	}
	return NULL;
}

static void read_headers(GMimeMessage *msg, mail_incoming *out)
{
	GMimeObject *obj = GMIME_OBJECT(msg);

	out->message_id = clean_header(g_mime_message_get_message_id(msg));
	out->subject = clean_header(g_mime_message_get_subject(msg));

	InternetAddressMailbox *mb = first_mailbox(g_mime_message_get_from(msg), 0);
	if (mb) {
		out->from = clean_addr(internet_address_mailbox_get_addr(mb));
		out->from_name = clean_header(internet_address_get_name(INTERNET_ADDRESS(mb)));
	}

	/* Out-of-office replies and lists must not be answered, or mail loops start (RFC 3834). */
	const char *auto_sub = g_mime_object_get_header(obj, "Auto-Submitted");
	const char *precedence = g_mime_object_get_header(obj, "Precedence");
	if (auto_sub) {
		while (*auto_sub == ' ' || *auto_sub == '\t')
			auto_sub++;
		out->automatic = g_ascii_strncasecmp(auto_sub, "no", 2) != 0 ||
				 (auto_sub[2] && auto_sub[2] != ' ' && auto_sub[2] != ';' && auto_sub[2] != '\t');
	}
	if (precedence) {
		while (*precedence == ' ' || *precedence == '\t')
			precedence++;
		if (!g_ascii_strncasecmp(precedence, "bulk", 4) || !g_ascii_strncasecmp(precedence, "junk", 4) ||
		    !g_ascii_strncasecmp(precedence, "list", 4))
			out->automatic = 1;
	}

	const char *irt = g_mime_object_get_header(obj, "In-Reply-To");
	if (irt) {
		char *id = g_mime_utils_decode_message_id(irt);
		out->in_reply_to = clean_header(id);
		g_free(id);
	}

	struct rcpts r = {0};
	rcpt_add_header(&r, obj, "Delivered-To");
	rcpt_add_header(&r, obj, "X-Original-To");
	rcpt_add_list(&r, g_mime_message_get_to(msg), 0);
	rcpt_add_list(&r, g_mime_message_get_cc(msg), 0);
	out->recipients = r.v;
	out->nrecipients = r.n;
}

/* The first text/plain and first text/html parts that are not attachments,
 * depth first in document order, without descending into attached messages.
 * An explicit stack: GMime allows deep nesting and this must not recurse. */
static void find_text_parts(GMimeObject *root, GMimeTextPart **plain, GMimeTextPart **html)
{
	GMimeObject **stack = NULL;
	size_t n = 0, cap = 0;

	*plain = *html = NULL;
	if (!root)
		return;
	stack = xmalloc(16 * sizeof *stack);
	cap = 16;
	stack[n++] = root;
	while (n && !(*plain && *html)) {
		GMimeObject *o = stack[--n];
		if (GMIME_IS_MULTIPART(o)) {
			GMimeMultipart *mp = GMIME_MULTIPART(o);
			int count = g_mime_multipart_get_count(mp);
			for (int i = count - 1; i >= 0; i--) {
				if (n == cap) {
					cap *= 2;
					stack = xrealloc(stack, cap * sizeof *stack);
				}
				stack[n++] = g_mime_multipart_get_part(mp, i);
			}
			continue;
		}
		if (!GMIME_IS_TEXT_PART(o))
			continue;
		GMimeContentDisposition *disp = g_mime_object_get_content_disposition(o);
		if (disp && g_mime_content_disposition_is_attachment(disp))
			continue;
		GMimeContentType *ct = g_mime_object_get_content_type(o);
		if (!*plain && g_mime_content_type_is_type(ct, "text", "plain"))
			*plain = GMIME_TEXT_PART(o);
		else if (!*html && g_mime_content_type_is_type(ct, "text", "html"))
			*html = GMIME_TEXT_PART(o);
	}
	free(stack);
}

/* The decoded content of part as valid UTF-8, malloc'd. GMime converts from
 * the declared charset; text with no charset, or one iconv does not know, is
 * guessed by GMime among the fallback charsets. */
static char *part_text(GMimeTextPart *part)
{
	const char *charset = g_mime_object_get_content_type_parameter(GMIME_OBJECT(part), "charset");
	int known = 0;
	char *g = NULL;

	if (charset) {
		iconv_t cd = g_mime_iconv_open("UTF-8", charset);
		if (cd != (iconv_t)-1) {
			g_mime_iconv_close(cd);
			known = 1;
		}
	}
	if (known || !charset) {
		g = g_mime_text_part_get_text(part);
	} else {
		/* g_mime_text_part_get_text would warn about the charset: take the
		 * transfer-decoded bytes and let the fallback charsets decide */
		GMimeDataWrapper *w = g_mime_part_get_content(GMIME_PART(part));
		if (w) {
			GMimeStream *ms = g_mime_stream_mem_new();
			g_mime_data_wrapper_write_to_stream(w, ms);
			g_mime_stream_write(ms, "", 1);
			GByteArray *ba = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(ms));
			g = g_strdup((const char *)ba->data);
			g_object_unref(ms);
		}
	}
	if (!g)
		return xstrdup("");
	if (!g_utf8_validate(g, -1, NULL)) {
		char *d = g_mime_utils_decode_8bit(parse_opts, g, strlen(g));
		g_free(g);
		g = d;
		if (g && !g_utf8_validate(g, -1, NULL)) {
			d = g_utf8_make_valid(g, -1);
			g_free(g);
			g = d;
		}
		if (!g)
			return xstrdup("");
	}
	char *r = xstrdup(g);
	g_free(g);
	return r;
}

/* Plain text of a text/plain part: LF line ends, format=flowed undone. */
static char *plain_text(GMimeTextPart *part)
{
	char *raw = part_text(part);
	char *t = unix_lines(raw);
	free(raw);

	const char *format = g_mime_object_get_content_type_parameter(GMIME_OBJECT(part), "format");
	if (format && g_ascii_strcasecmp(format, "flowed") == 0) {
		const char *delsp = g_mime_object_get_content_type_parameter(GMIME_OBJECT(part), "delsp");
		char *u = unflow(t, delsp && g_ascii_strcasecmp(delsp, "yes") == 0);
		free(t);
		t = u;
	}
	return t;
}

static char *html_text(GMimeTextPart *part)
{
	char *raw = part_text(part);
	char *t = mail_html_to_text(raw);
	free(raw);
	return t;
}

/* data starts with an mbox "From " line left by a delivery agent, which is
 * not a header (the obsolete "From : addr" form is one). */
static int mbox_from_line(const char *d, size_t len)
{
	size_t i = 5;

	if (len < 5 || memcmp(d, "From ", 5) != 0)
		return 0;
	while (i < len && (d[i] == ' ' || d[i] == '\t'))
		i++;
	return i < len && d[i] != ':';
}

int mail_parse(const char *data, size_t len, mail_incoming *out, char why[256])
{
	memset(out, 0, sizeof *out);
	if (why)
		why[0] = '\0';
	if (len > MAIL_MAX_BYTES) {
		set_why(why, "The message is %zu bytes, over the limit of %d.", len, MAIL_MAX_BYTES);
		return MAIL_E_TOO_LARGE;
	}
	if (!data || len == 0) {
		set_why(why, "The message is empty.");
		return MAIL_E_MALFORMED;
	}
	if (mbox_from_line(data, len)) {
		const char *nl = memchr(data, '\n', len);
		size_t skip = nl ? (size_t)(nl - data) + 1 : len;
		data += skip;
		len -= skip;
	}
	if (len == 0 || data[0] == '\n' || (data[0] == '\r' && len > 1 && data[1] == '\n')) {
		set_why(why, "The message has no headers.");
		return MAIL_E_MALFORMED;
	}
	if (header_garbage(data, header_end(data, len))) {
		set_why(why, "The message headers contain NUL bytes or other control characters.");
		return MAIL_E_BINARY;
	}

	GMimeStream *stream = g_mime_stream_mem_new_with_buffer(data, len);
	GMimeParser *parser = g_mime_parser_new_with_stream(stream);
	g_object_unref(stream);
	g_mime_parser_set_format(parser, GMIME_FORMAT_MESSAGE);
	GMimeMessage *msg = g_mime_parser_construct_message(parser, parse_opts);
	g_object_unref(parser);
	if (!msg || g_mime_header_list_get_count(g_mime_object_get_header_list(GMIME_OBJECT(msg))) == 0) {
		if (msg)
			g_object_unref(msg);
		set_why(why, "The message could not be parsed: it has no headers.");
		return MAIL_E_MALFORMED;
	}

	read_headers(msg, out);

	GMimeTextPart *plain, *html;
	find_text_parts(g_mime_message_get_mime_part(msg), &plain, &html);
	char *text = NULL;
	if (plain) {
		text = plain_text(plain);
		/* some phones send an empty text/plain beside the real HTML */
		if (blank(text) && html) {
			free(text);
			text = NULL;
		}
	}
	if (!text && html)
		text = html_text(html);
	g_object_unref(msg);
	if (!text) {
		set_why(why, "The message has no text/plain or text/html part.");
		return MAIL_E_NO_TEXT;
	}

	reply_lines(text, &out->command, &out->words);
	out->text = cut_utf8(text, MAIL_MAX_TEXT);
	free(text);
	return 0;
}
