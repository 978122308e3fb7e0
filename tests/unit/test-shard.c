// SPDX-License-Identifier: MIT
/* shard: LPT's balance against its bound and the optimum, determinism, durations filled in. */
#include "unit.h"
#include "model/shard.h"

#include <errno.h>
#include <math.h>

static double max_load(const double *loads, unsigned n)
{
	double m = 0;

	for (unsigned i = 0; i < n; i++)
		m = fmax(m, loads[i]);
	return m;
}

/* The best longest shard over every assignment of n items to k shards. */
static double optimum(const struct shard_item *it, size_t n, unsigned k)
{
	unsigned who[12] = { 0 };
	double best = INFINITY;

	for (;;) {
		double loads[8] = { 0 };
		size_t i;

		for (i = 0; i < n; i++)
			loads[who[i]] += it[i].seconds;
		best = fmin(best, max_load(loads, k));
		for (i = 0; i < n && ++who[i] == k; i++)
			who[i] = 0;
		if (i == n)
			return best;
	}
}

static void test_balance(void **state)
{
	static char names[400][16];
	struct shard_item items[400];
	unsigned where[400], seed = 7;
	double loads[16];

	(void)state;
	for (int i = 0; i < 400; i++)
		snprintf(names[i], sizeof(names[i]), "generic/%03d", i);
	/* heavy-tailed durations, as fstests' are: most seconds, a few many minutes */
	for (unsigned shards = 2; shards <= 16; shards *= 2)
		for (int round = 0; round < 20; round++) {
			double total = 0, longest = 0;

			for (int i = 0; i < 400; i++) {
				double u = (rand_r(&seed) + 1.0) / (RAND_MAX + 2.0);

				items[i] = (struct shard_item){ "xfs/4k", names[i], 2 / pow(u, 0.9) };
				total += items[i].seconds;
				longest = fmax(longest, items[i].seconds);
			}
			assert_int_equal(shard_assign(items, 400, shards, where, loads), 0);
			/* the target: within 1.05 x total/N plus the longest test */
			assert_true(max_load(loads, shards) <= 1.05 * total / shards + longest);
			/* and LPT's own bound */
			assert_true(max_load(loads, shards) <= total / shards + longest + 1e-9);
		}
}

static void test_against_optimum(void **state)
{
	static char names[10][16];
	struct shard_item items[10];
	unsigned where[10], seed = 3;
	double loads[3];

	(void)state;
	for (int i = 0; i < 10; i++)
		snprintf(names[i], sizeof(names[i]), "generic/%03d", i);
	for (int round = 0; round < 30; round++) {
		double opt;

		for (int i = 0; i < 10; i++)
			items[i] = (struct shard_item){ "xfs/4k", names[i], 1 + rand_r(&seed) % 100 };
		assert_int_equal(shard_assign(items, 10, 3, where, loads), 0);
		opt = optimum(items, 10, 3);
		/* Graham: LPT is within 4/3 - 1/(3m) of the optimum */
		assert_true(max_load(loads, 3) <= (4.0 / 3 - 1.0 / 9) * opt + 1e-9);
	}
}

static void test_deterministic(void **state)
{
	struct shard_item a[] = { { "xfs/4k", "generic/001", 5 },
				  { "xfs/4k", "generic/002", 5 },
				  { "ext4/4k", "generic/001", 5 },
				  { "xfs/4k", "generic/003", 9 } };
	struct shard_item b[] = { a[3], a[2], a[1], a[0] };
	unsigned wa[4], wb[4];

	(void)state;
	assert_int_equal(shard_assign(a, 4, 2, wa, NULL), 0);
	assert_int_equal(shard_assign(b, 4, 2, wb, NULL), 0);
	/* the same tests land on the same shards whatever order they come in */
	assert_int_equal(wa[0], wb[3]);
	assert_int_equal(wa[1], wb[2]);
	assert_int_equal(wa[2], wb[1]);
	assert_int_equal(wa[3], wb[0]);
	/* longest first to shard 0; the three fives: ext4 first by name, to shard 1 */
	assert_int_equal(wa[3], 0);
	assert_int_equal(wa[2], 1);
	assert_int_equal(shard_assign(a, 4, 0, wa, NULL), -EINVAL);
}

static void test_fill(void **state)
{
	struct shard_item it[] = { { "xfs/4k", "generic/001", 0 },
				   { "xfs/4k", "generic/002", 0 },
				   { "xfs/4k", "generic/003", 0 },
				   { "ext4/4k", "generic/001", 0 } };
	json_t *d = json_pack("{s:s, s:{s:{s:f, s:f, s:f}}}", "schema", DURATIONS_SCHEMA, "durations", "xfs/4k",
			      "generic/001", 10.0, "generic/002", 2.0, "generic/003", 4.0);

	(void)state;
	shard_fill_durations(it, 4, d);
	assert_true(it[0].seconds == 10 && it[1].seconds == 2 && it[2].seconds == 4);
	/* unknown: the median of the known */
	assert_true(it[3].seconds == 4);
	shard_fill_durations(it, 4, NULL);
	assert_true(it[0].seconds == 1 && it[3].seconds == 1);
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_balance),
		cmocka_unit_test(test_against_optimum),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_fill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
