// SPDX-License-Identifier: MIT
/* fix_proof: each verdict at its boundary (worked out by hand from Wilson's bound and the binomial tail), the runs
 * it asks for, and over many seeded draws: fixes found, non-fixes and partial fixes never called fixes. */
#include "unit.h"
#include "analysis/fix_proof.h"

static void test_boundaries(void **state)
{
	struct fix_proof_opts o;
	struct fix_proof p;

	(void)state;
	fix_proof_opts_default(&o);
	assert_string_equal(fix_verdict_name(FIX_FIXES), "fixes");
	/* nothing run: 10 runs each side to begin */
	fix_proof_judge(&o, 0, 0, 0, 0, &p);
	assert_int_equal(p.verdict, FIX_UNDECIDED);
	assert_int_equal(p.want_head, 10);
	assert_int_equal(p.want_patched, 10);
	/* 28 of 28 before: Wilson's lower bound at 0.01 one-sided is 0.838, 0.2 of it 0.1676; 0 of 25 has
	 * 0.0102 at that rate, 0 of 26 0.0085 (< 0.1 / 10 looks) */
	fix_proof_judge(&o, 28, 28, 0, 25, &p);
	assert_int_equal(p.verdict, FIX_UNDECIDED);
	fix_proof_judge(&o, 28, 28, 0, 26, &p);
	assert_int_equal(p.verdict, FIX_FIXES);
	/* 14 of 28 before (lower bound 0.2988): 75 clean runs, not 74 */
	fix_proof_judge(&o, 14, 28, 0, 74, &p);
	assert_int_equal(p.verdict, FIX_UNDECIDED);
	assert_int_equal(p.want_head, 14); /* the failing revision behind the patched one: it grows by half */
	assert_int_equal(p.want_patched, 37);
	fix_proof_judge(&o, 14, 28, 0, 75, &p);
	assert_int_equal(p.verdict, FIX_FIXES);
	/* ... a failure with the patch needs more */
	fix_proof_judge(&o, 14, 28, 1, 75, &p);
	assert_int_equal(p.verdict, FIX_UNDECIDED);
	/* the upper bound 0.7012, 0.2 of it 0.1402: 10 of 28 failing with the patch has 0.0034 at most, 9 0.0116 */
	fix_proof_judge(&o, 14, 28, 9, 28, &p);
	assert_int_equal(p.verdict, FIX_UNDECIDED);
	assert_int_equal(p.want_head, 0); /* failed twice, as many runs as the patched side: it waits */
	assert_int_equal(p.want_patched, 14);
	fix_proof_judge(&o, 14, 28, 10, 28, &p);
	assert_int_equal(p.verdict, FIX_DOES_NOT_FIX);
	/* never failed on the failing revision in max_runs: nothing to fix, no more runs */
	fix_proof_judge(&o, 0, 200, 0, 200, &p);
	assert_int_equal(p.verdict, FIX_UNDECIDED);
	assert_int_equal(p.want_head + p.want_patched, 0);
	assert_non_null(strstr(p.why, "never failed in 200 runs"));
	/* both sides at max_runs: undecided, said */
	fix_proof_judge(&o, 20, 200, 9, 200, &p);
	assert_int_equal(p.verdict, FIX_UNDECIDED);
	assert_int_equal(p.want_head + p.want_patched, 0);
	assert_non_null(strstr(p.why, "not decided in 200 runs a side"));
	/* a side near max_runs gets only what is left */
	fix_proof_judge(&o, 20, 190, 3, 190, &p);
	assert_int_equal(p.want_patched, 10);
}

static unsigned long long seed;

static double rnd(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(seed >> 11) * (1.0 / 9007199254740992.0);
}

/* The verdicts of n seeded proofs of a failure at rate pb and a patch leaving pk, each asked runs to the end. */
static void simulate(double pb, double pk, unsigned n, unsigned counts[3])
{
	struct fix_proof_opts o;

	fix_proof_opts_default(&o);
	counts[0] = counts[1] = counts[2] = 0;
	for (unsigned s = 0; s < n; s++) {
		unsigned fb = 0, rb = 0, fk = 0, rk = 0;
		struct fix_proof p;

		seed = s * 7919ULL + 1;
		for (;;) {
			fix_proof_judge(&o, fb, rb, fk, rk, &p);
			if (p.verdict != FIX_UNDECIDED || !(p.want_head + p.want_patched))
				break;
			for (unsigned i = 0; i < p.want_head; i++)
				fb += rnd() < pb;
			for (unsigned i = 0; i < p.want_patched; i++)
				fk += rnd() < pk;
			rb += p.want_head;
			rk += p.want_patched;
		}
		counts[p.verdict]++;
	}
}

static void test_seeded(void **state)
{
	unsigned c[3];

	(void)state;
	/* a fix of a failure in half the runs, or in all of them: found every time */
	simulate(0.5, 0, 300, c);
	assert_int_equal(c[FIX_FIXES], 300);
	simulate(1, 0, 300, c);
	assert_int_equal(c[FIX_FIXES], 300);
	/* no fix: never called one, said within the runs */
	simulate(0.5, 0.5, 300, c);
	assert_int_equal(c[FIX_DOES_NOT_FIX], 300);
	/* a part fixed (half the rate left): does not fix, never fixes */
	simulate(0.5, 0.25, 300, c);
	assert_int_equal(c[FIX_FIXES], 0);
	assert_true(c[FIX_DOES_NOT_FIX] >= 297);
	/* exactly min_rate of the old rate left: called a fix at most 1% of the time */
	simulate(0.5, 0.1, 300, c);
	assert_true(c[FIX_FIXES] <= 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_seeded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
