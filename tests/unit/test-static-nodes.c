// SPDX-License-Identifier: MIT
/* static_nodes: modules.devname parsed, and its nodes made under a sysroot as kmod static-nodes makes them. */
#include "unit.h"
#include "machine/static_nodes.h"
#include "util/fileio.h"
#include "util/sysroot.h"

#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Debian 12's 6.1 kernel's file, as it is */
static const char debian[] = "# Device nodes to trigger on-demand module loading.\n"
			     "fuse fuse c10:229\n"
			     "btrfs btrfs-control c10:234\n"
			     "loop loop-control c10:237\n"
			     "dm_mod mapper/control c10:236\n"
			     "cuse cuse c10:203\n";

static void test_parse(void **state)
{
	struct static_node v[8];
	size_t n;
	unsigned bad = 0;
	static const char odd[] = "loop loop-control c10:237\n"
				  "evil ../etc/passwd c1:3\n" /* out of /dev */
				  "evil /etc/shadow c1:3\n"
				  "half half\n"
				  "blk zram0 b252:0\n"
				  "\n";

	(void)state;
	assert_int_equal(static_nodes_parse(debian, sizeof(debian) - 1, v, 8, &n, &bad), 0);
	assert_int_equal(n, 5);
	assert_int_equal(bad, 0);
	assert_string_equal(v[2].module, "loop");
	assert_string_equal(v[2].name, "loop-control");
	assert_int_equal(v[2].type, 'c');
	assert_int_equal(v[2].major, 10);
	assert_int_equal(v[2].minor, 237);
	assert_string_equal(v[3].name, "mapper/control");
	assert_int_equal(static_nodes_parse(odd, sizeof(odd) - 1, v, 8, &n, &bad), 0);
	assert_int_equal(n, 2);
	assert_int_equal(bad, 2); /* the first line skipped */
	assert_string_equal(v[1].name, "zram0");
	assert_int_equal(v[1].type, 'b');
	assert_int_equal(static_nodes_parse(debian, sizeof(debian) - 1, v, 3, &n, NULL), -E2BIG);
}

static void test_make(void **state)
{
	char path[PATH_MAX];
	struct stat st;

	(void)state;
	if (geteuid() != 0)
		skip(); /* mknod needs root; .ci/run runs as root */
	snprintf(path, sizeof(path), "%s/lib/modules/6.1.0-test", unit_dir);
	assert_int_equal(fileio_mkdir_p(path), 0);
	snprintf(path, sizeof(path), "%s/dev", unit_dir);
	assert_int_equal(fileio_mkdir_p(path), 0);
	assert_int_equal(sysroot_set(unit_dir), 0);
	/* no file: nothing to make */
	assert_int_equal(static_nodes_make("6.1.0-test"), 0);
	snprintf(path, sizeof(path), "%s/lib/modules/6.1.0-test/modules.devname", unit_dir);
	assert_int_equal(fileio_write_atomic(path, debian, sizeof(debian) - 1), 0);
	assert_int_equal(static_nodes_make("6.1.0-test"), 5);
	snprintf(path, sizeof(path), "%s/dev/mapper/control", unit_dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(major(st.st_rdev), 10);
	assert_int_equal(minor(st.st_rdev), 236);
	/* those there are left: a second boot makes none */
	assert_int_equal(static_nodes_make("6.1.0-test"), 0);
	sysroot_set("");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test_setup_teardown(test_make, unit_mkdtemp, unit_rmdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
