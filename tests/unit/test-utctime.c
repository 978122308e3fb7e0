// SPDX-License-Identifier: MIT
/* UTC times as bundles and plans write them. */
#include "unit.h"
#include "util/utctime.h"

#include <errno.h>

static void test_round_trip(void **state)
{
	char buf[UTCTIME_SIZE];
	long long t = -1;

	(void)state;
	assert_int_equal(utctime_parse("2026-12-05T06:56:35Z", &t), 0);
	assert_int_equal(t, 1796453795LL);
	utctime_format(t, buf, sizeof(buf));
	assert_string_equal(buf, "2026-12-05T06:56:35Z");
	utctime_format(0, buf, sizeof(buf));
	assert_string_equal(buf, "1970-01-01T00:00:00Z");
}

static void test_refused(void **state)
{
	long long t;

	(void)state;
	assert_int_equal(utctime_parse(NULL, &t), -EINVAL);
	assert_int_equal(utctime_parse("", &t), -EINVAL);
	assert_int_equal(utctime_parse("2026-12-05T06:56:35", &t), -EINVAL);
	assert_int_equal(utctime_parse("2026-12-05T06:56:35Z<x>", &t), -EINVAL);
	assert_int_equal(utctime_parse("2026-12-05 06:56:35Z", &t), -EINVAL);
	assert_int_equal(utctime_parse("yesterday", &t), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
