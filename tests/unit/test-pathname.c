// SPDX-License-Identifier: MIT
/* pathname_relative_ok: a path written by someone else that stays under the directory it is joined to. */
#include "unit.h"
#include "util/macro.h"
#include "util/pathname.h"

static void test_relative(void **state)
{
	static const char *const good[] = { "loop-control", "mapper/control", "artifacts/xfs_4k/002.out.bad",
					    "a/.hidden/b", "x..y" };
	static const char *const bad[] = { "",	  "/etc/shadow", "../etc/passwd", "a/../../b", "a/./b",
					   ".",	  "..",		 "a//b",	  "a/",	       "/",
					   "a b", "a/b\\c",	 "a\nb",	  "dev/$(x)" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		assert_true(pathname_relative_ok(good[i]));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (pathname_relative_ok(bad[i]))
			fail_msg("'%s' passed", bad[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relative),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
