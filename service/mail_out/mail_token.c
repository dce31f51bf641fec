/* mail_token.c - reply addresses and unsubscribe links that carry a MAC: nothing to guess. */
#include "mail_out/mail.h"
#include "core/token.h"
#include "xalloc.h"

#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAC_CHARS 16   /* 80 bits */

/* The MAC of msg as MAC_CHARS characters of base32. */
static void mac_text(const unsigned char key[32], const char *msg, char out[MAC_CHARS + 1])
{
	static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	size_t len = strlen(msg);

	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, key, 32);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)msg, len);
	crypto_auth_hmacsha256_final(&st, mac);
	/* Five bits a character from the first 10 bytes. */
	for (int i = 0; i < MAC_CHARS; i++) {
		int bit = i * 5, byte = bit / 8, shift = bit % 8;
		unsigned v = (unsigned)mac[byte] << 8 | mac[byte + 1];
		out[i] = b32[(v >> (11 - shift)) & 31];
	}
	out[MAC_CHARS] = 0;
}

static void reply_mac(const unsigned char key[32], const char *game, int seat, int serial,
		      char out[MAC_CHARS + 1])
{
	char msg[96];

	snprintf(msg, sizeof msg, "rookery-reply/v1|%s|%d|%d", game, seat, serial);
	mac_text(key, msg, out);
}

void mail_token_make(const unsigned char key[32], const char *game, int seat, int serial,
		     char out[MAIL_TOKEN_TEXT])
{
	char mac[MAC_CHARS + 1];

	reply_mac(key, game, seat, serial, mac);
	snprintf(out, MAIL_TOKEN_TEXT, "%s-%d-%d-%s", game, seat, serial, mac);
}

int mail_token_check(const unsigned char key[32], const char *token, char *game, size_t game_size,
		     int *seat, int *serial)
{
	char copy[MAIL_TOKEN_TEXT], want[MAC_CHARS + 1];
	char *parts[4], *p, *save = NULL;
	int n = 0;

	if (!token || strlen(token) >= sizeof copy)
		return -1;
	snprintf(copy, sizeof copy, "%s", token);
	for (p = copy; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	for (p = strtok_r(copy, "-", &save); p && n < 4; p = strtok_r(NULL, "-", &save))
		parts[n++] = p;
	if (n != 4 || p || strlen(parts[0]) >= game_size || strlen(parts[3]) != MAC_CHARS)
		return -1;
	for (int i = 1; i <= 2; i++) {
		if (!*parts[i] || strlen(parts[i]) > 7 || strspn(parts[i], "0123456789") != strlen(parts[i]))
			return -1;
	}
	*seat = atoi(parts[1]);
	*serial = atoi(parts[2]);
	reply_mac(key, parts[0], *seat, *serial, want);
	if (sodium_memcmp(want, parts[3], MAC_CHARS) != 0)
		return -1;
	snprintf(game, game_size, "%s", parts[0]);
	return 0;
}

char *mail_reply_address(const mail_config *mc, const char *token)
{
	return xasprintf("play+%s@%s", token, mc->reply_domain);
}

int mail_token_from_address(const mail_config *mc, const char *address, char out[MAIL_TOKEN_TEXT])
{
	const char *at = strrchr(address, '@');
	size_t len;

	if (!at || strncasecmp(address, "play+", 5) != 0 || strcasecmp(at + 1, mc->reply_domain) != 0)
		return -1;
	len = (size_t)(at - address) - 5;
	if (len == 0 || len >= MAIL_TOKEN_TEXT)
		return -1;
	memcpy(out, address + 5, len);
	out[len] = 0;
	return 0;
}

static void stop_mac(const unsigned char key[32], long long id, char out[MAC_CHARS + 1])
{
	char msg[64];

	snprintf(msg, sizeof msg, "rookery-stop/v1|%lld", id);
	mac_text(key, msg, out);
}

void mail_stop_token_make(const unsigned char key[32], long long address_id, char out[MAIL_TOKEN_TEXT])
{
	char mac[MAC_CHARS + 1];

	stop_mac(key, address_id, mac);
	snprintf(out, MAIL_TOKEN_TEXT, "%lld-%s", address_id, mac);
}

int mail_stop_token_check(const unsigned char key[32], const char *token, long long *address_id)
{
	char want[MAC_CHARS + 1];
	size_t digits = strspn(token, "0123456789");

	/* One spelling per address: no leading zeros. */
	if (digits == 0 || digits > 15 || (digits > 1 && token[0] == '0') || token[digits] != '-' ||
	    strlen(token + digits + 1) != MAC_CHARS)
		return -1;
	*address_id = atoll(token);
	stop_mac(key, *address_id, want);
	return sodium_memcmp(want, token + digits + 1, MAC_CHARS) == 0 ? 0 : -1;
}
