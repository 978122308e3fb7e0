// SPDX-License-Identifier: MIT
/* reduce: ddmin over the tests before an order-dependent failure, with simulated probes. */
#include "unit.h"
#include "analysis/reduce.h"
#include "util/strv.h"

#include <errno.h>

/* The suspect fails when every culprit ran before it (or always, or never). */
struct sim {
	const char *const *culprits;
	int always; /* 1: fails alone too; -1: never fails */
	unsigned probes;
};

static int probe(void *data, char *const *tests, size_t n)
{
	struct sim *s = data;

	s->probes++;
	assert_non_null(tests[n - 1]);
	assert_null(tests[n]);
	assert_string_equal(tests[n - 1], "generic/999");
	if (s->always)
		return s->always > 0;
	for (const char *const *c = s->culprits; *c; c++) {
		bool seen = false;

		for (size_t i = 0; i + 1 < n; i++)
			seen |= strcmp(tests[i], *c) == 0;
		if (!seen)
			return 0;
	}
	return 1;
}

static char **names(size_t n)
{
	char **v = strv_split("", ",");

	for (size_t i = 0; i < n; i++) {
		char t[32];

		snprintf(t, sizeof(t), "generic/%03zu", i);
		assert_int_equal(strv_push(&v, t), 0);
	}
	return v;
}

/* one culprit among 200: the target is at most 40 probes */
static void test_one_of_200(void **state)
{
	const char *const culprits[] = { "generic/137", NULL };
	struct sim s = { culprits, 0, 0 };
	struct reduce_result r;
	char **before = names(200);

	(void)state;
	assert_int_equal(reduce_order(before, 200, "generic/999", 100, probe, &s, &r), 0);
	assert_int_equal(r.verdict, REDUCE_FOUND);
	assert_int_equal(strv_length(r.culprits), 1);
	assert_string_equal(r.culprits[0], "generic/137");
	assert_int_equal(r.probes, s.probes);
	print_message("one culprit among 200: %u probes (target <= 40)\n", r.probes);
	assert_true(r.probes <= 40);
	reduce_result_release(&r);
	strv_free(before);
}

/* two that only together break it: both named, in their order */
static void test_two_together(void **state)
{
	const char *const culprits[] = { "generic/150", "generic/012", NULL };
	struct sim s = { culprits, 0, 0 };
	struct reduce_result r;
	char **before = names(64);

	(void)state;
	/* generic/150 is not among these 64: with all of them before it, it still passes */
	assert_int_equal(reduce_order(before, 64, "generic/999", 200, probe, &s, &r), 0);
	assert_int_equal(r.verdict, REDUCE_NOT_REPRODUCED);
	reduce_result_release(&r);
	strv_free(before);
	before = names(200);
	s.probes = 0;
	assert_int_equal(reduce_order(before, 200, "generic/999", 200, probe, &s, &r), 0);
	assert_int_equal(r.verdict, REDUCE_FOUND);
	assert_int_equal(strv_length(r.culprits), 2);
	assert_string_equal(r.culprits[0], "generic/012");
	assert_string_equal(r.culprits[1], "generic/150");
	reduce_result_release(&r);
	strv_free(before);
}

static void test_verdicts(void **state)
{
	const char *const culprits[] = { "generic/003", NULL };
	struct sim alone = { culprits, 1, 0 }, never = { culprits, -1, 0 }, s = { culprits, 0, 0 };
	struct reduce_result r;
	char **before = names(100);

	(void)state;
	assert_int_equal(reduce_order(before, 100, "generic/999", 50, probe, &alone, &r), 0);
	assert_int_equal(r.verdict, REDUCE_FAILS_ALONE);
	assert_null(r.culprits);
	assert_int_equal(r.probes, 1);
	reduce_result_release(&r);
	assert_int_equal(reduce_order(before, 100, "generic/999", 50, probe, &never, &r), 0);
	assert_int_equal(r.verdict, REDUCE_NOT_REPRODUCED);
	assert_int_equal(r.probes, 2);
	reduce_result_release(&r);
	/* the budget spent: the smallest failing set so far, never more probes than allowed */
	assert_int_equal(reduce_order(before, 100, "generic/999", 4, probe, &s, &r), 0);
	assert_int_equal(r.verdict, REDUCE_BUDGET);
	assert_int_equal(r.probes, 4);
	assert_true(strv_length(r.culprits) >= 1 && strv_length(r.culprits) < 100);
	assert_true(strv_contains(r.culprits, "generic/003"));
	reduce_result_release(&r);
	assert_int_equal(reduce_order(before, 100, "generic/999", 1, probe, &s, &r), -EINVAL);
	reduce_result_release(&r);
	strv_free(before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_of_200),
		cmocka_unit_test(test_two_together),
		cmocka_unit_test(test_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
