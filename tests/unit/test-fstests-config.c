// SPDX-License-Identifier: MIT
/* fstests.config read back: the sections fsagent writes, and what a guest could write instead. */
#include "unit.h"
#include "model/fstests_config.h"

#include <errno.h>
#include <string.h>

static void test_sections(void **state)
{
	json_t *doc = NULL;
	char err[256];

	(void)state;
	assert_int_equal(fstests_config_parse("# written by fsagent\n[xfs_4k]\nFSTYP=\"xfs\"\nTEST_DEV=\"/dev/vdb\"\n"
					      "MKFS_OPTIONS=\"-b size=4096 -m reflink=1\"\n\n[ext4_1k]\nFSTYP=ext4\n"
					      "MOUNT_OPTIONS=\"\"\n",
					      "fstests.config", &doc, err, sizeof(err)),
			 0);
	assert_int_equal(json_object_size(doc), 2);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "xfs_4k"), "MKFS_OPTIONS")),
			    "-b size=4096 -m reflink=1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "ext4_1k"), "FSTYP")), "ext4");
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "ext4_1k"), "MOUNT_OPTIONS")), "");
	json_decref(doc);
	/* an empty file: no sections */
	assert_int_equal(fstests_config_parse("", "f", &doc, err, sizeof(err)), 0);
	assert_int_equal(json_object_size(doc), 0);
	json_decref(doc);
}

static void refused(const char *text, const char *want)
{
	json_t *doc = NULL;
	char err[256] = "";

	assert_int_equal(fstests_config_parse(text, "fstests.config", &doc, err, sizeof(err)), -EINVAL);
	assert_null(doc);
	if (!strstr(err, want))
		fail_msg("'%s' does not say '%s'", err, want);
}

static void test_hostile(void **state)
{
	(void)state;
	refused("TEST_DEV=\"/dev/vdb\"\n", "fstests.config:1: key 'TEST_DEV' before any [section]");
	refused("[xfs_4k]\nMKFS_OPTIONS=\"$(reboot)\"\n", "fstests.config:2: key 'MKFS_OPTIONS': the value is not");
	refused("[xfs_4k]\nX=\"a`id`\"\n", ":2: key 'X'");
	refused("[xfs_4k]\nX=a b\n", ":2: key 'X'");
	refused("[xfs_4k]\nX=\"a\\\"b\"\n", ":2: key 'X'");
	refused("[xfs_4k]\nX=\"a\x01\"\n", ":2: key 'X'");
	refused("[xfs_4k]\nlower=\"x\"\n", ":2: expected KEY=\"value\" or [section]");
	refused("[xfs_4k]\n1X=\"x\"\n", ":2: expected KEY=");
	refused("[xfs_4k]\nrm -rf /\n", ":2: expected KEY=");
	refused("[../x]\n", ":1: '[../x]' is not a section name");
	refused("[]\n", ":1: '[]' is not a section name");
	refused("[a]\n[a]\n", ":2: section 'a' seen twice");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
