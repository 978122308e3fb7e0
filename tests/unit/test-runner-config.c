// SPDX-License-Identifier: MIT
/* runner_config: one parallel runner's fstests config from the config's text. */
#include "unit.h"
#include "model/runner_config.h"

#include <errno.h>
#include <stdlib.h>

static const char *const sets[] = { "TEST_DIR=/p/runner-1/test", "RESULT_BASE=/p/runner-1/results", NULL };

static char *made(const char *text, const char *section, const char *const *s, int want)
{
	char *out = NULL, err[256] = "";

	assert_int_equal(runner_config_text(text, section, s, &out, err, sizeof(err)), want);
	return out;
}

static void test_sections(void **state)
{
	const char *text = "# fsagent's config\nexport FSSTRESS_AVOID=\"-f x\"\n"
			   "[xfs_4k]\nFSTYP=xfs\nTEST_DEV=/dev/vdb\nTEST_DIR=/mnt/test\n  TEST_DIR = /mnt/t2\n"
			   "MKFS_OPTIONS=\"-b size=4096\"\n"
			   "[ext4_4k]\nFSTYP=ext4\nTEST_DIR=/mnt/e\n";
	char *out;

	(void)state;
	out = made(text, "ext4_4k", sets, 0);
	/* the preamble kept, the other section left out, the keys replaced once, at the section's end */
	assert_string_equal(out, "# fsagent's config\nexport FSSTRESS_AVOID=\"-f x\"\n[ext4_4k]\nFSTYP=ext4\n"
				 "TEST_DIR=\"/p/runner-1/test\"\nRESULT_BASE=\"/p/runner-1/results\"\n");
	free(out);
	out = made(text, "xfs_4k", sets, 0);
	assert_string_equal(out, "# fsagent's config\nexport FSSTRESS_AVOID=\"-f x\"\n[xfs_4k]\nFSTYP=xfs\n"
				 "TEST_DEV=/dev/vdb\nMKFS_OPTIONS=\"-b size=4096\"\n"
				 "TEST_DIR=\"/p/runner-1/test\"\nRESULT_BASE=\"/p/runner-1/results\"\n");
	free(out);
	/* no section named: the first, as check takes it */
	out = made(text, NULL, sets, 0);
	assert_non_null(strstr(out, "[xfs_4k]\n"));
	assert_null(strstr(out, "[ext4_4k]"));
	free(out);
	assert_null(made(text, "btrfs_4k", sets, -ENOENT));
}

static void test_plain(void **state)
{
	char *out;

	(void)state;
	out = made("FSTYP=xfs\nexport TEST_DIR=/mnt/test\nRESULT_BASE=/r\nTEST_DIRS=keep", NULL, sets, 0);
	assert_string_equal(out, "FSTYP=xfs\nTEST_DIRS=keep\nexport TEST_DIR=\"/p/runner-1/test\"\n"
				 "export RESULT_BASE=\"/p/runner-1/results\"\n");
	free(out);
	/* a value that cannot be quoted */
	{
		const char *const bad[] = { "TEST_DIR=/p/$(reboot)", NULL };

		assert_null(made("FSTYP=xfs\n", NULL, bad, -EINVAL));
	}
}

static void test_get(void **state)
{
	const char *text = "export FSTYP=ext4\nMKFS_OPTIONS=-q\n[xfs_4k]\nFSTYP=xfs\nMKFS_OPTIONS=\"-b size=4096\"\n"
			   "TEST_DEV = /dev/vdb \nSCRATCH_DEV=\n[ext4_4k]\nTEST_DEV=/dev/vdd\n";
	char buf[64];

	(void)state;
	assert_int_equal(runner_config_get(text, "xfs_4k", "FSTYP", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "xfs");
	assert_int_equal(runner_config_get(text, "xfs_4k", "MKFS_OPTIONS", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "-b size=4096");
	assert_int_equal(runner_config_get(text, NULL, "TEST_DEV", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/dev/vdb");
	/* set empty is not set; the preamble's value where the section has none */
	assert_int_equal(runner_config_get(text, "xfs_4k", "SCRATCH_DEV", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(runner_config_get(text, "ext4_4k", "FSTYP", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "ext4");
	assert_int_equal(runner_config_get(text, "ext4_4k", "TEST_DEV", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/dev/vdd");
	assert_int_equal(runner_config_get(text, "ext4_4k", "TEST_DIR", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(runner_config_get(text, "xfs_4k", "MKFS_OPTIONS", buf, 4), -ENAMETOOLONG);
	/* no section named: the first, however many keys come before the one asked (found by fuzz-runner-config) */
	assert_int_equal(runner_config_get("[a]\nX=1\n[b]\nY=2\n[a]\nY=3\n", NULL, "Y", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_get),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
