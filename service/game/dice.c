/* dice.c - the roll function and seed commitment; the recipe is in dice.h and the README. */
#include "game/dice.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

void dice_new_seed(unsigned char seed[DICE_SEED_BYTES])
{
	randombytes_buf(seed, DICE_SEED_BYTES);
}

void dice_commitment(const unsigned char seed[DICE_SEED_BYTES], char out[DICE_COMMITMENT_HEX])
{
	unsigned char hash[crypto_hash_sha256_BYTES];

	crypto_hash_sha256(hash, seed, DICE_SEED_BYTES);
	sodium_bin2hex(out, DICE_COMMITMENT_HEX, hash, sizeof hash);
}

static void put(crypto_auth_hmacsha256_state *st, const char *s, size_t n)
{
	crypto_auth_hmacsha256_update(st, (const unsigned char *)s, n);
}

/* Start the MAC of "rookery-dice/<version>|<game>|<ply>|<k>". */
static void begin(crypto_auth_hmacsha256_state *st, const unsigned char seed[DICE_SEED_BYTES],
		  const char *version, const char *game, int ply, int k)
{
	char nums[32];
	int n = snprintf(nums, sizeof nums, "|%d|%d", ply, k);

	crypto_auth_hmacsha256_init(st, seed, DICE_SEED_BYTES);
	put(st, "rookery-dice/", 13);
	put(st, version, strlen(version));
	put(st, "|", 1);
	put(st, game, strlen(game));
	put(st, nums, (size_t)n);
}

/* Finish the roll from a MAC that has taken the message: rejection over its words, then retries. */
static int finish(crypto_auth_hmacsha256_state *base, uint32_t sides)
{
	/* Values at or above limit would make the low residues more likely. */
	uint64_t limit = (UINT64_C(1) << 32) - ((UINT64_C(1) << 32) % sides);
	int value = 0;

	for (int attempt = 0; !value; attempt++) {
		crypto_auth_hmacsha256_state st = *base;
		unsigned char mac[crypto_auth_hmacsha256_BYTES];

		if (attempt) {
			char suffix[16];
			put(&st, suffix, (size_t)snprintf(suffix, sizeof suffix, "|%d", attempt));
		}
		crypto_auth_hmacsha256_final(&st, mac);
		for (size_t i = 0; !value && i + 4 <= sizeof mac; i += 4) {
			uint32_t w = (uint32_t)mac[i] << 24 | (uint32_t)mac[i + 1] << 16 |
				     (uint32_t)mac[i + 2] << 8 | mac[i + 3];
			if (w < limit)
				value = (int)(w % sides) + 1;
		}
	}
	/* The state is derived from the secret seed. */
	sodium_memzero(base, sizeof *base);
	return value;
}

int dice_roll(const unsigned char seed[DICE_SEED_BYTES], const char *game,
	      int ply, int k, uint32_t sides)
{
	crypto_auth_hmacsha256_state st;

	begin(&st, seed, "v1", game, ply, k);
	return finish(&st, sides);
}

int dice_roll_v2(const unsigned char seed[DICE_SEED_BYTES], const char *game,
		 const char *const client_seeds[], int nseats, int ply, int k, uint32_t sides)
{
	crypto_auth_hmacsha256_state st;

	begin(&st, seed, "v2", game, ply, k);
	for (int i = 0; i < nseats; i++) {
		const char *c = client_seeds[i] ? client_seeds[i] : "";
		char len[24];
		put(&st, len, (size_t)snprintf(len, sizeof len, "|%zu:", strlen(c)));
		put(&st, c, strlen(c));
	}
	return finish(&st, sides);
}

int dice_client_seed_check(const char *text, size_t max_len)
{
	size_t n = text ? strlen(text) : 0;

	if (n == 0 || n > max_len)
		return 1;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return 2;
	return 0;
}
