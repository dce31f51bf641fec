/* test_mail.c - reply tokens, the composer (read back with the parser), and the maildir writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/token.h"
#include "mail_in/mail_parse.h"
#include "mail_out/mail.h"
#include "mail_out/mail_compose.h"
#include "mail_out/maildir.h"

static const unsigned char key[32] = {1, 2, 3};
static mail_config mc = {.from = "rookery@rook.test", .reply_domain = "rook.test"};

static void token_round_trip(void **state)
{
	char token[MAIL_TOKEN_TEXT], game[33];
	int seat, ply;
	(void)state;

	mail_token_make(key, "bcdfgh234567", 1, 42, token);
	assert_int_equal(mail_token_check(key, token, game, sizeof game, &seat, &ply), 0);
	assert_string_equal(game, "bcdfgh234567");
	assert_int_equal(seat, 1);
	assert_int_equal(ply, 42);
	/* Mail systems may fold the case of the local part. */
	for (char *p = token; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	assert_int_equal(mail_token_check(key, token, game, sizeof game, &seat, &ply), 0);
	assert_string_equal(game, "bcdfgh234567");
}

static void token_tampering(void **state)
{
	char token[MAIL_TOKEN_TEXT], forged[MAIL_TOKEN_TEXT], game[33];
	unsigned char other[32] = {9};
	int seat, ply;
	(void)state;

	mail_token_make(key, "bcdfgh234567", 0, 7, token);
	/* Another ply or seat with the same mac. */
	snprintf(forged, sizeof forged, "bcdfgh234567-0-8%s", strrchr(token, '-'));
	assert_int_equal(mail_token_check(key, forged, game, sizeof game, &seat, &ply), -1);
	snprintf(forged, sizeof forged, "bcdfgh234567-1-7%s", strrchr(token, '-'));
	assert_int_equal(mail_token_check(key, forged, game, sizeof game, &seat, &ply), -1);
	/* Another key. */
	assert_int_equal(mail_token_check(other, token, game, sizeof game, &seat, &ply), -1);
	/* One character of the mac changed. */
	snprintf(forged, sizeof forged, "%s", token);
	char *last = forged + strlen(forged) - 1;
	*last = *last == 'a' ? 'b' : 'a';
	assert_int_equal(mail_token_check(key, forged, game, sizeof game, &seat, &ply), -1);
	/* Shapes that are not tokens at all. */
	const char *bad[] = {"", "x", "a-b-c-d", "bcdfgh234567-0-7", "bcdfgh234567--7-aaaaaaaaaaaaaaaa",
			     "bcdfgh234567-0-7-aaaaaaaaaaaaaaaa-x", "bcdfgh234567-+1-7-aaaaaaaaaaaaaaaa",
			     "bcdfgh234567-0-99999999-aaaaaaaaaaaaaaaa"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(mail_token_check(key, bad[i], game, sizeof game, &seat, &ply), -1);
}

/* Unsubscribe links: one spelling per address, made only with the key. */
static void stop_tokens(void **state)
{
	char token[MAIL_TOKEN_TEXT], forged[MAIL_TOKEN_TEXT + 8];
	unsigned char other[32] = {9};
	long long id = 0;
	(void)state;

	mail_stop_token_make(key, 42, token);
	assert_int_equal(strncmp(token, "42-", 3), 0);
	assert_int_equal(strlen(token), 3 + 16);
	assert_int_equal(mail_stop_token_check(key, token, &id), 0);
	assert_int_equal(id, 42);
	assert_int_equal(mail_stop_token_check(other, token, &id), -1);
	/* The same mac on another address, or with the number spelt otherwise. */
	snprintf(forged, sizeof forged, "43%s", token + 2);
	assert_int_equal(mail_stop_token_check(key, forged, &id), -1);
	snprintf(forged, sizeof forged, "042%s", token + 2);
	assert_int_equal(mail_stop_token_check(key, forged, &id), -1);
	const char *bad[] = {"", "-", "42", "42-", "x-aaaaaaaaaaaaaaaa", "42-aaaaaaaaaaaaaaa",
			     "42-aaaaaaaaaaaaaaaaa", "1234567890123456-aaaaaaaaaaaaaaaa"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(mail_stop_token_check(key, bad[i], &id), -1);
}

static void reply_addresses(void **state)
{
	char token[MAIL_TOKEN_TEXT];
	char *addr = mail_reply_address(&mc, "g-0-1-abc");
	(void)state;

	assert_string_equal(addr, "play+g-0-1-abc@rook.test");
	assert_int_equal(mail_token_from_address(&mc, addr, token), 0);
	assert_string_equal(token, "g-0-1-abc");
	assert_int_equal(mail_token_from_address(&mc, "PLAY+g-0-1-abc@ROOK.TEST", token), 0);
	assert_int_equal(mail_token_from_address(&mc, "play+g-0-1-abc@other.test", token), -1);
	assert_int_equal(mail_token_from_address(&mc, "ann@rook.test", token), -1);
	assert_int_equal(mail_token_from_address(&mc, "play+@rook.test", token), -1);
	free(addr);
}

/* What the composer writes, the parser reads back: names, subject, threading, text. */
static void compose_then_parse(void **state)
{
	mail_out m = {
		.to_name = "Zoë Ärger", .to_addr = "zoe@example.org", .reply_to = "play+t-0-1-x@rook.test",
		.subject = "[Rookery] Nchess game g: Zoë vs Ben", .message_id = "g.0.x@rook.test",
		.in_reply_to = "g.0.invite@rook.test", .references = "g.0.invite@rook.test",
		.text = "Hello Zoë,\n\n.a line starting with a dot\nS 7 1 6 1\n", .with_html = 1,
	};
	mail_incoming in = {0};
	char why[256];
	(void)state;

	char *msg = mail_compose(&mc, &m);
	assert_non_null(strstr(msg, "Auto-Submitted: auto-generated"));
	assert_non_null(strstr(msg, "Message-Id: <g.0.x@rook.test>"));
	assert_non_null(strstr(msg, "In-Reply-To: <g.0.invite@rook.test>"));
	assert_non_null(strstr(msg, "References: <g.0.invite@rook.test>"));
	assert_non_null(strstr(msg, "multipart/alternative"));
	assert_true(!strncmp(msg, "Date: ", 6) || strstr(msg, "\nDate: "));
	/* Non-ASCII never travels raw in headers. */
	char *body = strstr(msg, "\n\n");
	for (const char *p = msg; p < body; p++)
		assert_true((unsigned char)*p < 0x80);
	assert_int_equal(mail_parse(msg, strlen(msg), &in, why), 0);
	assert_string_equal(in.subject, "[Rookery] Nchess game g: Zoë vs Ben");
	assert_string_equal(in.message_id, "g.0.x@rook.test");
	assert_string_equal(in.in_reply_to, "g.0.invite@rook.test");
	assert_string_equal(in.from, "rookery@rook.test");
	assert_string_equal(in.recipients[0], "zoe@example.org");
	assert_non_null(strstr(in.text, "Hello Zoë,"));
	assert_non_null(strstr(in.text, ".a line starting with a dot"));
	assert_string_equal(in.command, "Hello Zoë,");
	mail_incoming_clear(&in);
	free(msg);
}

/* The HTML part of a composed message, quoted-printable decoded; malloc'd. */
static char *html_part(const char *msg)
{
	const char *p = strstr(msg, "Content-Type: text/html");
	char *out, *o;

	assert_non_null(p);
	p = strstr(p, "\n\n");
	assert_non_null(p);
	p += 2;
	out = o = malloc(strlen(p) + 1);
	while (*p && strncmp(p, "\n--", 3)) {
		if (p[0] == '=' && p[1] == '\n') {
			p += 2;
		} else if (p[0] == '=' && p[1] && p[2]) {
			char hex[3] = {p[1], p[2], 0};
			*o++ = (char)strtol(hex, NULL, 16);
			p += 3;
		} else {
			*o++ = *p++;
		}
	}
	*o = 0;
	return out;
}

/* HTML mails link Rookery's own links only: never a name, never quoted text. */
static void html_links_only_our_own(void **state)
{
	mail_config own = mc;
	mail_out m = {
		.to_name = "http://evil.example/", .to_addr = "zoe@example.org", .subject = "[Rookery] game g",
		.message_id = "g.1.x@rook.test", .with_html = 1,
		.text = "Hello http://evil.example/,\n\n"
			"http://evil.example/ (South) offers a draw in Nchess game g.\n"
			"evil.example (North) played S 7 1 6 1.\n"
			"Hello https://rook.test/games/g?seat=planted,\n"
			"x: https://rook.test/rules/planted (South) resigned.\n"
			"\nPlay in the browser (this link is yours alone):\nhttps://rook.test/games/g?seat=abc&x=1\n"
			"Rules of Nchess: https://rook.test/rules/nchess\n"
			"\nYou wrote:\n\n> https://rook.test/games/g?seat=quoted\n> see: https://rook.test/quoted\n"
			"> http://evil.example/\n",
	};
	(void)state;

	own.link_base = "https://rook.test";
	char *msg = mail_compose(&own, &m), *html = html_part(msg);
	/* Exactly the two links Rookery wrote, whole. */
	assert_non_null(strstr(html, "<a href=\"https://rook.test/games/g?seat=abc&amp;x=1\">"));
	assert_non_null(strstr(html, "<a href=\"https://rook.test/rules/nchess\">https://rook.test/rules/nchess</a>"));
	int links = 0;
	for (const char *a = html; (a = strstr(a, "<a ")); a++) {
		const char *end = strstr(a, "</a>");
		assert_non_null(end);
		char *inside = strndup(a, (size_t)(end - a));
		assert_null(strstr(inside, "evil"));
		assert_null(strstr(inside, "planted"));
		assert_null(strstr(inside, "quoted"));
		free(inside);
		links++;
	}
	assert_int_equal(links, 2);
	/* The names are there, as text. */
	assert_non_null(strstr(html, "Hello http://evil.example/,"));
	assert_non_null(strstr(html, "evil.example (North) played"));
	free(html);
	free(msg);
	/* Without a base URL nothing is linked. */
	msg = mail_compose(&mc, &m);
	html = html_part(msg);
	assert_null(strstr(html, "<a "));
	free(html);
	free(msg);
}

static void maildir_writes_whole_files(void **state)
{
	char dir[] = "/tmp/rookery-test-maildir-XXXXXX", why[256], path[512];
	const char *msg = "From: a@b.c\nSubject: x\n\nbody\n";
	int files = 0;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/box", dir);
	assert_int_equal(maildir_deliver(path, 7, msg, why, sizeof why), 0);
	assert_int_equal(maildir_deliver(path, 8, msg, why, sizeof why), 0);
	snprintf(path, sizeof path, "%s/box/new", dir);
	DIR *d = opendir(path);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char file[1024], got[256] = {0};
		snprintf(file, sizeof file, "%s/%s", path, e->d_name);
		FILE *f = fopen(file, "r");
		assert_non_null(f);
		assert_int_equal(fread(got, 1, sizeof got - 1, f), strlen(msg));
		fclose(f);
		assert_string_equal(got, msg);
		unlink(file);
		files++;
	}
	closedir(d);
	assert_int_equal(files, 2);
	snprintf(path, sizeof path, "%s/box/tmp", dir);
	d = opendir(path);
	int leftovers = 0;
	for (struct dirent *e; (e = readdir(d));)
		leftovers += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(leftovers, 0);
	const char *subs[] = {"/box/tmp", "/box/new", "/box/cur", "/box", ""};
	for (size_t i = 0; i < 5; i++) {
		snprintf(path, sizeof path, "%s%s", dir, subs[i]);
		rmdir(path);
	}
	/* A maildir that cannot be created is an error with a reason, not a crash. */
	assert_int_equal(maildir_deliver("/proc/rookery-no/such", 1, msg, why, sizeof why), -1);
	assert_non_null(strstr(why, "cannot create"));
}

/* The board table goes into the HTML part right after the text's board, the whole text kept around it. */
static void html_board_after_text_board(void **state)
{
	mail_out m = {
		.to_addr = "zoe@example.org", .subject = "[Rookery] game g", .message_id = "g.2.x@rook.test",
		.with_html = 1, .text = "Hello Zo\xc3\xab,\n\n  1 2\n1 c .\n2 . C\n\nTo move, reply <here>.\n",
		.html_board = "<table><tr><td data-square=\"1 1\">c</td></tr></table>\n", .board_after = "  1 2\n1 c .\n2 . C\n",
	};
	(void)state;

	char *msg = mail_compose(&mc, &m), *html = html_part(msg);
	const char *board = strstr(html, "2 . C\n</pre>"), *table = strstr(html, "<table>"),
		   *rest = strstr(html, "<pre style=\"font-family:monospace\">\nTo move, reply &lt;here&gt;.\n</pre>");
	assert_non_null(board);
	assert_non_null(table);
	assert_non_null(rest);
	assert_true(board < table && table < rest);
	free(html);
	free(msg);
	/* Without its board text in the mail, the table goes last. */
	m.board_after = "not in the text";
	msg = mail_compose(&mc, &m);
	html = html_part(msg);
	assert_non_null(strstr(html, "&lt;here&gt;.\n</pre>\n<table>"));
	free(html);
	free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(token_round_trip),
		cmocka_unit_test(token_tampering),
		cmocka_unit_test(stop_tokens),
		cmocka_unit_test(reply_addresses),
		cmocka_unit_test(compose_then_parse),
		cmocka_unit_test(html_links_only_our_own),
		cmocka_unit_test(html_board_after_text_board),
		cmocka_unit_test(maildir_writes_whole_files),
	};
	if (sodium_init() < 0)
		return 1;
	mail_compose_init();
	mail_parse_init();
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	mail_parse_shutdown();
	mail_compose_shutdown();
	return r;
}
