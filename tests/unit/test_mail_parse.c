/* test_mail_parse.c - reply mails: the corpus in tests/mail/corpus, first-line rules, HTML to text, hostile input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mail_in/mail_parse.h"

#define SUBJ "Re: [Rookery] Your move in Nchess game bcdfgh234567"
#define TOK "play+k7q2m9x4@example.org"
#define NOTE_ID "game.bcdfgh234567.ply12@rookery.example.org"

/* What one corpus file must parse to. NULL strings must come back NULL. */
struct corpus_case {
	const char *file;
	int rc;
	const char *command;
	const char *message_id;
	const char *from;
	const char *from_name;
	const char *subject;
	const char *in_reply_to;
	const char *recipients[4];
	const char *text_has;  /* a piece the text must hold, or NULL */
	const char *text_lacks; /* a piece it must not hold, or NULL */
};

static const struct corpus_case cases[] = {
	{"gmail.eml", 0, "S 7 1 6 1",
	 "CAGx7Qm1+8fZ9dK3vT0pL2uQh=6yN4wE5rA1sB2cD3eF4gH5iJ@mail.gmail.com",
	 "ann.lee@gmail.com", "Ann Lee", SUBJ, NOTE_ID, {TOK}, "> Ann Lee \u2014 it is your move", NULL},
	{"outlook_web.eml", 0, "s 3 1 4 1 / n 2 1",
	 "AM9PR07MB7123F1E2D3C4B5A6978812AB9C1D2@AM9PR07MB7123.eurprd07.prod.outlook.com",
	 "zoe.hart@outlook.com", "Zo\u00eb Hart", SUBJ, NOTE_ID, {TOK},
	 "> Zo\u00eb Hart \u2013 it\u2019s your move", "P {margin"},
	{"outlook_desktop.eml", 0, "S 7 1 6 1",
	 "DB9PR02MB73211C0F3A5E0D1B3F9C2A1BC3D2@DB9PR02MB7321.eurprd02.prod.outlook.com",
	 "tom.baker@contoso.com", "Tom Baker", SUBJ, NOTE_ID, {TOK}, "\nSent: Sunday", NULL},
	{"outlook_word_html.eml", 0, "draw",
	 "DB9PR02MB7321A0B1C2D3E4F5061728394A5B@DB9PR02MB7321.eurprd02.prod.outlook.com",
	 "tom.baker@contoso.com", "Tom Baker", SUBJ, NOTE_ID, {TOK}, "> Sent: Sunday", "Font Definitions"},
	{"outlook_original.eml", 0, "decline draw", "000001db3c7f$1a2b3c40$4e5f6a70$@raman.example.in",
	 "priya@raman.example.in", "Priya Raman", SUBJ, NOTE_ID, {TOK, "priya@raman.example.in"},
	 "-----Original Message-----", NULL},
	{"thunderbird_flowed.eml", 0, "S 7 1 6 1", "8f1c2e7a-5b3d-4c1e-9a2f-6d7e8b9c0a1b@dupre.example.fr",
	 "renee@dupre.example.fr", "Ren\u00e9e Dupr\u00e9", SUBJ, NOTE_ID, {TOK},
	 "> a \u00e9crit\u00a0:\n> Ren\u00e9e", "e.g. S 7 1 6 1. \n"},
	{"thunderbird_html.eml", 0, "s 3 1 4 1 / n 2 1", "3b9d7c1e-2a4f-4e8b-b6c0-1d2e3f4a5b6c@dupre.example.fr",
	 "renee@dupre.example.fr", "Ren\u00e9e Dupr\u00e9", SUBJ, NOTE_ID, {TOK},
	 "> Le 22/11/2026 \u00e0 10:01, Rookery a \u00e9crit\u00a0:", NULL},
	{"apple_mail.eml", 0, "S 7 1 6 1", "6A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D@icloud.com",
	 "kwame.mensah@icloud.com", "Kwame Mensah", SUBJ, NOTE_ID, {TOK},
	 "On 22 Nov 2026, at 10:01, Rookery <" TOK "> wrote:", NULL},
	{"mutt.eml", 0, "S 7 1 6 1", "20261122091742.GA12345@jansen.example.nl",
	 "dirk@jansen.example.nl", "Dirk Jansen", SUBJ, NOTE_ID,
	 {"rookery@mail.example.org", TOK, "dirk@jansen.example.nl"}, "\n-- \nDirk Jansen", NULL},
	{"top_posted_signature.eml", 0, "s 3 1 4 1 / n 2 1", "4f2b9c1e-7a3d-4b8e-9c6f-0e1d2a3b4c5d@app.fastmail.com",
	 "bob@smith.example.com", "Bob Smith", SUBJ, NOTE_ID, {TOK}, NULL, NULL},
	{"base64_utf8.eml", 0, "S 7 1 6 1", "b64.0c9d8e7f@birds.example.net",
	 "zoe@birds.example.net", "Zo\u00eb \U0001F426", SUBJ, NOTE_ID, {TOK},
	 "\u0412\u0430\u0448 \u0445\u043e\u0434.", NULL},
	{"shift_jis.eml", 0, "S 7 1 6 1", "CAJp5sJIS+x1Q2w3E4r5T6y7U8i9O0p@mail.example.jp",
	 "ken.sato@example.jp", "\u4f50\u85e4 \u5065", SUBJ, NOTE_ID, {TOK},
	 "> \u4f50\u85e4\u3055\u3093\u3001\u5bfe\u5c40 bcdfgh234567", NULL},
	{"koi8r.eml", 0, "s 3 1 4 1 / n 2 1", "1763805511.a1b2c3@mail.example.ru",
	 "ivan.petrov@example.ru", "\u0418\u0432\u0430\u043d \u041f\u0435\u0442\u0440\u043e\u0432", SUBJ, NOTE_ID, {TOK},
	 "\u0421 \u0443\u0432\u0430\u0436\u0435\u043d\u0438\u0435\u043c,", NULL},
	{"attachment.eml", 0, "S 7 1 6 1", "att.5e6f7a8b@fischer.example.de",
	 "lena@fischer.example.de", "Lena Fischer", SUBJ, NOTE_ID, {TOK}, "See the attached position.", "my notes"},
	{"resign.eml", 0, "resign", "A7E1B2C3-D4E5-4F60-8172-93A4B5C6D7E8@icloud.com",
	 "sam.ortiz@icloud.com", "Sam Ortiz", SUBJ, NOTE_ID, {TOK}, "Sent from my iPhone", NULL},
	{"accept_draw.eml", 0, "accept draw", "1419283745.1234567.1763806300123@mail.yahoo.com",
	 "maya.stone@yahoo.com", "Maya Stone", SUBJ, NOTE_ID, {TOK}, NULL, NULL},
	{"pgp_signed.eml", 0, "draw", "c0ffee12-3456-789a-bcde-f0123456789a@berg.example.se",
	 "olga@berg.example.se", "Olga Berg", SUBJ, NOTE_ID, {TOK}, NULL, "PGP SIGNATURE"},
	{"empty_plain_html.eml", 0, "S 7 1 6 1", "phone.1a2b3c4d@haddad.example.com",
	 "noor@haddad.example.com", "Noor Haddad", SUBJ, NOTE_ID, {TOK}, "> > Your move.", NULL},
	{"unknown_charset.eml", 0, "S 7 1 6 1", "unknown-charset.1@example.se",
	 "bjorn@example.se", "Bj\u00f6rn Lund", SUBJ, NULL, {TOK}, "H\u00e4lsningar, Bj\u00f6rn", NULL},
	{"mbox_from_line.eml", 0, "S 7 1 6 1", "mbox.1@example.com",
	 "dana@example.com", "Dana Wu", SUBJ, NOTE_ID, {TOK}, NULL, NULL},
	{"quote_only.eml", 0, NULL, "quote-only.1@adams.example.com",
	 "eve@adams.example.com", "Eve Adams", SUBJ, NOTE_ID, {TOK}, "> Eve Adams - it is your move", NULL},

	{"empty.eml", MAIL_E_MALFORMED, NULL, NULL, NULL, NULL, NULL, NULL, {NULL}, NULL, NULL},
	{"not_mail.eml", MAIL_E_MALFORMED, NULL, NULL, NULL, NULL, NULL, NULL, {NULL}, NULL, NULL},
	{"no_body.eml", 0, NULL, "no-body.1@example.com", "hal@example.com", "Hal", SUBJ, NULL, {TOK}, NULL, NULL},
	{"no_text.eml", MAIL_E_NO_TEXT, NULL, "no-text.1@example.com", "pat@example.com", "Pat", SUBJ, NULL, {TOK}, NULL, NULL},
	{"html_script.eml", 0, "S 7 1 6 1", "script.1@evil.example", "mallory@evil.example", "Mallory", SUBJ, NULL, {TOK},
	 "<b>not a tag</b> & \"text\" '", "resign"},
	{"html_script_only.eml", 0, NULL, "script.2@evil.example", "mallory@evil.example", "Mallory", SUBJ, NULL, {TOK},
	 NULL, "resign"},
	{"nul_headers.eml", MAIL_E_BINARY, NULL, NULL, NULL, NULL, NULL, NULL, {NULL}, NULL, NULL},
	{"garbage.eml", MAIL_E_BINARY, NULL, NULL, NULL, NULL, NULL, NULL, {NULL}, NULL, NULL},
	{"too_large.eml", MAIL_E_TOO_LARGE, NULL, NULL, NULL, NULL, NULL, NULL, {NULL}, NULL, NULL},
	{"nested_5000.eml", MAIL_E_NO_TEXT, NULL, "deep.1@example.com", "deep@example.com", "Deep", SUBJ, NULL, {TOK}, NULL, NULL},
};

#define NCASES (sizeof cases / sizeof *cases)

static const char *corpus_dir(void)
{
	const char *d = getenv("MAIL_CORPUS");
	return d && *d ? d : "tests/mail/corpus";
}

/* The whole file; *len gets its size. Fails the test if it cannot be read. */
static char *slurp(const char *name, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", corpus_dir(), name);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s (set MAIL_CORPUS to the corpus directory)", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	/* exactly n bytes, no terminator: the sanitizers catch a read past len */
	char *buf = malloc(n ? (size_t)n : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static int utf8_ok(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	while (*u) {
		size_t n = *u < 0x80 ? 1 : (*u & 0xe0) == 0xc0 ? 2 : (*u & 0xf0) == 0xe0 ? 3 : (*u & 0xf8) == 0xf0 ? 4 : 0;
		if (!n || (n == 2 && *u < 0xc2))
			return 0;
		for (size_t i = 1; i < n; i++)
			if ((u[i] & 0xc0) != 0x80)
				return 0;
		u += n;
	}
	return 1;
}

static void assert_str_or_null(const char *got, const char *want)
{
	if (!want)
		assert_null(got);
	else {
		assert_non_null(got);
		assert_string_equal(got, want);
	}
}

static void corpus_one(void **state)
{
	const struct corpus_case *c = *state;
	size_t len;
	char *data = slurp(c->file, &len);
	mail_incoming m;
	char why[256];

	int rc = mail_parse(data, len, &m, why);
	free(data);
	assert_int_equal(rc, c->rc);
	if (rc != 0)
		assert_true(strlen(why) > 10);
	assert_str_or_null(m.command, c->command);
	assert_str_or_null(m.message_id, c->message_id);
	assert_str_or_null(m.from, c->from);
	assert_str_or_null(m.from_name, c->from_name);
	assert_str_or_null(m.subject, c->subject);
	assert_str_or_null(m.in_reply_to, c->in_reply_to);
	size_t nr = 0;
	while (nr < 4 && c->recipients[nr])
		nr++;
	assert_int_equal(m.nrecipients, nr);
	for (size_t i = 0; i < nr; i++)
		assert_string_equal(m.recipients[i], c->recipients[i]);
	if (rc == 0) {
		assert_non_null(m.text);
		assert_true(strlen(m.text) <= MAIL_MAX_TEXT);
		assert_true(utf8_ok(m.text));
		assert_null(strchr(m.text, '\r'));
	} else {
		assert_null(m.text);
	}
	if (m.command)
		assert_true(utf8_ok(m.command));
	if (c->text_has) {
		if (!strstr(m.text, c->text_has))
			fail_msg("text lacks \"%s\":\n%s", c->text_has, m.text);
	}
	if (c->text_lacks && m.text && strstr(m.text, c->text_lacks))
		fail_msg("text holds \"%s\":\n%s", c->text_lacks, m.text);
	mail_incoming_clear(&m);
	mail_incoming_clear(&m); /* twice is harmless */
}

/* Every file in the corpus has expectations in the table, and the reverse. */
static void corpus_complete(void **state)
{
	(void)state;
	DIR *d = opendir(corpus_dir());
	if (!d)
		fail_msg("cannot open corpus directory %s", corpus_dir());
	struct dirent *e;
	size_t seen = 0;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 4, ".eml") != 0)
			continue;
		int found = 0;
		for (size_t i = 0; i < NCASES; i++)
			found |= strcmp(cases[i].file, e->d_name) == 0;
		if (!found)
			fail_msg("%s has no entry in the test table", e->d_name);
		seen++;
	}
	closedir(d);
	assert_int_equal(seen, NCASES);
}

/* ---- mail_first_line ---- */

static void expect_line(const char *body, const char *want)
{
	char *got = mail_first_line(body);
	if (!body)
		body = "(null)";
	if (!want && got)
		fail_msg("expected no command in:\n%s\ngot \"%s\"", body, got);
	if (want && (!got || strcmp(got, want) != 0))
		fail_msg("expected \"%s\" in:\n%s\ngot \"%s\"", want, body, got ? got : "(null)");
	free(got);
}

static void first_line_blank(void **state)
{
	(void)state;
	expect_line(NULL, NULL);
	expect_line("", NULL);
	expect_line("\n\n   \n\t\n", NULL);
	expect_line("\r\n\r\n  \r\n", NULL);
	expect_line("\n\n  S 7 1 6 1  \n\nmore", "S 7 1 6 1");
	expect_line("S 7 1 6 1\r\nmore\r\n", "S 7 1 6 1");
	expect_line("S 7 1 6 1\r", "S 7 1 6 1");
	expect_line("resign", "resign");
	/* NBSP, zero-width space, BOM, word joiner, ideographic space count as white space */
	expect_line("\u00a0\u00a0\n\u200b\n\ufeff\u2060\n\u00a0 S 7 1 6 1\u00a0\u200b\n", "S 7 1 6 1");
	expect_line("\u3000\n\u3000accept draw\u3000\n", "accept draw");
	/* inside the line too: NBSP and tabs become spaces, zero-width ones vanish */
	expect_line("s\u00a03 1 4 1\t/ n\u202f2 1\n", "s 3 1 4 1 / n 2 1");
	expect_line("re\u200bsign\n", "resign");
	expect_line("\u00a0\n\u200b\n", NULL);
}

static void first_line_quotes(void **state)
{
	(void)state;
	expect_line("> S 7 1 6 1\n>> resign\n>\nS 1 2 3 4\n", "S 1 2 3 4");
	expect_line("  > indented quote\n\t>> more\ndraw", "draw");
	expect_line(">\n>\n> \n", NULL);
	expect_line("\u00a0> quoted after an NBSP\nresign\n", "resign");
}

static void first_line_signature(void **state)
{
	(void)state;
	expect_line("-- \nresign\n", NULL);
	expect_line("--\nresign\n", NULL);
	expect_line("--\u00a0\nresign\n", NULL);
	expect_line("\n\n-- \nAnn Lee\n\nS 7 1 6 1\n", NULL);
	expect_line("resign\n-- \nAnn\n", "resign");
	expect_line("S 7 1 6 1\n\n--\nAnn Lee | ann@example.org\n", "S 7 1 6 1");
	expect_line("Sent from my iPhone\n\n> On 22 Nov 2026, at 10:01, Rookery <x@example.org> wrote:\n> S 7 1 6 1\n", NULL);
	expect_line("Get Outlook for Android\n", NULL);
	/* "--" inside a line is text */
	expect_line("-- ah, not so fast\n", "-- ah, not so fast");
}

static void first_line_outlook(void **state)
{
	(void)state;
	expect_line("-----Original Message-----\nFrom: Rookery\n\nS 7 1 6 1\n", NULL);
	expect_line("----- Original Message -----\nresign\n", NULL);
	expect_line("-----Ursprüngliche Nachricht-----\nresign\n", NULL);
	expect_line("________________________________\nFrom: Rookery <play@example.org>\nSent: Sunday\nresign\n", NULL);
	expect_line("---------- Forwarded message ---------\nFrom: Rookery\nresign\n", NULL);
	expect_line("decline draw\n\n-----Original Message-----\nFrom: x\n", "decline draw");
	/* a quoted header block */
	expect_line("From: Rookery <play@example.org>\nSent: Sunday, November 22, 2026 10:01 AM\nTo: Ann\nSubject: x\n\nS 7 1 6 1\n", NULL);
	expect_line("From: Rookery <play@example.org>\nDate: Sunday, 22 November 2026 at 10:01\nresign\n", NULL);
	expect_line("From: Rookery <play@example.org>\n\nTo: Ann\nresign\n", NULL);
	expect_line("*From:* Rookery <play@example.org>\n*Sent:* Sunday\nresign\n", NULL);
	expect_line("De : Rookery <play@example.org>\nEnvoyé : dimanche 22 novembre 2026 10:01\nresign\n", NULL);
	expect_line("Von: Rookery <play@example.org>\nGesendet: Sonntag, 22. November 2026 10:01\nresign\n", NULL);
	/* a From: line alone is not a header block */
	expect_line("From: me\nS 7 1 6 1\n", "From: me");
	expect_line("Begin forwarded message:\n\nFrom: Rookery\nresign\n", NULL);
	expect_line("draw\n\nBegin forwarded message:\n", "draw");
}

static void first_line_attribution(void **state)
{
	(void)state;
	/* top-posted: the reply comes first */
	expect_line("S 7 1 6 1\n\nOn Sun, 22 Nov 2026 at 10:01, Rookery <play@example.org> wrote:\n> Your move\n",
	            "S 7 1 6 1");
	/* bottom-posted, mutt style */
	expect_line("On Sun, Nov 22, 2026 at 10:01:00AM +0100, X wrote:\n> ...\n> ...\n\nS 7 1 6 1", "S 7 1 6 1");
	expect_line("On 22/11/2026 10:01, Rookery wrote:\n\n> Your move\n>\n> e.g. resign\n\n\ndraw\n-- \nsig\n", "draw");
	/* wrapped over two lines, as Gmail does */
	expect_line("On Sun, 22 Nov 2026 at 10:01, Rookery <play+tok@example.org>\nwrote:\n\n> Your move\n\nS 7 1 6 1\n",
	            "S 7 1 6 1");
	expect_line("On Sun, 22 Nov 2026 at 10:01, Rookery <\nplay+tok@example.org> wrote:\n> Your move\nresign\n", "resign");
	expect_line("Rookery <play+tok@example.org>\nwrote:\n> Your move\nresign\n", "resign");
	/* French, German, Spanish, Yandex, Japanese Gmail */
	expect_line("Le dim. 22 nov. 2026 à 10:01, Rookery <play@example.org> a écrit :\n> Votre coup\nresign\n", "resign");
	expect_line("Le dim. 22 nov. 2026 à 10:01, Rookery <play@example.org> a\nécrit :\n> Votre coup\nresign\n", "resign");
	expect_line("Le 22/11/2026 à 10:01, Rookery a écrit\u00a0:\n> Votre coup\n\ndraw\n", "draw");
	expect_line("Am 22.11.2026 um 10:01 schrieb Rookery <play@example.org>:\n> Ihr Zug\naccept draw\n", "accept draw");
	expect_line("Am So., 22. Nov. 2026 um 10:01 Uhr schrieb Rookery <play@example.org>:\n> Ihr Zug\n\ndraw\n", "draw");
	expect_line("El dom, 22 nov 2026 a las 10:01, Rookery (<play@example.org>) escribió:\n> Tu jugada\nresign\n", "resign");
	expect_line("22.11.2026, 10:01, \"Rookery\" <play@example.org>:\n> Ваш ход\nresign\n", "resign");
	expect_line("2026年11月22日(日) 10:01 Rookery <play@example.org>:\n\n> 手番です\n\nresign\n", "resign");
	/* an attribution followed by text that is not quoted ends the reply */
	expect_line("On Sun, 22 Nov 2026 at 10:01, Rookery <play@example.org> wrote:\n\nYour move. e.g. S 7 1 6 1\n", NULL);
	expect_line("    On Sunday, 22 November 2026, Rookery <play@example.org> wrote:\n \n Your move\n", NULL);
	expect_line("On Sun, 22 Nov 2026, Rookery wrote:\n", NULL);
	expect_line("On Sun, 22 Nov 2026, Rookery wrote:\n\n\n", NULL);
	/* a reply line right above a complete attribution is not taken as its first half */
	expect_line("S 7 1 6 1\nOn Sun, 22 Nov 2026 at 10:01, Rookery <play@example.org> wrote:\n> x\n", "S 7 1 6 1");
	expect_line("S 7 1 6 1\nRookery wrote:\n> x\n", "S 7 1 6 1");
	expect_line("resign\nRookery <play@example.org>:\n> x\n", "resign");
	/* a quoted attribution is just quoted text */
	expect_line("> On 22 Nov 2026, at 10:01, Rookery <play@example.org> wrote:\n> \n> x\nresign\n", "resign");
	/* two quotes, replies interleaved: the first reply counts */
	expect_line("On Sun, X wrote:\n> a\n\nOn Mon, Y wrote:\n> b\n\nS 7 1 6 1\n", "S 7 1 6 1");
}

static void first_line_long(void **state)
{
	(void)state;
	char body[1200];
	memset(body, 'x', 1000);
	memcpy(body + 1000, "\nresign\n", 9);
	char *got = mail_first_line(body);
	assert_non_null(got);
	/* longer than the server accepts, returned all the same for it to refuse */
	assert_int_equal(strlen(got), 1000);
	assert_true(strlen(got) > MAIL_MAX_COMMAND);
	free(got);
}

/* ---- mail_reply_words ---- */

static void expect_words(const char *body, const char *want)
{
	char *got = mail_reply_words(body);
	if (!want && got)
		fail_msg("expected no words in:\n%s\ngot \"%s\"", body ? body : "(null)", got);
	if (want && (!got || strcmp(got, want) != 0))
		fail_msg("expected \"%s\" in:\n%s\ngot \"%s\"", want, body ? body : "(null)", got ? got : "(null)");
	free(got);
}

static void reply_words(void **state)
{
	(void)state;
	expect_words(NULL, NULL);
	expect_words("S 7 1 6 1\n", NULL);
	expect_words("S 7 1 6 1\n\n\n", NULL);
	expect_words("S 7 1 6 1\nWell played.\n", "Well played.");
	/* a blank line after the move shows; runs of blank lines become one; lines are trimmed */
	expect_words("S 7 1 6 1\r\n\r\n  One\t two \r\n\r\n\r\nThree\r\n\r\n", "\nOne  two\n\nThree");
	/* up to the quote, its attribution, a signature, a phone's signature, an Outlook header block */
	expect_words("S 7 1 6 1\nHi\n\nOn Sun, 22 Nov 2026, Rookery wrote:\n> quoted\n", "Hi");
	expect_words("S 7 1 6 1\nHi\n> quoted\n", "Hi");
	expect_words("S 7 1 6 1\nHi\n-- \nAnn\n", "Hi");
	expect_words("S 7 1 6 1\nHi\n\nSent from my phone\n", "Hi");
	expect_words("S 7 1 6 1\nHi\n-----Original Message-----\nFrom: x\n", "Hi");
	expect_words("S 7 1 6 1\nHi\nFrom: Rookery <a@b>\nSent: Sunday\n", "Hi");
	/* bottom-posting: the words below the move under the quote */
	expect_words("On Sun, X wrote:\n> a\n\nS 7 1 6 1\nbelow\n-- \nsig\n", "below");
}

/* ---- HTML ---- */

static char *html_line(const char *html)
{
	char *t = mail_html_to_text(html);
	char *l = mail_first_line(t);
	free(t);
	return l;
}

static void expect_html_line(const char *html, const char *want)
{
	char *got = html_line(html);
	if (!want && got)
		fail_msg("expected no command in:\n%s\ngot \"%s\"", html, got);
	if (want && (!got || strcmp(got, want) != 0))
		fail_msg("expected \"%s\" in:\n%s\ngot \"%s\"", want, html, got ? got : "(null)");
	free(got);
}

static void expect_html_text(const char *html, const char *want)
{
	char *got = mail_html_to_text(html);
	if (strcmp(got, want) != 0)
		fail_msg("HTML:\n%s\nexpected:\n%s\ngot:\n%s", html, want, got);
	free(got);
}

static void html_blocks(void **state)
{
	(void)state;
	expect_html_text("", "");
	expect_html_text("plain", "plain\n");
	expect_html_text("<p>a</p><p>b</p><div>c</div>d<br>e<ul><li>f</li><li>g</li></ul><h1>h</h1><H6>i</H6>"
	                 "<table><tr><td>j</td><td>k</td></tr><tr><td>l</td></tr></table>",
	                 "a\nb\nc\nd\ne\nf\ng\nh\ni\nj k\nl\n");
	expect_html_text("<div>  lots   of\n\n  space  </div>", "lots of space\n");
	expect_html_text("<div>a<br></div><div><br></div><div>b</div>", "a\n\nb\n");
	expect_html_text("<pre>  keep\n  this</pre>", "  keep\n  this\n");
	expect_html_text("<span>one</span> <b>two</b><o:p></o:p>", "one two\n");
	expect_html_text("a < b and c<d>e", "a < b and ce\n");
	expect_html_text("<img src=x alt=y><input value=z>word", "word\n");
}

static void html_dropped(void **state)
{
	(void)state;
	expect_html_text("<html><head><title>resign</title><meta charset=utf-8><style>p{}</style></head>"
	                 "<body><p>S 7 1 6 1</p></body></html>", "S 7 1 6 1\n");
	expect_html_text("<script>document.write('<p>resign</p>')</script><p>a</p>"
	                 "<SCRIPT type=x>if (a</b) x();</SCRIPT><style>a>b{}</style>b",
	                 "a\nb\n");
	expect_html_text("<!-- resign --><!--[if mso]>x<![endif]--><![if !vml]>c<![endif]><!DOCTYPE html>d", "cd\n");
	/* an unclosed head ends at <body> */
	expect_html_text("<head><title>t</title><body>move", "move\n");
	/* unterminated constructs end the input without reading past it */
	expect_html_text("a<!-- never closed", "a\n");
	expect_html_text("a<script>resign", "a\n");
	expect_html_text("a<div class=\"x", "a\n");
	expect_html_text("a<", "a<\n");
	expect_html_text("a&", "a&\n");
	expect_html_text("<p title='>'>b</p>", "b\n");
}

static void html_entities(void **state)
{
	(void)state;
	expect_html_text("&amp; &lt; &gt; &quot; &#39; &apos; &#65;&#x42;&#X43; &eacute;&hellip;",
	                 "& < > \" ' ' ABC \u00e9\u2026\n");
	expect_html_text("x&nbsp;y", "x\u00a0y\n");
	expect_html_text("&amp &lt &bogus; &#; &#xZZ; &ampere;", "& < &bogus; &#; &#xZZ; &ampere;\n");
	expect_html_text("&#0; &#xD800; &#x110000; &#99999999999;", "\ufffd \ufffd \ufffd \ufffd\n");
	expect_html_text("&lt;script&gt;resign&lt;/script&gt;", "<script>resign</script>\n");
	expect_html_line("<div>S&nbsp;7&#160;1 6&#xa0;1&nbsp;</div>", "S 7 1 6 1");
}

static void html_quotes(void **state)
{
	(void)state;
	/* Gmail */
	expect_html_text("<div dir=\"ltr\">S 7 1 6 1</div><br><div class=\"gmail_quote gmail_quote_container\">"
	                 "<div dir=\"ltr\" class=\"gmail_attr\">On Sun, 22 Nov 2026 at 10:01, Rookery &lt;play@example.org&gt; wrote:<br></div>"
	                 "<blockquote class=\"gmail_quote\" style=\"margin:0px\">Your move<br>e.g. resign</blockquote></div>",
	                 "S 7 1 6 1\n\n> On Sun, 22 Nov 2026 at 10:01, Rookery <play@example.org> wrote:\n> > Your move\n> > e.g. resign\n");
	expect_html_line("<div class=\"gmail_quote\"><div class=\"gmail_attr\">On Sun, Rookery wrote:</div>"
	                 "<blockquote>resign</blockquote></div>", NULL);
	/* Thunderbird, bottom-posted */
	expect_html_line("<div class=\"moz-cite-prefix\">On 22/11/2026 10:01, Rookery wrote:<br></div>"
	                 "<blockquote type=\"cite\">Your move<br>e.g. resign</blockquote><p>S 7 1 6 1</p>", "S 7 1 6 1");
	/* nested blockquotes */
	expect_html_text("<blockquote>a<blockquote>b</blockquote>c</blockquote>d",
	                 "> a\n> > b\n> c\nd\n");
	/* an unclosed blockquote quotes to the end */
	expect_html_line("<blockquote>Your move<p>resign", NULL);
	/* closing tags with no opener are ignored */
	expect_html_line("</blockquote></div><p>draw</p>", "draw");
	/* Outlook's x_ prefixed classes in quoted mail */
	expect_html_line("<div class=\"x_gmail_quote\">resign</div>", NULL);
}

static void html_outlook(void **state)
{
	(void)state;
	/* Outlook on the web: everything from the reply header on is the original */
	expect_html_text("<div>s 3 1 4 1</div><div id=\"appendonsend\"></div><hr>"
	                 "<div id=\"divRplyFwdMsg\"><b>From:</b> Rookery<br><b>Sent:</b> Sunday</div><div>Your move</div><p>resign</p>",
	                 "s 3 1 4 1\n> From: Rookery\n> Sent: Sunday\n> Your move\n> resign\n");
	expect_html_line("<div id=\"divRplyFwdMsg\"><b>From:</b> Rookery</div><p>resign</p>", NULL);
	expect_html_line("<div id=\"x_divRplyFwdMsg\">From: Rookery</div><p>resign</p>", NULL);
	/* Outlook desktop (Word) */
	expect_html_line("<p class=MsoNormal><o:p>&nbsp;</o:p></p>"
	                 "<div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'>"
	                 "<p class=MsoNormal><b>From:</b> Rookery</p></div><p>resign</p>", NULL);
	expect_html_line("<p class=MsoNormal>draw<o:p></o:p></p>"
	                 "<div style=\"border:none; border-top:solid #B5C4DF 1.0pt; padding:3.0pt 0in 0in 0in\">"
	                 "<p><b>From:</b> Rookery</p></div>", "draw");
	/* other borders are not separators */
	expect_html_line("<div style=\"border-top: 1px dashed red\">accept draw</div>", "accept draw");
}

static void html_hostile(void **state)
{
	(void)state;
	/* very deep nesting stays linear and does not recurse */
	size_t n = 60000;
	char *deep = malloc(n * 5 + n * 15 + 64);
	assert_non_null(deep);
	char *p = deep;
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "<div>");
	p += sprintf(p, "S 7 1 6 1");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "</span></div>");
	*p = '\0';
	char *l = html_line(deep);
	assert_non_null(l);
	assert_string_equal(l, "S 7 1 6 1");
	free(l);
	free(deep);

	char *many = malloc(200001);
	assert_non_null(many);
	memset(many, '<', 200000);
	many[200000] = '\0';
	char *t = mail_html_to_text(many);
	assert_true(strlen(t) == 200001);
	free(t);
	memset(many, '&', 200000);
	t = mail_html_to_text(many);
	free(t);
	free(many);
}

/* ---- mail_parse on built messages ---- */

/* msg parsed from an unterminated copy, so that reads past len are caught */
static int parse(const char *msg, mail_incoming *m)
{
	char why[256];
	size_t n = strlen(msg);
	char *copy = malloc(n ? n : 1);
	assert_non_null(copy);
	memcpy(copy, msg, n);
	int rc = mail_parse(copy, n, m, why);
	free(copy);
	return rc;
}

static void parse_errors(void **state)
{
	(void)state;
	mail_incoming m;
	char why[256];

	assert_int_equal(mail_parse("", 0, &m, why), MAIL_E_MALFORMED);
	assert_int_equal(mail_parse(NULL, 0, &m, why), MAIL_E_MALFORMED);
	assert_int_equal(mail_parse("x", 1, &m, NULL), MAIL_E_MALFORMED);
	assert_int_equal(parse("\r\n\r\nS 7 1 6 1\r\n", &m), MAIL_E_MALFORMED);
	assert_int_equal(parse("\nS 7 1 6 1\n", &m), MAIL_E_MALFORMED);
	assert_int_equal(parse("From mbox-line-only\n", &m), MAIL_E_MALFORMED);
	assert_int_equal(parse("just some words\nand more\n", &m), MAIL_E_MALFORMED);
	assert_null(m.text);

	/* the size is checked before anything is read */
	char *big = calloc(MAIL_MAX_BYTES + 1, 1);
	assert_non_null(big);
	assert_int_equal(mail_parse(big, MAIL_MAX_BYTES + 1, &m, why), MAIL_E_TOO_LARGE);
	assert_non_null(strstr(why, "262144"));
	/* exactly the limit is fine */
	const char *head = "From: a@example.org\nSubject: s\n\nS 7 1 6 1\n";
	memset(big, 'x', MAIL_MAX_BYTES);
	memcpy(big, head, strlen(head));
	assert_int_equal(mail_parse(big, MAIL_MAX_BYTES, &m, why), 0);
	assert_string_equal(m.command, "S 7 1 6 1");
	assert_true(strlen(m.text) <= MAIL_MAX_TEXT);
	mail_incoming_clear(&m);
	free(big);

	static const char nul_hdr[] = "From: a@example.org\nSubject: a\0b\n\nS 7 1 6 1\n";
	assert_int_equal(mail_parse(nul_hdr, sizeof nul_hdr - 1, &m, why), MAIL_E_BINARY);
	assert_null(m.from);
	assert_int_equal(parse("From: a@example.org\nSubject: a\x01\n\nx\n", &m), MAIL_E_BINARY);
	assert_int_equal(parse("From: a@example.org\nSubject: a\x1b[31m\n\nx\n", &m), MAIL_E_BINARY);
	assert_int_equal(parse("From: a@example.org\nSubject: a\rBcc: b@example.org\n\nx\n", &m), MAIL_E_BINARY);
	assert_int_equal(parse("From: a@example.org\nSubject: a\x7f\n\nx\n", &m), MAIL_E_BINARY);

	/* NUL in the body is not a header problem */
	static const char nul_body[] = "From: a@example.org\nSubject: a\n\nresign\n\0junk\n";
	assert_int_equal(mail_parse(nul_body, sizeof nul_body - 1, &m, why), 0);
	assert_string_equal(m.command, "resign");
	mail_incoming_clear(&m);
	/* 8-bit bytes in headers are not garbage (RFC 6532) */
	assert_int_equal(parse("From: Zo\xc3\xab <z@example.org>\nSubject: caf\xc3\xa9\n\ndraw\n", &m), 0);
	assert_string_equal(m.from_name, "Zo\u00eb");
	assert_string_equal(m.subject, "caf\u00e9");
	mail_incoming_clear(&m);
}

static void parse_headers(void **state)
{
	(void)state;
	mail_incoming m;

	assert_int_equal(parse("Delivered-To: Rookery@Mail.Example.org\n"
	                       "Delivered-To: play+tok@example.org\n"
	                       "X-Original-To: PLAY+TOK@example.org\n"
	                       "From: \"Lee, Ann\" <Ann.Lee@Example.org>\n"
	                       "To: Players: play+tok@example.org, b@example.org;, =?UTF-8?Q?Z=C3=B6e?= <z@example.org>\n"
	                       "Cc: b@example.org, c@example.org\n"
	                       "Subject: =?UTF-8?Q?Re=3A_caf=C3=A9?= =?UTF-8?Q?_time?=\n"
	                       "Message-ID:   <abc@example.org> (comment)\n"
	                       "In-Reply-To: (a comment) <n.1@rookery.example.org> <n.2@rookery.example.org>\n"
	                       "\n"
	                       "S 7 1 6 1\n", &m), 0);
	assert_string_equal(m.from, "Ann.Lee@Example.org");
	assert_string_equal(m.from_name, "Lee, Ann");
	assert_string_equal(m.subject, "Re: caf\u00e9 time");
	assert_string_equal(m.message_id, "abc@example.org");
	assert_string_equal(m.in_reply_to, "n.1@rookery.example.org");
	const char *want[] = {"rookery@mail.example.org", "play+tok@example.org", "b@example.org",
	                      "z@example.org", "c@example.org"};
	assert_int_equal(m.nrecipients, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(m.recipients[i], want[i]);
	mail_incoming_clear(&m);

	/* encoded control characters do not reach the caller */
	assert_int_equal(parse("From: =?UTF-8?Q?Eve=0D=0ABcc=3A_x?= <eve@example.org>\n"
	                       "Subject: =?UTF-8?Q?a=0D=0Ab=00c?=\n\nresign\n", &m), 0);
	assert_null(strpbrk(m.from_name, "\r\n"));
	assert_null(strpbrk(m.subject, "\r\n"));
	mail_incoming_clear(&m);

	/* missing headers are NULL, not empty */
	assert_int_equal(parse("X-Thing: 1\n\ndraw\n", &m), 0);
	assert_null(m.from);
	assert_null(m.from_name);
	assert_null(m.subject);
	assert_null(m.message_id);
	assert_null(m.in_reply_to);
	assert_int_equal(m.nrecipients, 0);
	assert_string_equal(m.command, "draw");
	mail_incoming_clear(&m);

	/* an mbox "From " line is skipped, the obsolete "From :" header is not */
	assert_int_equal(parse("From ann@example.org Sun Nov 22 10:00:00 2026\nFrom: ann@example.org\n\ndraw\n", &m), 0);
	assert_string_equal(m.from, "ann@example.org");
	mail_incoming_clear(&m);
	assert_int_equal(parse("From : ann@example.org\nSubject: s\n\ndraw\n", &m), 0);
	assert_string_equal(m.from, "ann@example.org");
	assert_string_equal(m.command, "draw");
	mail_incoming_clear(&m);

	/* a From without a display name */
	assert_int_equal(parse("From: bare@example.org\n\ndraw\n", &m), 0);
	assert_string_equal(m.from, "bare@example.org");
	assert_null(m.from_name);
	mail_incoming_clear(&m);
}

static void parse_parts(void **state)
{
	(void)state;
	mail_incoming m;

	/* text/plain wins over text/html whatever their order */
	assert_int_equal(parse("From: a@example.org\nMIME-Version: 1.0\n"
	                       "Content-Type: multipart/alternative; boundary=b\n\n"
	                       "--b\nContent-Type: text/html\n\n<p>resign</p>\n"
	                       "--b\nContent-Type: text/plain\n\ndraw\n--b--\n", &m), 0);
	assert_string_equal(m.command, "draw");
	mail_incoming_clear(&m);

	/* multipart/related inside mixed, HTML only */
	assert_int_equal(parse("From: a@example.org\nMIME-Version: 1.0\n"
	                       "Content-Type: multipart/mixed; boundary=m\n\n"
	                       "--m\nContent-Type: multipart/related; boundary=r\n\n"
	                       "--r\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
	                       "PHA+UyA3IDEgNiAxPC9wPg==\n"
	                       "--r\nContent-Type: image/png\nContent-ID: <i@x>\n\nxx\n--r--\n--m--\n", &m), 0);
	assert_string_equal(m.command, "S 7 1 6 1");
	mail_incoming_clear(&m);

	/* the only text is an attachment, or inside an attached message: no text */
	assert_int_equal(parse("From: a@example.org\nMIME-Version: 1.0\n"
	                       "Content-Type: multipart/mixed; boundary=m\n\n"
	                       "--m\nContent-Type: text/plain\nContent-Disposition: attachment; filename=a.txt\n\nresign\n"
	                       "--m\nContent-Type: message/rfc822\n\nFrom: b@example.org\nSubject: old\n\nresign\n--m--\n", &m),
	                 MAIL_E_NO_TEXT);
	assert_string_equal(m.from, "a@example.org");
	assert_null(m.command);
	assert_null(m.text);
	mail_incoming_clear(&m);

	/* no Content-Type is text/plain us-ascii; 8-bit bytes then get a fallback charset */
	assert_int_equal(parse("From: a@example.org\n\nd\xe9" "cline draw?\n", &m), 0);
	assert_string_equal(m.command, "d\u00e9cline draw?");
	mail_incoming_clear(&m);

	/* a declared charset that is wrong does not give invalid UTF-8 */
	assert_int_equal(parse("From: a@example.org\nContent-Type: text/plain; charset=utf-8\n\n"
	                       "resign \xff\xfe\n", &m), 0);
	assert_non_null(m.command);
	assert_true(utf8_ok(m.command));
	assert_true(utf8_ok(m.text));
	mail_incoming_clear(&m);

	/* quoted-printable soft breaks and format=flowed with DelSp */
	assert_int_equal(parse("From: a@example.org\nMIME-Version: 1.0\n"
	                       "Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\n"
	                       "Content-Transfer-Encoding: quoted-printable\n\n"
	                       "acc=\nept =20\ndraw\n\n> quo =20\n> ted\n-- \nsig\n", &m), 0);
	assert_string_equal(m.command, "accept draw");
	assert_non_null(strstr(m.text, "\n> quo ted\n-- \nsig"));
	mail_incoming_clear(&m);
}

static void parse_text_limit(void **state)
{
	(void)state;
	mail_incoming m;
	size_t n = 20000;
	char *msg = malloc(64 + 2 * n);
	assert_non_null(msg);
	char *p = msg + sprintf(msg, "From: a@example.org\nContent-Type: text/plain; charset=utf-8\n\nx");
	for (size_t i = 0; i < n; i++) {
		*p++ = '\xc3';
		*p++ = '\xa9';
	}
	*p = '\0';
	assert_int_equal(parse(msg, &m), 0);
	/* cut on a character boundary, just under the limit */
	assert_true(strlen(m.text) <= MAIL_MAX_TEXT);
	assert_true(strlen(m.text) >= MAIL_MAX_TEXT - 1);
	assert_true(utf8_ok(m.text));
	/* the command is taken from the whole text, not the cut one */
	assert_int_equal(strlen(m.command), 1 + 2 * n);
	mail_incoming_clear(&m);
	free(msg);
}

static int group_setup(void **state)
{
	(void)state;
	return mail_parse_init();
}

static int group_teardown(void **state)
{
	(void)state;
	mail_parse_shutdown();
	return 0;
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(corpus_complete),
		cmocka_unit_test(first_line_blank),
		cmocka_unit_test(first_line_quotes),
		cmocka_unit_test(first_line_signature),
		cmocka_unit_test(first_line_outlook),
		cmocka_unit_test(first_line_attribution),
		cmocka_unit_test(first_line_long),
		cmocka_unit_test(reply_words),
		cmocka_unit_test(html_blocks),
		cmocka_unit_test(html_dropped),
		cmocka_unit_test(html_entities),
		cmocka_unit_test(html_quotes),
		cmocka_unit_test(html_outlook),
		cmocka_unit_test(html_hostile),
		cmocka_unit_test(parse_errors),
		cmocka_unit_test(parse_headers),
		cmocka_unit_test(parse_parts),
		cmocka_unit_test(parse_text_limit),
	};
	const size_t nfixed = sizeof fixed / sizeof *fixed;
	/* one test per corpus file, named after it */
	struct CMUnitTest tests[NCASES + sizeof fixed / sizeof *fixed];

	for (size_t i = 0; i < NCASES; i++)
		tests[i] = (struct CMUnitTest){cases[i].file, corpus_one, NULL, NULL, (void *)&cases[i]};
	memcpy(tests + NCASES, fixed, sizeof fixed);
	return _cmocka_run_group_tests("mail_parse", tests, NCASES + nfixed, group_setup, group_teardown);
}
