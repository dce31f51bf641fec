/* dice.h - committed, auditable server dice: HMAC-SHA256 of a secret seed and the seats' client seeds. */
#ifndef ROOKERY_DICE_H
#define ROOKERY_DICE_H

#include <stddef.h>
#include <stdint.h>

#define DICE_SEED_BYTES 32
#define DICE_COMMITMENT_HEX 65   /* 64 hex digits and a NUL */

/* The recipes, stored per game: a game keeps the recipe it was created with. */
#define DICE_V1 1                /* the server seed alone (games created before client seeds) */
#define DICE_V2 2                /* the server seed and every seat's client seed */
#define DICE_VERSION_CURRENT DICE_V2

/* Fill seed with fresh randomness from the operating system. */
void dice_new_seed(unsigned char seed[DICE_SEED_BYTES]);

/* The public commitment: lower-case hex SHA-256 of the seed. */
void dice_commitment(const unsigned char seed[DICE_SEED_BYTES], char out[DICE_COMMITMENT_HEX]);

/*
 * Version 1. Roll k (0-based) of ply p of game: a value in 1..sides, from
 * HMAC-SHA256(seed, "rookery-dice/v1|<game>|<ply>|<k>"), read as big-endian
 * 32-bit words; a word w is used when w < 2^32 - 2^32 mod sides (rejection,
 * so no value is favoured) and gives w mod sides + 1. If all eight words are
 * rejected, the message gets "|<attempt>" appended (attempt = 1, 2, ...).
 * sides must be 1..2^31.
 */
int dice_roll(const unsigned char seed[DICE_SEED_BYTES], const char *game,
	      int ply, int k, uint32_t sides);

/*
 * Version 2: as version 1, but the message is "rookery-dice/v2|<game>|<ply>|<k>"
 * followed, for each of the nseats seats in seat order, by "|<n>:<client seed>",
 * n being the seed's length in bytes in decimal ("|0:" for a seat without one,
 * client_seeds[i] NULL or ""); the length prefixes keep ("ab", "c") apart
 * from ("a", "bc"). "|<attempt>" comes after the seeds.
 */
int dice_roll_v2(const unsigned char seed[DICE_SEED_BYTES], const char *game,
		 const char *const client_seeds[], int nseats, int ply, int k, uint32_t sides);

/*
 * Whether text can be a client seed: 1 to max_len printable ASCII characters
 * (space to tilde). Returns 0 when it can, 1 when it is empty or too long, 2
 * when it holds anything else.
 */
int dice_client_seed_check(const char *text, size_t max_len);

#endif
