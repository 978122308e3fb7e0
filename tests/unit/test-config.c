// SPDX-License-Identifier: MIT
/* config: fsagent.* words on the kernel command line. */
#include "unit.h"
#include "boot/config.h"

#include <errno.h>

static void test_defaults(void **state)
{
	struct boot_config c;
	char err[256];

	(void)state;
	assert_int_equal(config_parse_cmdline("console=ttyS0 root=/dev/vda quiet", &c, err, sizeof(err)), 0);
	assert_int_equal(c.action, ACTION_POWEROFF);
	assert_int_equal(c.udev, UDEV_AUTO);
	assert_int_equal(c.loglevel, 2);
	for (int i = 0; i < ROLE_MAX; i++)
		assert_null(c.role_spec[i]);
	assert_null(c.wipe);
	boot_config_release(&c);
	assert_int_equal(config_parse_cmdline(NULL, &c, err, sizeof(err)), 0);
	boot_config_release(&c);
}

static void test_values(void **state)
{
	struct boot_config c;
	char err[256];

	(void)state;
	assert_int_equal(config_parse_cmdline(
				 "console=ttyS0 fsagent.dev.test=serial:abc fsagent.dev.scratch=/dev/vdc "
				 "fsagent.dev.pool=vdd,vde,label:p3 fsagent.wipe=vdc,serial:x "
				 "fsagent.action=reboot fsagent.udev=0 fsagent.fs=xfs,ext4 "
				 "fsagent.modules=dm_flakey \"fsagent.hostname=vm-1\" fsagent.loglevel=3 "
				 "fsagent.root=LABEL=fsagent-root fsagent.pmem=fsdax fsagent.dev.dax_test=/dev/pmem0 "
				 "fsagent.shell=1",
				 &c, err, sizeof(err)),
			 0);
	assert_string_equal(c.role_spec[ROLE_TEST], "serial:abc");
	assert_string_equal(c.role_spec[ROLE_SCRATCH], "/dev/vdc");
	assert_string_equal(c.role_spec[ROLE_POOL], "vdd,vde,label:p3");
	assert_string_equal(c.wipe, "vdc,serial:x");
	assert_int_equal(c.action, ACTION_REBOOT);
	assert_int_equal(c.udev, UDEV_OFF);
	assert_string_equal(c.fs, "xfs,ext4");
	assert_string_equal(c.modules, "dm_flakey");
	assert_string_equal(c.hostname, "vm-1");
	assert_int_equal(c.loglevel, 3);
	assert_string_equal(c.root, "LABEL=fsagent-root");
	assert_true(c.pmem_fsdax);
	assert_string_equal(c.role_spec[ROLE_DAX_TEST], "/dev/pmem0");
	assert_true(c.shell);
	boot_config_release(&c);
}

static void test_quoted_value(void **state)
{
	struct boot_config c;
	char err[256];

	(void)state;
	/* the kernel's quoting: quotes group and vanish */
	assert_int_equal(config_parse_cmdline("a=\"x y\" fsagent.dev.test=\"label:my disk\" b", &c, err, sizeof(err)),
			 0);
	assert_string_equal(c.role_spec[ROLE_TEST], "label:my disk");
	boot_config_release(&c);
}

static void expect_error(const char *cmdline, const char *needle)
{
	struct boot_config c;
	char err[256] = "";

	assert_int_equal(config_parse_cmdline(cmdline, &c, err, sizeof(err)), -EINVAL);
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("fsagent.bogus=1", "key 'fsagent.bogus': unknown key");
	expect_error("fsagent.dev.bogus=vdb", "key 'fsagent.dev.bogus': unknown role 'bogus'");
	expect_error("fsagent.dev.test=serial:", "bad device spec 'serial:'");
	expect_error("fsagent.dev.test=vdb,vdc", "key 'fsagent.dev.test': bad device spec");
	expect_error("fsagent.dev.test=foo:bar", "bad device spec 'foo:bar'");
	expect_error("fsagent.action=explode", "'explode' is not poweroff, reboot or halt");
	expect_error("fsagent.udev=yes", "key 'fsagent.udev'");
	expect_error("fsagent.loglevel=9", "key 'fsagent.loglevel'");
	expect_error("fsagent.pmem=devdax", "key 'fsagent.pmem': 'devdax' is not fsdax or keep");
	expect_error("fsagent.shell=yes", "key 'fsagent.shell': 'yes' is not 0 or 1");
	expect_error("fsagent.wipe=vdb,,vdc", "key 'fsagent.wipe': empty list item");
	expect_error("fsagent.fs=", "key 'fsagent.fs': empty list item");
	expect_error("fsagent.action", "key 'fsagent.action': missing '=value'");
	expect_error("fsagent.hostname=0123456789012345678901234567890123456789012345678901234567890123",
		     "hostname must have 1 to 63 characters");
	expect_error("fsagent.root=vda", "key 'fsagent.root': 'vda' is not LABEL=..., UUID=... or /dev/...");
	expect_error("fsagent.commit=abc123", "key 'fsagent.commit': 'abc123' is not a full commit id");
	expect_error("fsagent.describe=v6.1;rm", "key 'fsagent.describe': 'v6.1;rm' is not git describe's words");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_quoted_value),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
