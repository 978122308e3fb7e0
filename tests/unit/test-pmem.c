// SPDX-License-Identifier: MIT
/* pmem: raw namespaces made fsdax through sysfs, over a fake sysfs tree. */
#include "unit.h"
#include "machine/pmem.h"
#include "util/sysroot.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static void mkdirs(const char *rel)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", unit_dir, rel);
	assert_int_equal(system(cmd), 0);
}

static char *read_back(const char *rel)
{
	static char buf[128];
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", unit_dir, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A region with one raw namespace: its /dev/pmemN 2 MiB, blank unless told, and the sysfs files written to. */
static void region(int n, const char *mode, int dax, bool blank)
{
	char rel[128], txt[64];
	FILE *f;

	snprintf(rel, sizeof(rel), "sys/bus/nd/devices/namespace%d.0/block/pmem%d", n, n);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "sys/block/pmem%d/queue", n);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "sys/bus/nd/devices/pfn%d.0", n);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "sys/bus/nd/devices/region%d", n);
	mkdirs(rel);
	mkdirs("sys/bus/nd/drivers/nd_pmem");
	mkdirs("proc/sys/kernel/random");
	mkdirs("dev");
	snprintf(rel, sizeof(rel), "sys/bus/nd/devices/namespace%d.0/mode", n);
	unit_write_file(rel, "w", mode);
	snprintf(rel, sizeof(rel), "sys/bus/nd/devices/namespace%d.0/size", n);
	unit_write_file(rel, "w", "2097152\n");
	snprintf(rel, sizeof(rel), "sys/block/pmem%d/queue/dax", n);
	snprintf(txt, sizeof(txt), "%d\n", dax);
	unit_write_file(rel, "w", txt);
	snprintf(rel, sizeof(rel), "sys/bus/nd/devices/region%d/pfn_seed", n);
	snprintf(txt, sizeof(txt), "pfn%d.0\n", n);
	unit_write_file(rel, "w", txt);
	for (const char *const *a = (const char *const[]){ "uuid", "mode", "namespace", NULL }; *a; a++) {
		snprintf(rel, sizeof(rel), "sys/bus/nd/devices/pfn%d.0/%s", n, *a);
		unit_write_file(rel, "w", "");
	}
	unit_write_file("sys/bus/nd/drivers/nd_pmem/bind", "w", "");
	unit_write_file("sys/bus/nd/drivers/nd_pmem/unbind", "w", "");
	unit_write_file("proc/sys/kernel/random/uuid", "w", "8c0ef1b6-2b1a-4d2e-9b5e-0f5d3f6f1c2a\n");
	snprintf(rel, sizeof(rel), "%s/dev/pmem%d", unit_dir, n);
	f = fopen(rel, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), 2 << 20), 0);
	if (!blank) {
		fseek(f, 1 << 19, SEEK_SET);
		fputs("XFSB", f);
	}
	fclose(f);
}

static void test_makes_fsdax(void **state)
{
	char blk[32];

	(void)state;
	region(0, "raw\n", 0, true);
	assert_int_equal(sysroot_set(unit_dir), 0);
	assert_int_equal(pmem_block_of("namespace0.0", blk, sizeof(blk)), 0);
	assert_string_equal(blk, "pmem0");
	assert_int_equal(pmem_make_fsdax(), 1);
	/* the seed pfn got a uuid, struct pages on the device and the namespace; then was bound */
	assert_string_equal(read_back("sys/bus/nd/devices/pfn0.0/uuid"), "8c0ef1b6-2b1a-4d2e-9b5e-0f5d3f6f1c2a");
	assert_string_equal(read_back("sys/bus/nd/devices/pfn0.0/mode"), "pmem");
	assert_string_equal(read_back("sys/bus/nd/devices/pfn0.0/namespace"), "namespace0.0");
	assert_string_equal(read_back("sys/bus/nd/drivers/nd_pmem/unbind"), "namespace0.0");
	assert_string_equal(read_back("sys/bus/nd/drivers/nd_pmem/bind"), "pfn0.0");
	sysroot_set("");
}

static void test_leaves_alone(void **state)
{
	char blk[32];

	(void)state;
	region(0, "raw\n", 1, true);   /* DAX already (legacy memmap= pmem) */
	region(1, "fsdax\n", 0, true); /* not raw */
	region(2, "raw\n", 0, false);  /* holds data */
	assert_int_equal(sysroot_set(unit_dir), 0);
	assert_int_equal(pmem_make_fsdax(), 0);
	assert_string_equal(read_back("sys/bus/nd/drivers/nd_pmem/bind"), "");
	assert_string_equal(read_back("sys/bus/nd/devices/pfn2.0/namespace"), "");
	/* a namespace a pfn claims: its block device is the pfn's */
	mkdirs("sys/bus/nd/devices/namespace3.0");
	mkdirs("sys/bus/nd/devices/pfn3.1/block/pmem3");
	unit_write_file("sys/bus/nd/devices/namespace3.0/holder", "w", "pfn3.1\n");
	assert_int_equal(pmem_block_of("namespace3.0", blk, sizeof(blk)), 0);
	assert_string_equal(blk, "pmem3");
	unit_write_file("sys/bus/nd/devices/namespace3.0/holder", "w", "../x\n");
	assert_int_equal(pmem_block_of("namespace3.0", blk, sizeof(blk)), -ENOENT);
	sysroot_set("");
	/* no nd bus at all: nothing to do */
	assert_int_equal(sysroot_set("/nonexistent"), 0);
	assert_int_equal(pmem_make_fsdax(), 0);
	sysroot_set("");
}

/* a failed step gives the namespace back to nd_pmem and is the result */
static void test_failure(void **state)
{
	char path[256];

	(void)state;
	region(0, "raw\n", 0, true);
	snprintf(path, sizeof(path), "%s/sys/bus/nd/devices/pfn0.0/mode", unit_dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(sysroot_set(unit_dir), 0);
	assert_int_equal(pmem_make_fsdax(), -ENOENT);
	assert_string_equal(read_back("sys/bus/nd/drivers/nd_pmem/bind"), "namespace0.0");
	sysroot_set("");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_makes_fsdax, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_leaves_alone, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_failure, unit_mkdtemp, unit_rmdir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
