// SPDX-License-Identifier: MIT
/* machine_wide: what in a test's script needs the machine alone, from real fstests lines. */
#include "unit.h"
#include "model/machine_wide.h"

#include <string.h>

static const char *why(const char *text)
{
	return machine_wide_why(text, strlen(text));
}

static void test_machine_wide(void **state)
{
	(void)state;
	/* generic/650's CPU hotplug */
	assert_string_equal(why("_begin_fstest auto rw stress soak\n"
				"sysfs_cpu_dir=\"/sys/devices/system/cpu\"\n"),
			    "it takes CPUs offline (CPU hotplug)");
	/* xfs/434's module reload */
	assert_string_equal(why("_require_loadable_fs_module \"xfs\"\n"),
			    "it unloads the filesystem's module, which every runner's mounts hold");
	assert_non_null(strstr(why("\t_reload_fs_module \"$FSTYP\"\n"), "module"));
	/* generic/460's writeback settings, and memory compaction */
	assert_string_equal(why("echo 1 > /proc/sys/vm/dirty_writeback_centisecs\n"),
			    "it changes the machine's writeback settings (/proc/sys/vm)");
	assert_string_equal(why("echo 1 > /proc/sys/vm/compact_memory"), "it compacts the machine's memory");
	/* what a test may do beside others: drop caches (check-parallel's group says where that matters) */
	assert_null(why("echo 3 > /proc/sys/vm/drop_caches\n_scratch_cycle_mount\n"));
	/* comments do not count, indented or not */
	assert_null(why("# unlike generic/650, no /sys/devices/system/cpu here\n  # _reload_fs_module\n"));
	assert_null(why(""));
	/* the needle at the very end, with no newline; a line cut short does not overrun */
	assert_non_null(why("x\n_require_loadable_module"));
	assert_null(machine_wide_why("_require_loadable_module", 10));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_machine_wide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
