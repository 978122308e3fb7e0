// SPDX-License-Identifier: MIT
/* compare: Fisher's exact test against hand computations. */
#include "unit.h"
#include "analysis/compare.h"

#include <math.h>

static void assert_close(double got, double want)
{
	if (fabs(got - want) > 1e-12 * fmax(1, fabs(want))) {
		fprintf(stderr, "got %.15g, want %.15g\n", got, want);
		fail();
	}
}

static void test_fisher(void **state)
{
	(void)state;
	/* 5 of 10 failed against 0 of 10: C(10,5) C(10,0) / C(20,5) = 252 / 15504 */
	assert_close(compare_fisher_greater(5, 5, 0, 10), 252.0 / 15504);
	/* 3 of 3 against 0 of 3: the most extreme of C(6,3) = 20 tables */
	assert_close(compare_fisher_greater(3, 0, 0, 3), 1.0 / 20);
	/* 1 of 2 against 1 of 2: P(X >= 1) = 1 - C(2,0) C(2,2) / C(4,2) = 5/6 */
	assert_close(compare_fisher_greater(1, 1, 1, 1), 5.0 / 6);
	/* nothing failed: certain */
	assert_close(compare_fisher_greater(0, 10, 0, 10), 1);
	/* 4 of 30 against 0 of 30: C(30,4) / C(60,4) = 27405 / 487635 */
	assert_close(compare_fisher_greater(4, 26, 0, 30), 27405.0 / 487635);
	/* 6 of 20 against 2 of 30: sum over x = 6..8 of C(8,x) C(42,20-x) / C(50,20) */
	assert_close(compare_fisher_greater(6, 14, 2, 28), 0.035971201313369415);
}

/* the runs a side that would decide a test if its rates held */
static void test_runs_to_decide(void **state)
{
	(void)state;
	/*
	 * 0 % against 40 %, by hand: 9 runs a side fail 0 and 4 (3.6 rounded):
	 * P(X >= 4) = C(14,5)/C(18,9) = 2002/48620 = 0.041 < 0.05; 8 runs fail
	 * 0 and 3: C(13,5)/C(16,8) = 0.1, not enough
	 */
	assert_int_equal(compare_runs_to_decide(0, 20, 8, 20, 0.05), 9);
	/* the same the other way round (fixed) */
	assert_int_equal(compare_runs_to_decide(8, 20, 0, 20, 0.05), 9);
	/* the same rates never decide; a bigger difference decides sooner */
	assert_int_equal(compare_runs_to_decide(2, 20, 4, 40, 0.05), 0);
	assert_true(compare_runs_to_decide(2, 20, 10, 20, 0.05) < compare_runs_to_decide(2, 20, 6, 20, 0.05));
	/* beyond COMPARE_MAX_DECIDE: 0, not a wrap */
	assert_int_equal(compare_runs_to_decide(1000, 100000, 1001, 100000, 0.05), 0);
	assert_int_equal(compare_runs_to_decide(0, 0, 1, 2, 0.05), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fisher),
		cmocka_unit_test(test_runs_to_decide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
