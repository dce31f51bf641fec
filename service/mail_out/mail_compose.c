/* mail_compose.c - building outgoing messages with GMime, which handles encodings and headers. */
#include "mail_out/mail_compose.h"
#include "xalloc.h"

#include <gmime/gmime.h>
#include <stdlib.h>
#include <string.h>

static int started;

void mail_compose_init(void)
{
	if (!started++)
		g_mime_init();
}

void mail_compose_shutdown(void)
{
	if (started && !--started)
		g_mime_shutdown();
}

static GMimeObject *text_part(const char *subtype, const char *content)
{
	GMimeTextPart *part = g_mime_text_part_new_with_subtype(subtype);

	/* GMime picks the smallest charset that holds the text (US-ASCII, ISO-8859-1 or UTF-8). */
	g_mime_text_part_set_text(part, content);
	g_mime_part_set_content_encoding(GMIME_PART(part), GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE);
	return GMIME_OBJECT(part);
}

static void append_escaped(GString *out, const char *s, size_t n)
{
	char *e = g_markup_escape_text(s, (gssize)n);
	g_string_append(out, e);
	g_free(e);
}

/*
 * Where a line of the text holds one of Rookery's own links: a URL under
 * base ("base/..." in the characters of our paths and queries) that ends the
 * line and either fills it or follows ": " ("Rules of Nchess: URL"). Returns
 * the offset of the URL in the line, or -1. Quoted lines ("> ...") are what
 * someone else wrote and hold none.
 */
static long own_link_at(const char *base, const char *line, size_t n)
{
	size_t blen = base ? strlen(base) : 0;

	if (!blen || (n && line[0] == '>'))
		return -1;
	for (size_t at = 0; at + blen < n; at++) {
		if ((at && (at < 2 || line[at - 2] != ':' || line[at - 1] != ' ')) ||
		    strncmp(line + at, base, blen) || line[at + blen] != '/')
			continue;
		for (size_t k = at + blen; k < n; k++)
			if (!g_ascii_isalnum(line[k]) && !strchr("-._~/?=&%+", line[k]))
				return -1;
		return (long)at;
	}
	return -1;
}

/* Append the first n bytes of text as HTML lines (see html_of). */
static void html_lines(GString *out, const char *base, const char *text, size_t n)
{
	for (const char *p = text, *end = text + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		long at = own_link_at(base, p, len);
		if (at < 0) {
			append_escaped(out, p, len);
		} else {
			append_escaped(out, p, (size_t)at);
			g_string_append(out, "<a href=\"");
			append_escaped(out, p + at, len - (size_t)at);
			g_string_append(out, "\">");
			append_escaped(out, p + at, len - (size_t)at);
			g_string_append(out, "</a>");
		}
		p += len;
		if (p < end)
			g_string_append_c(out, *p++);
	}
}

#define PRE "<pre style=\"font-family:monospace\">"

/*
 * The text as HTML: escaped, in a <pre> so boards keep their columns. Only
 * Rookery's own links become links (see own_link_at): a player's name, or
 * text quoted from a mail, never turns into one, whatever it looks like.
 * The mail's board fragment (m->html_board) goes after the text's board, or
 * at the end.
 */
static char *html_of(const char *base, const mail_out *m)
{
	GString *out = g_string_new("<!doctype html><html><body>" PRE);
	const char *text = m->text, *after = m->html_board && m->board_after && *m->board_after ?
		strstr(text, m->board_after) : NULL;
	size_t cut = after ? (size_t)(after - text) + strlen(m->board_after) : strlen(text);

	html_lines(out, base, text, cut);
	g_string_append(out, "</pre>");
	if (m->html_board) {
		g_string_append_c(out, '\n');
		g_string_append(out, m->html_board);
		if (text[cut]) {
			g_string_append(out, PRE);
			html_lines(out, base, text + cut, strlen(text + cut));
			g_string_append(out, "</pre>");
		}
	}
	g_string_append(out, "</body></html>\n");
	char *s = xstrdup(out->str);
	g_string_free(out, TRUE);
	return s;
}

/*
 * A name or subject that itself looks like an RFC 2047 encoded word ("=?")
 * would be decoded by the reader's mail client into something else: write
 * "= ?" instead, which no client decodes.
 */
static char *defuse_encoded_words(const char *s)
{
	GString *out = g_string_new(NULL);
	char *r;

	for (const char *p = s ? s : ""; *p; p++) {
		g_string_append_c(out, *p);
		if (p[0] == '=' && p[1] == '?')
			g_string_append_c(out, ' ');
	}
	r = xstrdup(out->str);
	g_string_free(out, TRUE);
	return r;
}

static void set_id_header(GMimeMessage *msg, const char *name, const char *ids)
{
	GString *v = g_string_new(NULL);
	char *copy = xstrdup(ids), *save = NULL;

	for (char *id = strtok_r(copy, " ", &save); id; id = strtok_r(NULL, " ", &save))
		g_string_append_printf(v, "%s<%s>", v->len ? " " : "", id);
	g_mime_object_set_header(GMIME_OBJECT(msg), name, v->str, NULL);
	g_string_free(v, TRUE);
	free(copy);
}

char *mail_compose(const mail_config *mc, const mail_out *m)
{
	GMimeMessage *msg = g_mime_message_new(TRUE);
	GDateTime *now = g_date_time_new_now_utc();
	GMimeFormatOptions *opts;
	GMimeObject *body;
	char *text, *out, *name = m->to_name ? defuse_encoded_words(m->to_name) : NULL;
	char *subject = defuse_encoded_words(m->subject);

	g_mime_message_add_mailbox(msg, GMIME_ADDRESS_TYPE_FROM, "Rookery", mc->from);
	g_mime_message_add_mailbox(msg, GMIME_ADDRESS_TYPE_TO, name, m->to_addr);
	if (m->reply_to)
		g_mime_message_add_mailbox(msg, GMIME_ADDRESS_TYPE_REPLY_TO, "Rookery", m->reply_to);
	g_mime_message_set_subject(msg, subject, "utf-8");
	free(name);
	free(subject);
	g_mime_message_set_date(msg, now);
	g_mime_message_set_message_id(msg, m->message_id);
	if (m->in_reply_to)
		set_id_header(msg, "In-Reply-To", m->in_reply_to);
	if (m->references)
		set_id_header(msg, "References", m->references);
	g_mime_object_set_header(GMIME_OBJECT(msg), "Auto-Submitted", "auto-generated", NULL);
	g_mime_object_set_header(GMIME_OBJECT(msg), "X-Auto-Response-Suppress", "All", NULL);
	if (m->unsubscribe_url) {
		char *v = xasprintf("<%s>", m->unsubscribe_url);
		g_mime_object_set_header(GMIME_OBJECT(msg), "List-Unsubscribe", v, NULL);
		g_mime_object_set_header(GMIME_OBJECT(msg), "List-Unsubscribe-Post", "List-Unsubscribe=One-Click", NULL);
		free(v);
	}

	body = text_part("plain", m->text);
	if (m->with_html) {
		GMimeMultipart *alt = g_mime_multipart_new_with_subtype("alternative");
		char *html = html_of(mc->link_base, m);
		GMimeObject *hp = text_part("html", html);
		free(html);
		g_mime_multipart_add(alt, body);
		g_mime_multipart_add(alt, hp);
		g_object_unref(body);
		g_object_unref(hp);
		body = GMIME_OBJECT(alt);
	}
	g_mime_message_set_mime_part(msg, body);
	g_object_unref(body);

	opts = g_mime_format_options_new();
	g_mime_format_options_set_newline_format(opts, GMIME_NEWLINE_FORMAT_UNIX);
	text = g_mime_object_to_string(GMIME_OBJECT(msg), opts);
	out = xstrdup(text);
	g_free(text);
	g_mime_format_options_free(opts);
	g_date_time_unref(now);
	g_object_unref(msg);
	return out;
}
