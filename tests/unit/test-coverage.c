// SPDX-License-Identifier: MIT
/* coverage: the greedy cover against the optimum; gcov: touched files told apart from reset ones. */
#include "unit.h"
#include "analysis/coverage.h"
#include "run/gcov.h"
#include "util/fileio.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

/* The fewest sets reaching target, by trying every subset (n <= 16). */
static size_t optimum(const struct cover_set *s, size_t n, size_t universe, size_t target)
{
	size_t best = (size_t)-1;

	for (unsigned mask = 0; mask < (1u << n); mask++) {
		uint8_t cov[64] = { 0 };
		size_t have = 0, k = (size_t)__builtin_popcount(mask);

		if (k >= best)
			continue;
		for (size_t i = 0; i < n; i++)
			if (mask & (1u << i))
				for (size_t e = 0; e < s[i].n; e++)
					if (!cov[s[i].elems[e]]++)
						have++;
		if (have >= target)
			best = k;
	}
	(void)universe;
	return best;
}

static void test_greedy_vs_optimum(void **state)
{
	uint32_t elems[12][64];
	struct cover_set sets[12];
	size_t order[12];
	unsigned seed = 11, worse = 0, rounds = 200;

	(void)state;
	for (unsigned round = 0; round < rounds; round++) {
		size_t n = 6 + round % 7, universe = 24 + round % 40, maxset = 0, target, opt, got;

		for (size_t i = 0; i < n; i++) {
			size_t k = 0;

			for (uint32_t e = 0; e < universe; e++)
				if (rand_r(&seed) % 4 == 0)
					elems[i][k++] = e;
			sets[i] = (struct cover_set){ elems[i], k, 1 };
			maxset = k > maxset ? k : maxset;
		}
		/* a target the sets can reach: 90% of what they cover together */
		{
			uint8_t cov[64] = { 0 };
			size_t all = 0;

			for (size_t i = 0; i < n; i++)
				for (size_t e = 0; e < sets[i].n; e++)
					all += !cov[sets[i].elems[e]]++;
			target = (size_t)ceil(0.9 * (double)all);
		}
		opt = optimum(sets, n, universe, target);
		got = cover_greedy(sets, n, universe, target, false, order);
		assert_true(got != (size_t)-1);
		assert_true(got >= opt);
		/* greedy's guarantee: within H(largest set) of the optimum */
		{
			double h = 0;

			for (size_t k = 1; k <= maxset; k++)
				h += 1.0 / (double)k;
			assert_true((double)got <= h * (double)opt + 1e-9);
		}
		worse += got > opt;
	}
	/* and on these small cases it is mostly optimal */
	print_message("greedy larger than the optimum in %u of %u cases\n", worse, rounds);
	assert_true(worse * 4 < rounds);
}

static void test_greedy_cases(void **state)
{
	/* the classic: two halves beat the big set greedy takes first */
	static const uint32_t big[] = { 0, 1, 2, 3, 4, 5 }, left[] = { 0, 1, 2, 6 }, right[] = { 3, 4, 5, 7 };
	struct cover_set s[] = { { big, 6, 1 }, { left, 4, 1 }, { right, 4, 1 } };
	/* by cost: one slow set against two quick ones covering the same */
	static const uint32_t all4[] = { 0, 1, 2, 3 }, a[] = { 0, 1 }, b[] = { 2, 3 };
	struct cover_set t[] = { { all4, 4, 100 }, { a, 2, 1 }, { b, 2, 1 } };
	size_t order[3];

	(void)state;
	assert_int_equal(cover_greedy(s, 3, 8, 8, false, order), 3);
	assert_int_equal(order[0], 0);
	assert_int_equal(cover_greedy(s, 3, 8, 6, false, order), 1);
	assert_int_equal(cover_greedy(t, 3, 4, 4, false, order), 1);
	assert_int_equal(cover_greedy(t, 3, 4, 4, true, order), 2);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 2);
	/* unreachable */
	assert_int_equal(cover_greedy(t, 3, 8, 5, false, order), (size_t)-1);
}

static void write_str(const char *path, const char *s)
{
	assert_int_equal(fileio_write_file(path, s, strlen(s)), 0);
}

static void test_gcov_touched(void **state)
{
	char root[128], dir[192], path[256], dest[192], err[256];
	char xfs[] = "fs/xfs", nope[] = "fs/nope";
	char *dirs[] = { xfs, NULL }, *missing[] = { nope, NULL };
	struct gcov *g = NULL;
	unsigned files = 0;
	struct stat st;

	(void)state;
	/* debugfs' gcov tree mirrors the build directory: <root>/<build>/fs/xfs */
	snprintf(root, sizeof(root), "%s/gcov", unit_dir);
	snprintf(dir, sizeof(dir), "%s/home/me/linux/fs/xfs/libxfs", root);
	assert_int_equal(fileio_mkdir_p(dir), 0);
	snprintf(path, sizeof(path), "%s/reset", root);
	write_str(path, "");
	snprintf(path, sizeof(path), "%s/home/me/linux/fs/xfs/a.gcda", root);
	write_str(path, "zero-a");
	snprintf(path, sizeof(path), "%s/home/me/linux/fs/xfs/libxfs/b.gcda", root);
	write_str(path, "zero-b");
	assert_int_equal(gcov_open(root, missing, &g, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no 'fs/nope'"));
	assert_int_equal(gcov_open(root, dirs, &g, err, sizeof(err)), 0);
	assert_int_equal(gcov_reset(g), 0);
	/* the test touches b only */
	write_str(path, "counted-b");
	snprintf(dest, sizeof(dest), "%s/out1", unit_dir);
	assert_int_equal(gcov_save(g, dest, &files), 0);
	assert_int_equal(files, 1);
	snprintf(path, sizeof(path), "%s/fs/xfs/libxfs/b.gcda", dest);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/fs/xfs/a.gcda", dest);
	assert_int_equal(stat(path, &st), -1);
	gcov_free(g);
	/* no gcov tree at all */
	snprintf(path, sizeof(path), "%s/none", unit_dir);
	assert_int_equal(gcov_open(path, dirs, &g, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "CONFIG_GCOV_KERNEL"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_greedy_vs_optimum),
		cmocka_unit_test(test_greedy_cases),
		cmocka_unit_test_setup_teardown(test_gcov_touched, unit_mkdtemp, unit_rmdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
