/* token.c - secrets for seats and forms, all through libsodium. */
#include "core/token.h"

#include <sodium.h>
#include <string.h>

void token_new(char out[TOKEN_TEXT])
{
	unsigned char raw[TOKEN_RAW_BYTES];

	randombytes_buf(raw, sizeof raw);
	sodium_bin2base64(out, TOKEN_TEXT, raw, sizeof raw, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	sodium_memzero(raw, sizeof raw);
}

void token_hash(const char *token, unsigned char out[TOKEN_HASH_BYTES])
{
	crypto_hash_sha256(out, (const unsigned char *)token, strlen(token));
}

int token_well_formed(const char *text)
{
	size_t n = 0;

	if (!text)
		return 0;
	for (; text[n]; n++) {
		char c = text[n];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_'))
			return 0;
	}
	return n == TOKEN_TEXT - 1;
}

void token_form(const unsigned char key[32], const char *token, char out[FORM_TOKEN_TEXT])
{
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	crypto_auth_hmacsha256_state st;

	crypto_auth_hmacsha256_init(&st, key, 32);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)"rookery-form/v1|", 16);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)token, strlen(token));
	crypto_auth_hmacsha256_final(&st, mac);
	sodium_bin2hex(out, FORM_TOKEN_TEXT, mac, sizeof mac);
}

int token_form_ok(const unsigned char key[32], const char *token, const char *submitted)
{
	char want[FORM_TOKEN_TEXT];

	if (!submitted || strlen(submitted) != FORM_TOKEN_TEXT - 1)
		return 0;
	token_form(key, token, want);
	return sodium_memcmp(want, submitted, FORM_TOKEN_TEXT - 1) == 0;
}
