// SPDX-License-Identifier: MIT
/* qualify: the statistics against published values, and each verdict with the runs it asks for. */
#include "unit.h"
#include "analysis/qualify.h"
#include "util/macro.h"
#include "util/strv.h"

#include <math.h>

static void assert_near(double got, double want, double tol)
{
	if (fabs(got - want) > tol) {
		fprintf(stderr, "got %.10g, want %.10g (+-%g)\n", got, want, tol);
		fail();
	}
}

static void test_stats(void **state)
{
	struct qualify_opts o;
	double lo, hi;

	(void)state;
	qualify_opts_default(&o);
	assert_near(qualify_z(0.05), 1.6448536, 1e-6);
	assert_near(qualify_z(0.025), 1.9599640, 1e-6);
	assert_near(qualify_z(0.5), 0, 1e-9);
	/* 0.8^21 = 0.0092 <= 0.01 < 0.8^20 = 0.0115 */
	assert_int_equal(qualify_clean_runs(&o, 1), 21);
	assert_int_equal(qualify_clean_runs(&o, 2), 42);
	o.miss = 0.05;
	/* 0.8^14 = 0.044 <= 0.05 < 0.8^13 = 0.055 */
	assert_int_equal(qualify_clean_runs(&o, 1), 14);
	assert_int_equal(qualify_clean_runs(&o, 0.1), 2);
	/* Newcombe (1998), Statistics in Medicine 17:873, table II, method 10: 56/70 - 48/80 */
	qualify_diff_interval(48, 80, 56, 70, 1.959964, &lo, &hi);
	assert_near(lo, 0.0524, 5e-5);
	assert_near(hi, 0.3339, 5e-5);
	/* ... and 9/10 - 3/10: 0.1705 to 0.8090 */
	qualify_diff_interval(3, 10, 9, 10, 1.959964, &lo, &hi);
	assert_near(lo, 0.1705, 5e-5);
	assert_near(hi, 0.8090, 5e-5);
	qualify_opts_default(&o);
	assert_near(qualify_look_alpha(&o), 0.01 / 9, 1e-15);
}

/* A compare result's test: config xfs/4k, the counts of each side and compare's class. */
static json_t *ctest(const char *test, const char *cls, int fb, int rb, int fk, int rk)
{
	return json_pack("{s:s, s:s, s:s, s:{s:i, s:i}, s:{s:i, s:i}, s:f, s:f, s:f}", "config", "xfs/4k", "test", test,
			 "class", cls, "baseline", "runs", rb, "failures", fb, "candidate", "runs", rk, "failures", fk,
			 "p_worse", 0.5, "p_better", 0.5, "p_adjusted", 0.5);
}

static json_t *find(json_t *judged, const char *test)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(judged, "tests"), i, t)
		if (streq(json_string_value(json_object_get(t, "test")), test))
			return t;
	fail_msg("no %s", test);
	return NULL;
}

static const char *verdict(json_t *judged, const char *test)
{
	return json_string_value(json_object_get(find(judged, test), "verdict"));
}

static long long want(json_t *judged, const char *test, const char *side)
{
	return json_integer_value(json_object_get(json_object_get(find(judged, test), "want"), side));
}

static void test_judge(void **state)
{
	struct qualify_opts o;
	json_t *cmp = json_pack("{s:[]}", "tests"), *tests = json_object_get(cmp, "tests"), *j, *w;
	char **next = NULL;
	unsigned *runs = NULL;
	int n;

	(void)state;
	qualify_opts_default(&o);
	json_array_append_new(tests, ctest("generic/001", "pass", 0, 3, 0, 21));	   /* clean: pass */
	json_array_append_new(tests, ctest("generic/002", "pass", 0, 3, 0, 10));	   /* clean, too few */
	json_array_append_new(tests, ctest("generic/003", "regression", 0, 30, 12, 30));   /* compare decided */
	json_array_append_new(tests, ctest("generic/004", "failing", 3, 3, 21, 21));	   /* failing */
	json_array_append_new(tests, ctest("generic/005", "failing", 2, 2, 21, 21));	   /* failing, too few */
	json_array_append_new(tests, ctest("generic/006", "flaky", 10, 100, 11, 100));	   /* close rates */
	json_array_append_new(tests, ctest("generic/007", "flaky", 0, 3, 2, 21));	   /* undecided */
	json_array_append_new(tests, ctest("generic/008", "not-comparable", 0, 0, 0, 21)); /* not run */
	j = qualify_judge(cmp, &o, NULL);
	assert_non_null(j);
	assert_string_equal(verdict(j, "generic/001"), "pass");
	assert_string_equal(verdict(j, "generic/002"), "undecided");
	assert_int_equal(want(j, "generic/002", "candidate"), 11);
	assert_int_equal(want(j, "generic/002", "baseline"), 0);
	assert_string_equal(verdict(j, "generic/003"), "regression");
	assert_string_equal(verdict(j, "generic/004"), "failing");
	assert_string_equal(verdict(j, "generic/005"), "undecided");
	assert_int_equal(want(j, "generic/005", "baseline"), 1);
	assert_int_equal(want(j, "generic/005", "candidate"), 0);
	assert_string_equal(verdict(j, "generic/006"), "flaky");
	assert_string_equal(verdict(j, "generic/007"), "undecided");
	/* both sides to the larger's 21 and half again: 31 */
	assert_int_equal(want(j, "generic/007", "baseline"), 28);
	assert_int_equal(want(j, "generic/007", "candidate"), 10);
	assert_true(json_integer_value(json_object_get(find(j, "generic/007"), "runs_to_decide")) > 21);
	assert_string_equal(verdict(j, "generic/008"), "not-comparable");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "counts"), "undecided")), 3);
	/* most serious first */
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(json_object_get(j, "tests"), 0), "verdict")),
		"regression");

	/* the next round: each test that wants runs gets its want, all cut in proportion past the share */
	n = qualify_next(j, "candidate", 1000, &next, &runs);
	assert_int_equal(n, 11);
	assert_int_equal(strv_length(next), 2);
	assert_string_equal(next[0], "xfs/4k\x1fgeneric/002");
	assert_int_equal(runs[0], 11);
	assert_string_equal(next[1], "xfs/4k\x1fgeneric/007");
	assert_int_equal(runs[1], 10);
	strv_free(next);
	free(runs);
	n = qualify_next(j, "baseline", 1000, &next, &runs);
	assert_int_equal(n, 28);
	assert_int_equal(strv_length(next), 2);
	assert_int_equal(runs[0], 1);
	assert_int_equal(runs[1], 28);
	strv_free(next);
	free(runs);
	n = qualify_next(j, "baseline", 20, &next, &runs); /* 29 wanted: 1 -> 0, 28 -> 19 */
	assert_int_equal(n, 19);
	assert_int_equal(strv_length(next), 1);
	assert_string_equal(next[0], "xfs/4k\x1fgeneric/007");
	assert_int_equal(runs[0], 19);
	strv_free(next);
	free(runs);
	n = qualify_next(j, "baseline", 1, &next, &runs);
	assert_int_equal(n, 0);
	assert_null(next);
	assert_null(runs);
	json_decref(j);

	/* a config's weight asks for that many more clean runs */
	w = json_pack("{s:f}", "xfs/4k", 2.0);
	j = qualify_judge(cmp, &o, w);
	json_decref(w);
	assert_string_equal(verdict(j, "generic/001"), "undecided");
	assert_int_equal(want(j, "generic/001", "candidate"), 21);
	json_decref(j);
	json_decref(cmp);
}

/* A watch's baseline brings its earlier runs: the side with fewer runs doubles, the other waits. */
static void test_grow_smaller(void **state)
{
	struct qualify_opts o;
	json_t *cmp = json_pack("{s:[]}", "tests"), *tests = json_object_get(cmp, "tests"), *j;

	(void)state;
	qualify_opts_default(&o);
	o.grow_smaller = true;
	json_array_append_new(tests, ctest("generic/001", "flaky", 10, 103, 3, 21)); /* 103 earlier, 21 new */
	json_array_append_new(tests, ctest("generic/002", "flaky", 2, 10, 4, 12));   /* comparable: both grow */
	json_array_append_new(tests, ctest("generic/003", "flaky", 1, 3, 5, 21));    /* round 0 of a qualify */
	j = qualify_judge(cmp, &o, NULL);
	assert_non_null(j);
	assert_string_equal(verdict(j, "generic/001"), "undecided");
	assert_int_equal(want(j, "generic/001", "baseline"), 0);
	assert_int_equal(want(j, "generic/001", "candidate"), 21);
	assert_int_equal(want(j, "generic/002", "baseline"), 8);
	assert_int_equal(want(j, "generic/002", "candidate"), 6);
	assert_int_equal(want(j, "generic/003", "baseline"), 5);
	assert_int_equal(want(j, "generic/003", "candidate"), 0);
	json_decref(j);
	json_decref(cmp);
}

/* A watch looks for regressions: a test better on the candidate is decided once no regression can hide. */
static void test_regressions_only(void **state)
{
	struct qualify_opts o;
	json_t *cmp = json_pack("{s:[]}", "tests"), *tests = json_object_get(cmp, "tests"), *j;

	(void)state;
	qualify_opts_default(&o);
	json_array_append_new(tests, ctest("generic/001", "flaky", 100, 200, 30, 100)); /* 50% -> 30% */
	json_array_append_new(tests, ctest("generic/002", "flaky", 50, 200, 35, 100));	/* 25% -> 35% */
	json_array_append_new(tests, ctest("generic/003", "flaky", 12, 400, 0, 21));	/* 3% -> clean */
	json_array_append_new(tests, ctest("generic/004", "flaky", 12, 400, 0, 20));	/* one run short */
	j = qualify_judge(cmp, &o, NULL);
	assert_non_null(j);
	assert_string_equal(verdict(j, "generic/001"), "undecided"); /* a fix of 20% could hide */
	assert_string_equal(verdict(j, "generic/002"), "undecided");
	assert_string_equal(verdict(j, "generic/003"), "undecided"); /* Newcombe's bound: 30% */
	json_decref(j);
	o.regressions_only = true;
	j = qualify_judge(cmp, &o, NULL);
	assert_non_null(j);
	assert_string_equal(verdict(j, "generic/001"), "flaky");
	assert_int_equal(want(j, "generic/001", "candidate"), 0);
	assert_string_equal(verdict(j, "generic/002"), "undecided"); /* a regression of 20% still could */
	assert_true(want(j, "generic/002", "candidate") > 0);
	/* the clean rule holds on the candidate alone: its rate is below 20% */
	assert_string_equal(verdict(j, "generic/003"), "flaky");
	assert_int_equal(want(j, "generic/003", "candidate"), 0);
	assert_string_equal(verdict(j, "generic/004"), "undecided");
	json_decref(j);
	json_decref(cmp);
}

/* A round's text: each test its own runs says how many in all. */
static void test_round_text(void **state)
{
	json_t *r = json_pack("{s:i, s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}}", "round", 2, "baseline", "tests", 2,
			      "iterations", 5, "runs", 10, "candidate", "tests", 3, "iterations", 42, "runs", 105);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	qualify_round_text(r, f);
	fclose(f);
	assert_string_equal(buf, "2: baseline 2 tests x 5, candidate 3 tests x up to 42 (105 runs)");
	free(buf);
	json_decref(r);
}

/* Sides alike in size grow by half, or less when fewer runs close the interval at the rates seen. */
static void test_grow_to_need(void **state)
{
	struct qualify_opts o;
	json_t *cmp = json_pack("{s:[]}", "tests"), *tests = json_object_get(cmp, "tests"), *j;
	json_int_t b, k;

	(void)state;
	qualify_opts_default(&o);
	json_array_append_new(tests, ctest("generic/001", "flaky", 30, 100, 33, 100)); /* 30% -> 33% */
	json_array_append_new(tests, ctest("generic/002", "flaky", 30, 100, 40, 100)); /* 30% -> 40% */
	j = qualify_judge(cmp, &o, NULL);
	assert_non_null(j);
	assert_string_equal(verdict(j, "generic/001"), "undecided");
	b = want(j, "generic/001", "baseline");
	k = want(j, "generic/001", "candidate");
	assert_int_equal(b, k);
	assert_true(b >= 25 && b < 50);				  /* ~133 a side close it: not 150 */
	assert_int_equal(want(j, "generic/002", "baseline"), 50); /* far from closing: half again */
	json_decref(j);
	json_decref(cmp);
}

/* A crash of tests together counts crashes, not runs: compare's call stands, no runs asked for. */
static void test_together(void **state)
{
	struct qualify_opts o;
	json_t *cmp = json_pack("{s:[]}", "tests"), *tests = json_object_get(cmp, "tests"), *j, *t;

	(void)state;
	qualify_opts_default(&o);
	t = ctest("generic/001+generic/002", "regression", 0, 0, 1, 1);
	json_object_set_new(t, "together", json_true());
	json_object_set_new(t, "reason", json_string("crashed 0 times on the baseline, 1 on the candidate"));
	json_array_append_new(tests, t);
	t = ctest("(crash with no test named)", "failing", 1, 1, 2, 2);
	json_object_set_new(t, "together", json_true());
	json_array_append_new(tests, t);
	j = qualify_judge(cmp, &o, NULL);
	assert_non_null(j);
	/* without together, no baseline runs would make it not-comparable: a lost crash */
	assert_string_equal(verdict(j, "generic/001+generic/002"), "regression");
	assert_string_equal(json_string_value(json_object_get(find(j, "generic/001+generic/002"), "reason")),
			    "crashed 0 times on the baseline, 1 on the candidate");
	assert_true(json_is_true(json_object_get(find(j, "generic/001+generic/002"), "together")));
	assert_int_equal(want(j, "generic/001+generic/002", "baseline"), 0);
	assert_int_equal(want(j, "generic/001+generic/002", "candidate"), 0);
	assert_string_equal(verdict(j, "(crash with no test named)"), "failing");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "counts"), "regression")), 1);
	json_decref(j);
	json_decref(cmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats),	     cmocka_unit_test(test_judge),
		cmocka_unit_test(test_grow_smaller), cmocka_unit_test(test_regressions_only),
		cmocka_unit_test(test_grow_to_need), cmocka_unit_test(test_round_text),
		cmocka_unit_test(test_together),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
