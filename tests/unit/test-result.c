// SPDX-License-Identifier: MIT
/* result: the statuses' names and predicates, the one vocabulary every reader and writer uses. */
#include "unit.h"
#include "model/result.h"

static void test_names(void **state)
{
	(void)state;
	for (int i = TS_PASS; i < TS_MAX; i++)
		assert_int_equal(test_status_from_string(test_status_to_string((enum test_status)i)), i);
	/* what a bundle may not hold */
	assert_int_equal(test_status_from_string("pending"), TS_MAX);
	assert_int_equal(test_status_from_string("owned"), TS_MAX);
	assert_int_equal(test_status_from_string(""), TS_MAX);
	assert_int_equal(test_status_from_string(NULL), TS_MAX);
	assert_string_equal(test_status_to_string(TS_MAX), "?");
}

static void test_predicates(void **state)
{
	static const char *const failed[] = { "fail", "timeout", "crash", "error" };
	static const char *const skipped[] = { "notrun", "expunged" };

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		assert_true(test_status_name_failed(failed[i]));
		assert_false(test_status_name_skipped(failed[i]));
	}
	for (size_t i = 0; i < 2; i++) {
		assert_true(test_status_name_skipped(skipped[i]));
		assert_false(test_status_name_failed(skipped[i]));
	}
	assert_false(test_status_name_failed("pass"));
	assert_false(test_status_name_skipped("pass"));
	assert_false(test_status_name_failed("owned"));
	assert_false(test_status_failed(TS_PENDING));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_predicates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
