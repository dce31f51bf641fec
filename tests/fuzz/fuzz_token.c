/* fuzz_token.c - reply-address and unsubscribe tokens (mail_token.c) and seat tokens (token.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "core/token.h"
#include "mail_out/mail.h"

static const unsigned char key[32] = "0123456789abcdef0123456789abcde";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int started;
	char game[33], tok[MAIL_TOKEN_TEXT], out[MAIL_TOKEN_TEXT];
	char *text;
	int seat, ply;
	mail_config mc = { .reply_domain = "reply.example.org" };

	if (!started) {
		if (sodium_init() < 0)
			abort();
		started = 1;
	}
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;

	if (mail_token_check(key, text, game, sizeof game, &seat, &ply) == 0 && strlen(game) >= sizeof game)
		abort();
	if (mail_token_from_address(&mc, text, out) == 0) {
		if (strlen(out) >= MAIL_TOKEN_TEXT)
			abort();
		(void)mail_token_check(key, out, game, sizeof game, &seat, &ply);
	}
	(void)token_well_formed(text);

	/* An unsubscribe token: only one made with the key checks, and it names its address. */
	long long id;
	if (mail_stop_token_check(key, text, &id) == 0) {
		mail_stop_token_make(key, id, tok);
		if (strcmp(tok, text) != 0)
			abort();
	}
	mail_stop_token_make(key, (long long)size * 7919, tok);
	if (mail_stop_token_check(key, tok, &id) != 0 || id != (long long)size * 7919)
		abort();

	/* A token made for a plausible game id (the input, if it is one) checks back. */
	size_t n = strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789");
	if (n > 0 && n <= 16 && text[n] == 0) {
		mail_token_make(key, text, (int)(size % 4), (int)size * 7, tok);
		if (mail_token_check(key, tok, game, sizeof game, &seat, &ply) != 0 || strcmp(game, text) != 0 ||
		    seat != (int)(size % 4) || ply != (int)size * 7)
			abort();
		char *addr = mail_reply_address(&mc, tok);
		if (mail_token_from_address(&mc, addr, out) != 0 || strcmp(out, tok) != 0)
			abort();
		free(addr);
	}
	free(text);
	return 0;
}
