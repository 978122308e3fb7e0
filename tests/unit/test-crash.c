// SPDX-License-Identifier: MIT
/*
 * crash_record: a serial run resumed after the machine went down names the
 * test the crashed kernel's log says had started last, when the one before
 * it has no result yet (its verdict went down with the machine).
 */
#include "unit.h"
#include "boot/crash.h"
#include "model/bundle.h"
#include "util/macro.h"
#include "util/strv.h"
#include "util/sysroot.h"

#include <sys/stat.h>
#include <unistd.h>

static char t1[] = "generic/001", t2[] = "generic/002", t3[] = "generic/003", t4[] = "generic/004";
static char *const order[] = { t1, t2, t3, t4, NULL };

/* A serial run at generic/002: 001 passed; pstore holds the crashed kernel's log (or nothing: log NULL). */
static void crashed_run(struct bundle *b, const char *log)
{
	struct test_result t = { .status = TS_PASS, .duration = 1 };
	char dir[128];
	json_t *c, *it;

	assert_int_equal(bundle_create(b, unit_dir, "r1", json_object(), NULL), 0);
	c = bundle_add_config(b, "xfs/4k");
	it = bundle_add_iteration(b, c, 0, "42", order);
	assert_non_null(it);
	snprintf(t.name, sizeof(t.name), "generic/001");
	assert_int_equal(bundle_record_test(b, c, it, &t, NULL), 0);
	assert_int_equal(bundle_write(b), 0);
	snprintf(dir, sizeof(dir), "%s/sys", unit_dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	strcat(dir, "/fs");
	assert_int_equal(mkdir(dir, 0755), 0);
	strcat(dir, "/pstore");
	assert_int_equal(mkdir(dir, 0755), 0);
	if (log)
		unit_write_file("sys/fs/pstore/dmesg-ramoops-0", "w", log);
	assert_int_equal(sysroot_set(unit_dir), 0);
}

/* test's status in the bundle's only iteration ("" when it has no record), and the tests left, blank-separated. */
static void expect(struct bundle *b, const char *test, const char *status, const char *left_want)
{
	json_t *c = json_array_get(json_object_get(b->doc, "configs"), 0);
	json_t *it = json_array_get(json_object_get(c, "iterations"), 0), *t;
	json_auto_t *doc = NULL;
	char **left = NULL, path[128], err[256], joined[256] = "";
	const char *got = "";
	size_t i;

	snprintf(path, sizeof(path), "%s/runs/r1", unit_dir);
	assert_int_equal(bundle_load(path, &doc, err, sizeof(err)), 0);
	json_array_foreach(
		json_object_get(
			json_array_get(
				json_object_get(json_array_get(json_object_get(doc, "configs"), 0), "iterations"), 0),
			"tests"),
		i, t)
		if (streq(json_string_value(json_object_get(t, "name")), test))
			got = json_string_value(json_object_get(t, "status"));
	assert_string_equal(got, status);
	assert_int_equal(bundle_remaining(b, c, it, &left), 0);
	for (i = 0; left && left[i]; i++)
		snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s", i ? " " : "", left[i]);
	assert_string_equal(joined, left_want);
	strv_free(left);
}

static const char log_003[] = "--- pstore dmesg-ramoops-0\n"
			      "<6>[   10.1] run fstests generic/002 at 2026-12-07 22:13:35\n"
			      "<6>[   11.2] run fstests generic/003 at 2026-12-07 22:13:36\n"
			      "<0>[   11.3] Kernel panic - not syncing: sysrq triggered crash\n";

static void test_next_started(void **state)
{
	struct bundle b;
	char why[512];
	char path[128];

	(void)state;
	crashed_run(&b, log_003);
	assert_int_equal(crash_record(&b, why, sizeof(why)), 0);
	/* 003 had started: 002 had ended, its result lost; it runs again */
	expect(&b, "generic/003", "crash", "generic/002 generic/004");
	expect(&b, "generic/002", "", "generic/002 generic/004");
	/* pstore read once */
	snprintf(path, sizeof(path), "%s/sys/fs/pstore/dmesg-ramoops-0", unit_dir);
	assert_int_equal(access(path, F_OK), -1);
	bundle_release(&b);
	sysroot_set("");
}

static void test_first_running(void **state)
{
	struct bundle b;
	char why[512];

	(void)state;
	crashed_run(&b, "<6>[   10.1] run fstests generic/002 at 2026-12-07 22:13:35\n"
			"<0>[   11.3] Kernel panic - not syncing: sysrq triggered crash\n");
	assert_int_equal(crash_record(&b, why, sizeof(why)), 0);
	expect(&b, "generic/002", "crash", "generic/003 generic/004");
	bundle_release(&b);
	sysroot_set("");
}

static void test_no_pstore(void **state)
{
	struct bundle b;
	char why[512];

	(void)state;
	crashed_run(&b, NULL);
	assert_int_equal(crash_record(&b, why, sizeof(why)), 0);
	expect(&b, "generic/002", "crash", "generic/003 generic/004");
	bundle_release(&b);
	sysroot_set("");
}

/* A marker further on than the next test (or of another test) says nothing sure: the first is named */
static void test_marker_of_no_next(void **state)
{
	struct bundle b;
	char why[512];

	(void)state;
	crashed_run(&b, "<6>[   10.1] run fstests generic/004 at 2026-12-07 22:13:35\n");
	assert_int_equal(crash_record(&b, why, sizeof(why)), 0);
	expect(&b, "generic/002", "crash", "generic/003 generic/004");
	bundle_release(&b);
	sysroot_set("");
}

/* The whole boot's log and no marker in it: no test had started; nothing recorded, why says so */
static void test_before_any_test(void **state)
{
	struct bundle b;
	char why[512];

	(void)state;
	crashed_run(&b, "<5>[    0.000000] Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)\n"
			"<6>[    9.100000] XFS (loop0): Mounting V5 Filesystem\n"
			"<0>[    9.200000] Kernel panic - not syncing: sysrq triggered crash\n");
	assert_int_equal(crash_record(&b, why, sizeof(why)), 1);
	assert_string_equal(why, "the machine went down before any test started (formatting, mounting, or check's own "
				 "start): Kernel panic - not syncing: sysrq triggered crash");
	expect(&b, "generic/002", "", "generic/002 generic/003 generic/004");
	bundle_release(&b);
	sysroot_set("");
}

/* The same with a test's marker after the boot's start: that test's crash */
static void test_from_boot_with_marker(void **state)
{
	struct bundle b;
	char why[512];

	(void)state;
	crashed_run(&b, "<5>[    0.000000] Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)\n"
			"<6>[   10.1] run fstests generic/002 at 2026-12-07 22:13:35\n"
			"<0>[   11.3] Kernel panic - not syncing: sysrq triggered crash\n");
	assert_int_equal(crash_record(&b, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	expect(&b, "generic/002", "crash", "generic/003 generic/004");
	bundle_release(&b);
	sysroot_set("");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_next_started, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_first_running, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_no_pstore, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_marker_of_no_next, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_before_any_test, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_from_boot_with_marker, unit_mkdtemp, unit_rmdir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
