// SPDX-License-Identifier: MIT
/* mkfs: why a format failed, in mkfs's own words. */
#include "unit.h"
#include "machine/mkfs.h"

static void test_why(void **state)
{
	/* mkfs.btrfs (btrfs-progs 6.2) on a mounted device: the error, not the closing hint */
	char btrfs[] = "btrfs-progs v6.2\nSee http://btrfs.wiki.kernel.org for more information.\n\n"
		       "ERROR: /dev/vdc is mounted\n\nSee http://btrfs.wiki.kernel.org for more information.\n\n";
	char xfs[] = "mkfs.xfs: cannot open /dev/vdz: No such file or directory\r\n";
	char plain[] = "first\nsecond\n  \n";
	char empty[] = "";

	(void)state;
	assert_string_equal(mkfs_why(btrfs), "ERROR: /dev/vdc is mounted");
	assert_string_equal(mkfs_why(xfs), "mkfs.xfs: cannot open /dev/vdz: No such file or directory");
	assert_string_equal(mkfs_why(plain), "second");
	assert_string_equal(mkfs_why(empty), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
