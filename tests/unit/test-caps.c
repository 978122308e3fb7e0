// SPDX-License-Identifier: MIT
/* caps: pure parsers, and collection over captured sysroots. */
#include "unit.h"
#include "machine/caps.h"
#include "machine/kconfig.h"
#include "util/sysroot.h"

#include <errno.h>
#include <unistd.h>

static void test_kconfig(void **state)
{
	const char *cfg = "#\n# Automatically generated\n#\nCONFIG_XFS_FS=m\n"
			  "# CONFIG_PROVE_LOCKING is not set\nCONFIG_LOCALVERSION=\"-test\"\n"
			  "CONFIG_XFS_FS_X=y\nCONFIG_NR_CPUS=64";
	const char *v;

	(void)state;
	assert_int_equal(kconfig_get(cfg, "CONFIG_XFS_FS", &v), 1);
	assert_string_equal(v, "m");
	assert_int_equal(kconfig_get(cfg, "CONFIG_PROVE_LOCKING", &v), 0);
	assert_int_equal(kconfig_get(cfg, "CONFIG_LOCALVERSION", &v), 1);
	assert_string_equal(v, "-test");
	assert_int_equal(kconfig_get(cfg, "CONFIG_NR_CPUS", &v), 1);
	assert_string_equal(v, "64");
	assert_int_equal(kconfig_get(cfg, "CONFIG_XFS", &v), 0);
	assert_int_equal(kconfig_get("", "CONFIG_XFS_FS", &v), 0);
	/* the first line has no newline before it */
	assert_int_equal(kconfig_get("CONFIG_XFS_FS=y\n", "CONFIG_XFS_FS", &v), 1);
	assert_string_equal(v, "y");
	assert_int_equal(kconfig_get("XCONFIG_XFS_FS=y\n", "CONFIG_XFS_FS", &v), 0);
}

static void test_cpu_list(void **state)
{
	(void)state;
	assert_int_equal(caps_count_cpu_list("0"), 1);
	assert_int_equal(caps_count_cpu_list("0-1\n"), 2);
	assert_int_equal(caps_count_cpu_list("0-3,8,10-11"), 7);
	assert_int_equal(caps_count_cpu_list(""), -EINVAL);
	assert_int_equal(caps_count_cpu_list("3-1"), -EINVAL);
	assert_int_equal(caps_count_cpu_list("a"), -EINVAL);
	assert_int_equal(caps_count_cpu_list("0;1"), -EINVAL);
}

static void test_meminfo(void **state)
{
	const char *mi = "MemTotal:         915100 kB\nMemFree:          800000 kB\n";

	(void)state;
	assert_int_equal(caps_meminfo_kb(mi, "MemTotal"), 915100);
	assert_int_equal(caps_meminfo_kb(mi, "MemFree"), 800000);
	assert_int_equal(caps_meminfo_kb(mi, "Mem"), -ENOENT);
	assert_int_equal(caps_meminfo_kb(mi, "SwapTotal"), -ENOENT);
}

static void test_taint(void **state)
{
	char b[32];

	(void)state;
	caps_taint_letters(0, b);
	assert_string_equal(b, "G");
	caps_taint_letters(1 << 9, b); /* TAINT_WARN */
	assert_string_equal(b, "W");
	caps_taint_letters((1 << 0) | (1 << 12) | (1 << 13), b); /* P, O, E */
	assert_string_equal(b, "POE");
}

static void test_lockdep_stats(void **state)
{
	(void)state;
	assert_int_equal(caps_lockdep_debug_locks(" lock-classes: 1 [max: 8192]\n debug_locks:  1\n"), 1);
	assert_int_equal(caps_lockdep_debug_locks(" debug_locks:                            0\n"), 0);
	assert_int_equal(caps_lockdep_debug_locks("nothing"), -ENOENT);
}

static void test_collect_debian(void **state)
{
	struct caps c;
	json_t *j;

	(void)state;
	assert_int_equal(sysroot_set(SYSROOT_DEBIAN), 0);
	assert_int_equal(caps_collect(NULL, &c, &j), 0);
	assert_string_equal(c.release, "6.1.0-57-amd64");
	assert_true(c.version_ok);
	assert_int_equal(c.version.major, 6);
	assert_false(c.lockdep_configured);
	assert_false(c.lockdep_live);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "kconfig"), "source")),
			    "/boot/config-<release>");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(json_object_get(j, "kconfig"), "options"), "XFS_FS")),
		"m");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "machine"), "cpus")), 2);
	assert_int_equal(json_array_size(json_object_get(j, "pmem")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "pmem"), 0), "mode")),
			    "raw");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "taint"), "flags")), "G");
	json_decref(j);
	sysroot_set(NULL);
}

static void test_collect_testvm(void **state)
{
	struct caps c;
	json_t *j;

	(void)state;
	if (sysroot_set(SYSROOT_TESTVM) < 0 || access(SYSROOT_TESTVM "/proc", F_OK) < 0)
		skip();
	assert_int_equal(caps_collect(NULL, &c, &j), 0);
	/* the shared test kernel: lockdep built in and live, config from /proc/config.gz */
	assert_true(c.lockdep_configured);
	assert_true(c.lockdep_live);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "kconfig"), "source")),
			    "/proc/config.gz");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(j, "kconfig"), "options"),
							      "PROVE_LOCKING")),
			    "y");
	json_decref(j);
	sysroot_set(NULL);
}

static void test_collect_missing(void **state)
{
	struct caps c;
	json_t *j;

	(void)state;
	assert_int_equal(sysroot_set("/nonexistent"), 0);
	assert_int_equal(caps_collect(NULL, &c, &j), -ENOENT);
	sysroot_set(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kconfig),	       cmocka_unit_test(test_cpu_list),
		cmocka_unit_test(test_meminfo),	       cmocka_unit_test(test_taint),
		cmocka_unit_test(test_lockdep_stats),  cmocka_unit_test(test_collect_debian),
		cmocka_unit_test(test_collect_testvm), cmocka_unit_test(test_collect_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
