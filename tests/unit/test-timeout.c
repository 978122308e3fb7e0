// SPDX-License-Identifier: MIT
/* timeout = auto: the rule of model/timeout.h, number by number. */
#include "unit.h"
#include "model/timeout.h"
#include "model/fstests_vars.h"

static void test_history(void **state)
{
	(void)state;
	/* a short test gets the floor, a long one a multiple of its history */
	assert_int_equal(timeout_auto(2.5, 1, NULL), TIMEOUT_FLOOR);
	assert_int_equal(timeout_auto(60, 1, NULL), TIMEOUT_FLOOR);
	assert_int_equal(timeout_auto(61, 1, NULL), 305);
	assert_int_equal(timeout_auto(700, 1, NULL), 3500);
	assert_int_equal(timeout_auto(0, 1, NULL), TIMEOUT_FLOOR);
	/* never seen: the generous fixed value */
	assert_int_equal(timeout_auto(-1, 1, NULL), TIMEOUT_UNSEEN);
	/* bounded: a week at most, whatever the history says */
	assert_int_equal(timeout_auto(1e12, 1, NULL), 604800);
	assert_int_equal(timeout_auto(1.0 / 0.0, 1, NULL), TIMEOUT_UNSEEN);
}

static void test_scale(void **state)
{
	char lockdep[] = "lockdep", kasan[] = "kasan", dax[] = "dax", kmemleak[] = "kmemleak", kcsan[] = "kcsan",
	     ubsan[] = "ubsan";
	char *none[] = { dax, NULL }, *ld[] = { lockdep, dax, NULL }, *both[] = { lockdep, kasan, NULL },
	     *all[] = { lockdep, kasan, kmemleak, kcsan, ubsan, NULL };

	(void)state;
	assert_true(timeout_scale(NULL) == 1);
	assert_true(timeout_scale(none) == 1);
	assert_true(timeout_scale(ld) == 3);
	assert_true(timeout_scale(both) == 9);
	assert_true(timeout_scale(all) == TIMEOUT_SCALE_MAX);
	assert_int_equal(timeout_auto(100, timeout_scale(ld), NULL), 1500);
	assert_int_equal(timeout_auto(-1, timeout_scale(both), NULL), 9 * TIMEOUT_UNSEEN);
	/* a slowdown below 1 is no speed-up */
	assert_int_equal(timeout_auto(-1, 0.1, NULL), TIMEOUT_UNSEEN);
}

/* fstests' own knobs: TIME_FACTOR makes tests longer, SOAK_DURATION soaks that long on top */
static void test_fstests_vars(void **state)
{
	json_t *v = json_pack("{s:s, s:s}", "TIME_FACTOR", "2", "SOAK_DURATION", "1.5h");

	(void)state;
	assert_int_equal(timeout_auto(100, 1, v), 2 * 500 + 5400);
	json_object_set_new(v, "SOAK_DURATION", json_string("bogus"));
	assert_int_equal(timeout_auto(100, 1, v), 1000);
	json_decref(v);
	assert_true(fstests_duration_seconds("90") == 90);
	assert_true(fstests_duration_seconds("2m") == 120);
	assert_true(fstests_duration_seconds("1w") == 604800);
	assert_true(fstests_duration_seconds("2x") < 0);
	assert_true(fstests_duration_seconds("2hh") < 0);
	assert_true(fstests_duration_seconds("-3") < 0);
	assert_true(fstests_duration_seconds("") < 0);
	assert_true(fstests_duration_seconds(NULL) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_fstests_vars),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
