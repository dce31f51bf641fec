/* test_dice.c - the dice recipe against vectors computed independently (Python's hmac module). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sodium.h>
#include <string.h>

#include "dice.h"

static const unsigned char seed[32] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
};

static void commitment_is_sha256_of_seed(void **state)
{
	char hex[DICE_COMMITMENT_HEX];
	(void)state;

	dice_commitment(seed, hex);
	assert_string_equal(hex, "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
}

static void vectors(void **state)
{
	(void)state;
	/* python3: hmac.new(bytes(range(32)), b"rookery-dice/v1|<game>|<ply>|<k>", sha256) ... */
	assert_int_equal(dice_roll(seed, "bcdfgh234567", 0, 0, 6), 5);
	assert_int_equal(dice_roll(seed, "bcdfgh234567", 0, 1, 6), 4);
	assert_int_equal(dice_roll(seed, "bcdfgh234567", 7, 0, 12), 9);
	assert_int_equal(dice_roll(seed, "bcdfgh234567", 7, 1, 12), 4);
	assert_int_equal(dice_roll(seed, "bcdfgh234567", 41, 2, 12), 4);
	assert_int_equal(dice_roll(seed, "x", 3, 0, 2), 1);
	assert_int_equal(dice_roll(seed, "x", 3, 0, 1000000007u), 869718440);
}

/* With sides = 2^31 + 1 about half of all words are rejected, so both escape paths run. */
static void rejection_paths(void **state)
{
	uint32_t sides = (UINT32_C(1) << 31) + 1;
	(void)state;

	assert_int_equal(dice_roll(seed, "x", 0, 0, sides), 274154855);   /* first word rejected */
	assert_int_equal(dice_roll(seed, "x", 88, 0, sides), 240175751);  /* all eight rejected: attempt 1 */
}

/* The first word, mapped by hand from libsodium's one-shot HMAC, agrees with dice_roll. */
static void matches_one_shot_hmac(void **state)
{
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	const char *msg = "rookery-dice/v1|game|5|0";
	(void)state;

	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, seed, sizeof seed);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)msg, strlen(msg));
	crypto_auth_hmacsha256_final(&st, mac);
	uint32_t w = (uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3];
	/* For a d12 the limit is 2^32 - 4: the first word is all but certainly used. */
	assert_true(w < UINT32_MAX - 3);
	assert_int_equal(dice_roll(seed, "game", 5, 0, 12), (int)(w % 12) + 1);
}

/* Every face of a d12 comes up, and nothing outside 1..12. */
static void range_and_spread(void **state)
{
	int seen[13] = {0};
	(void)state;

	for (int k = 0; k < 1200; k++) {
		int v = dice_roll(seed, "spread", 1, k, 12);
		assert_in_range(v, 1, 12);
		seen[v]++;
	}
	for (int v = 1; v <= 12; v++)
		assert_in_range(seen[v], 50, 150);
}

static void fresh_seeds_differ(void **state)
{
	unsigned char a[DICE_SEED_BYTES], b[DICE_SEED_BYTES];
	(void)state;

	dice_new_seed(a);
	dice_new_seed(b);
	assert_memory_not_equal(a, b, DICE_SEED_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commitment_is_sha256_of_seed),
		cmocka_unit_test(vectors),
		cmocka_unit_test(rejection_paths),
		cmocka_unit_test(matches_one_shot_hmac),
		cmocka_unit_test(range_and_spread),
		cmocka_unit_test(fresh_seeds_differ),
	};
	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
