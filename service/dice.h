/* dice.h - committed, auditable server dice: HMAC-SHA256 of a secret seed. */
#ifndef ROOKERY_DICE_H
#define ROOKERY_DICE_H

#include <stddef.h>
#include <stdint.h>

#define DICE_SEED_BYTES 32
#define DICE_COMMITMENT_HEX 65   /* 64 hex digits and a NUL */

/* Fill seed with fresh randomness from the operating system. */
void dice_new_seed(unsigned char seed[DICE_SEED_BYTES]);

/* The public commitment: lower-case hex SHA-256 of the seed. */
void dice_commitment(const unsigned char seed[DICE_SEED_BYTES], char out[DICE_COMMITMENT_HEX]);

/*
 * Roll k (0-based) of ply p of game: a value in 1..sides, from
 * HMAC-SHA256(seed, "rookery-dice/v1|<game>|<ply>|<k>"), read as big-endian
 * 32-bit words; a word w is used when w < 2^32 - 2^32 mod sides (rejection,
 * so no value is favoured) and gives w mod sides + 1. If all eight words are
 * rejected, the message gets "|<attempt>" appended (attempt = 1, 2, ...).
 * sides must be 1..2^31.
 */
int dice_roll(const unsigned char seed[DICE_SEED_BYTES], const char *game,
	      int ply, int k, uint32_t sides);

#endif
