/* dice.c - the roll function and seed commitment; the recipe is in dice.h and the README. */
#include "dice.h"

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

int dice_roll(const unsigned char seed[DICE_SEED_BYTES], const char *game,
	      int ply, int k, uint32_t sides)
{
	/* Values at or above limit would make the low residues more likely. */
	uint64_t limit = (UINT64_C(1) << 32) - ((UINT64_C(1) << 32) % sides);

	for (int attempt = 0;; attempt++) {
		char msg[160];
		unsigned char mac[crypto_auth_hmacsha256_BYTES];
		int len;

		if (attempt == 0)
			len = snprintf(msg, sizeof msg, "rookery-dice/v1|%s|%d|%d", game, ply, k);
		else
			len = snprintf(msg, sizeof msg, "rookery-dice/v1|%s|%d|%d|%d", game, ply, k, attempt);
		crypto_auth_hmacsha256_state st;
		crypto_auth_hmacsha256_init(&st, seed, DICE_SEED_BYTES);
		crypto_auth_hmacsha256_update(&st, (const unsigned char *)msg, (size_t)len);
		crypto_auth_hmacsha256_final(&st, mac);
		for (size_t i = 0; i + 4 <= sizeof mac; i += 4) {
			uint32_t w = (uint32_t)mac[i] << 24 | (uint32_t)mac[i + 1] << 16 |
				     (uint32_t)mac[i + 2] << 8 | mac[i + 3];
			if (w < limit)
				return (int)(w % sides) + 1;
		}
	}
}
