// SPDX-License-Identifier: MIT
/* pool: which configs need the machine alone, from their text and their devices' sysfs (a fake tree). */
#include "unit.h"
#include "run/pool.h"
#include "util/sysroot.h"

#include <string.h>

static void mkdirs(const char *rel)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", unit_dir, rel);
	assert_int_equal(system(cmd), 0);
}

/* The [s] section lines of a config in unit_dir/c.config, then pool_needs_machine of it; why in why. */
static int needs(const char *lines, char *why, size_t ws)
{
	char path[256], text[1024];

	snprintf(text, sizeof(text), "[s]\nRESULT_BASE=/tmp/r\n%s", lines);
	unit_write_file("c.config", "w", text);
	snprintf(path, sizeof(path), "%s/c.config", unit_dir);
	why[0] = '\0';
	return pool_needs_machine(path, "s", why, ws);
}

static void test_needs_machine(void **state)
{
	char why[1024];

	(void)state;
	mkdirs("sys/class/block/vdb/queue");
	mkdirs("sys/class/block/vdc/queue");
	mkdirs("sys/class/block/pmem0/queue");
	unit_write_file("sys/class/block/vdb/queue/zoned", "w", "none\n");
	unit_write_file("sys/class/block/vdb/queue/dax", "w", "0\n");
	unit_write_file("sys/class/block/vdc/queue/zoned", "w", "host-managed\n");
	unit_write_file("sys/class/block/pmem0/queue/dax", "w", "1\n");
	assert_int_equal(sysroot_set(unit_dir), 0);
	/* plain devices, and a tmpfs config's names: shared at will */
	assert_int_equal(needs("FSTYP=xfs\nTEST_DEV=/dev/vdb\nSCRATCH_DEV=/dev/vdb\n", why, sizeof(why)), 0);
	assert_int_equal(needs("FSTYP=tmpfs\nTEST_DEV=tmpfs_test\n", why, sizeof(why)), 0);
	/* a zoned device: a loop device is not */
	assert_int_equal(needs("TEST_DEV=/dev/vdb\nSCRATCH_DEV=/dev/vdc\n", why, sizeof(why)), 1);
	assert_non_null(strstr(why, "c.config [s]: key 'SCRATCH_DEV': /dev/vdc is zoned"));
	/* a DAX-capable one */
	assert_int_equal(needs("TEST_DEV=/dev/pmem0\n", why, sizeof(why)), 1);
	assert_non_null(strstr(why, "key 'TEST_DEV': /dev/pmem0 is DAX-capable"));
	/* DAX asked for in the mount options, whatever the device */
	assert_int_equal(needs("TEST_DEV=/dev/vdb\nTEST_FS_MOUNT_OPTS=\"-o dax=always\"\n", why, sizeof(why)), 1);
	assert_non_null(strstr(why, "key 'TEST_FS_MOUNT_OPTS': '-o dax=always' asks for DAX"));
	/* devices no runner can have a copy of */
	assert_int_equal(needs("TEST_DEV=/dev/vdb\nSCRATCH_LOGDEV=/dev/vdd\n", why, sizeof(why)), 1);
	assert_non_null(strstr(why, "key 'SCRATCH_LOGDEV': a device every runner would share"));
	assert_int_equal(needs("FSTYP=nfs\nTEST_DEV=host:/export\n", why, sizeof(why)), 1);
	assert_non_null(strstr(why, "'host:/export' is not a block device"));
	assert_int_equal(needs("TEST_DEV=/dev/\n", why, sizeof(why)), 1);
	/* a device sysfs does not know: nothing says it is unlike a loop device */
	assert_int_equal(needs("TEST_DEV=/dev/vdz\n", why, sizeof(why)), 0);
	sysroot_set("");
	/* no such file */
	assert_int_equal(pool_needs_machine("/nonexistent/c.config", NULL, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "read '/nonexistent/c.config' failed"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_needs_machine, unit_mkdtemp, unit_rmdir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
