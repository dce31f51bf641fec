/* test_dice.c - the dice recipes (v1, v2 with client seeds) against vectors computed independently (Python's hmac module). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sodium.h>
#include <string.h>

#include "core/limits.h"
#include "game/dice.h"

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

/* A d12 from the first word of libsodium's one-shot HMAC of msg, mapped by hand. */
static int first_word_d12(const char *msg)
{
	unsigned char mac[crypto_auth_hmacsha256_BYTES];

	crypto_auth_hmacsha256(mac, (const unsigned char *)msg, strlen(msg), seed);
	uint32_t w = (uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3];
	/* For a d12 the limit is 2^32 - 4: the first word is all but certainly used. */
	assert_true(w < UINT32_MAX - 3);
	return (int)(w % 12) + 1;
}

/* The message written out, through the one-shot HMAC, agrees with dice_roll. */
static void matches_one_shot_hmac(void **state)
{
	(void)state;
	assert_int_equal(dice_roll(seed, "game", 5, 0, 12), first_word_d12("rookery-dice/v1|game|5|0"));
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

/*
 * Version 2 vectors, from this independent model (python3):
 *
 *   def roll(game, ply, k, sides, seeds):
 *       limit, attempt = 2**32 - 2**32 % sides, 0
 *       while True:
 *           msg = f"rookery-dice/v2|{game}|{ply}|{k}" + "".join(f"|{len(c.encode())}:{c}" for c in seeds)
 *           msg += f"|{attempt}" if attempt else ""
 *           mac = hmac.new(bytes(range(32)), msg.encode(), hashlib.sha256).digest()
 *           for i in range(0, 32, 4):
 *               w = int.from_bytes(mac[i:i + 4], "big")
 *               if w < limit:
 *                   return w % sides + 1
 *           attempt += 1
 */
static void v2_vectors(void **state)
{
	static const char *const none[] = {NULL, NULL}, *const empty[] = {"", ""};
	static const char *const ab[] = {"alpha", "beta"};
	static const char *const four[] = {"South seed", NULL, "n0rth!~ ", "e"};
	const char *g = "bcdfgh234567";
	(void)state;

	assert_int_equal(dice_roll_v2(seed, g, none, 2, 0, 0, 12), 12);
	assert_int_equal(dice_roll_v2(seed, g, none, 2, 7, 1, 12), 2);
	assert_int_equal(dice_roll_v2(seed, g, none, 2, 41, 2, 6), 3);
	assert_int_equal(dice_roll_v2(seed, g, empty, 2, 3, 0, UINT32_C(1) << 31), 1577617798);
	assert_int_equal(dice_roll_v2(seed, g, ab, 2, 0, 0, 12), 2);
	assert_int_equal(dice_roll_v2(seed, g, ab, 2, 7, 1, 12), 4);
	assert_int_equal(dice_roll_v2(seed, g, ab, 2, 41, 2, 6), 3);
	assert_int_equal(dice_roll_v2(seed, g, ab, 2, 3, 0, UINT32_C(1) << 31), 19607436);
	assert_int_equal(dice_roll_v2(seed, "q7w2k9m4t6rb", four, 4, 0, 0, 12), 3);
	assert_int_equal(dice_roll_v2(seed, "q7w2k9m4t6rb", four, 4, 1, 0, 12), 11);
	assert_int_equal(dice_roll_v2(seed, "q7w2k9m4t6rb", four, 4, 12, 3, 12), 9);
	/* All eight words of the first MAC rejected: "|1" comes after the seeds. */
	static const char *const a_none[] = {"a", NULL};
	assert_int_equal(dice_roll_v2(seed, "x", a_none, 2, 72, 0, (UINT32_C(1) << 31) + 1), 1774187704);
}

/* The v2 message written out, through the one-shot HMAC, agrees with dice_roll_v2. */
static void v2_message_layout(void **state)
{
	static const char *const ab[] = {"alpha", "beta"};
	(void)state;

	assert_int_equal(dice_roll_v2(seed, "game", ab, 2, 5, 0, 12),
			 first_word_d12("rookery-dice/v2|game|5|0|5:alpha|4:beta"));
}

/*
 * With 2^31 sides two different messages give the same value about once in
 * 2^31: equal values would mean equal messages. The seeds change the rolls;
 * so do their order and where one seed ends and the next begins.
 */
static void v2_seeds_order_and_boundaries_matter(void **state)
{
	static const char *const none[] = {NULL, NULL}, *const empty[] = {"", ""};
	static const char *const ab[] = {"alpha", "beta"}, *const ba[] = {"beta", "alpha"};
	static const char *const ab_c[] = {"ab", "c"}, *const a_bc[] = {"a", "bc"};
	static const char *const forged[] = {"a|1:b", ""}, *const a_b[] = {"a", "b"};
	static const char *const one[] = {"alpha", NULL};
	const uint32_t big = UINT32_C(1) << 31;
	const char *g = "bcdfgh234567";
	(void)state;

#define ROLL(seeds) dice_roll_v2(seed, g, seeds, 2, 3, 0, big)
	/* No seed and an empty seed are the same: both are "|0:". */
	assert_int_equal(ROLL(none), ROLL(empty));
	assert_int_not_equal(ROLL(none), ROLL(ab));
	assert_int_not_equal(ROLL(none), ROLL(one));
	assert_int_not_equal(ROLL(one), ROLL(ab));
	assert_int_not_equal(ROLL(ab), ROLL(ba));
	/* "|2:ab|1:c" and "|1:a|2:bc"; without the lengths both would read "ab" "c" joined. */
	assert_int_equal(ROLL(ab_c), 155298903);
	assert_int_equal(ROLL(a_bc), 661817065);
	/* A seed cannot pose as two: "|5:a|1:b|0:" is not "|1:a|1:b". */
	assert_int_equal(ROLL(forged), 696855426);
	assert_int_equal(ROLL(a_b), 2135228326);
#undef ROLL
	/* The version is part of the message: v2 without seeds is not v1. */
	assert_int_not_equal(dice_roll(seed, g, 3, 0, big), dice_roll_v2(seed, g, none, 2, 3, 0, big));
}

static void client_seed_check(void **state)
{
	char longest[LIMIT_CLIENT_SEED + 2];
	(void)state;

	memset(longest, 'x', sizeof longest);
	longest[LIMIT_CLIENT_SEED] = 0;
	assert_int_equal(dice_client_seed_check(longest, LIMIT_CLIENT_SEED), 0);
	longest[LIMIT_CLIENT_SEED] = 'x';
	longest[LIMIT_CLIENT_SEED + 1] = 0;
	assert_int_equal(dice_client_seed_check(longest, LIMIT_CLIENT_SEED), 1);
	assert_int_equal(dice_client_seed_check("", LIMIT_CLIENT_SEED), 1);
	assert_int_equal(dice_client_seed_check(NULL, LIMIT_CLIENT_SEED), 1);
	assert_int_equal(dice_client_seed_check(" ~!lucky 7", LIMIT_CLIENT_SEED), 0);
	assert_int_equal(dice_client_seed_check("tab\there", LIMIT_CLIENT_SEED), 2);
	assert_int_equal(dice_client_seed_check("del\x7f", LIMIT_CLIENT_SEED), 2);
	assert_int_equal(dice_client_seed_check("caf\xc3\xa9", LIMIT_CLIENT_SEED), 2);
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
		cmocka_unit_test(v2_vectors),
		cmocka_unit_test(v2_message_layout),
		cmocka_unit_test(v2_seeds_order_and_boundaries_matter),
		cmocka_unit_test(client_seed_check),
	};
	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
