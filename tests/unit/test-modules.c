// SPDX-License-Identifier: MIT
/* modules: lookups in a captured module directory (nothing is loaded here). */
#include "unit.h"
#include "machine/modules.h"
#include "util/sysroot.h"

#include <errno.h>
#include <unistd.h>

static void test_available(void **state)
{
	struct modules *m = NULL;

	(void)state;
	assert_int_equal(sysroot_set(SYSROOT_DEBIAN), 0);
	assert_int_equal(modules_new(SYSROOT_DEBIAN, "6.1.0-57-amd64", &m), 0);
	assert_true(modules_have_index(m));
	assert_int_equal(modules_available(m, "xfs"), MODULE_AVAIL_LOADABLE);
	assert_int_equal(modules_available(m, "virtio_blk"), MODULE_AVAIL_LOADABLE);
	assert_int_equal(modules_available(m, "virtio-blk"), MODULE_AVAIL_LOADABLE);
	/* Debian builds these in: listed in modules.builtin */
	assert_int_equal(modules_available(m, "tmpfs") == MODULE_AVAIL_NONE ||
				 modules_available(m, "unix") == MODULE_AVAIL_BUILTIN,
			 1);
	assert_int_equal(modules_available(m, "no_such_module_xyz"), MODULE_AVAIL_NONE);
	modules_free(m);
	sysroot_set(NULL);
}

static void test_no_directory(void **state)
{
	struct modules *m = NULL;
	json_t *j;
	char *missing;

	(void)state;
	assert_int_equal(sysroot_set(SYSROOT_DEBIAN), 0);
	/* a kernel with everything built in has no module directory */
	assert_int_equal(modules_new("/nonexistent", "6.1.0", &m), 0);
	assert_false(modules_have_index(m));
	assert_int_equal(modules_load(m, "btrfs", true), -ENOENT);
	assert_int_equal(modules_load(m, "loop", false), -ENOENT);
	/* a registered filesystem is usable whatever the indexes say */
	assert_int_equal(modules_load(m, "xfs", true), 0);
	j = modules_to_json(m);
	assert_int_equal(json_array_size(j), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "status")), "absent");
	assert_true(json_is_true(json_object_get(json_array_get(j, 0), "required")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 2), "status")), "builtin");
	json_decref(j);
	missing = modules_failed_required(m);
	assert_non_null(missing);
	assert_string_equal(missing, "btrfs (absent)");
	free(missing);
	modules_free(m);
	sysroot_set(NULL);
}

static void test_builtin_from_kconfig(void **state)
{
	struct modules *m = NULL;

	(void)state;
	if (access(SYSROOT_TESTVM "/proc/config.gz", F_OK) < 0)
		skip();
	assert_int_equal(sysroot_set(SYSROOT_TESTVM), 0);
	/* the test kernel: no module directory, CONFIG_DM_FLAKEY=y, CONFIG_F2FS_FS unset */
	assert_int_equal(modules_new(SYSROOT_TESTVM, "6.1.192", &m), 0);
	assert_false(modules_have_index(m));
	assert_int_equal(modules_load(m, "dm_flakey", true), 0);
	assert_int_equal(modules_load(m, "dm-log-writes", true), 0);
	assert_int_equal(modules_load(m, "f2fs", false), -ENOENT);
	assert_int_equal(modules_available(m, "btrfs"), MODULE_AVAIL_BUILTIN);
	assert_null(modules_failed_required(m));
	modules_free(m);
	sysroot_set(NULL);
}

static void test_load_all_order(void **state)
{
	struct module_request reqs[] = { { "a_mod", false }, { "b_mod", true }, { "c_mod", false } };
	struct modules *m = NULL;
	json_t *j;

	(void)state;
	assert_int_equal(modules_new("/nonexistent", "6.1.0", &m), 0);
	assert_int_equal(modules_load_all(m, reqs, 3, 2), 0);
	j = modules_to_json(m);
	/* outcomes come back in request order whatever thread loaded them */
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "name")), "a_mod");
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 1), "name")), "b_mod");
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 2), "name")), "c_mod");
	json_decref(j);
	modules_free(m);
}

static void test_note_loaded(void **state)
{
	struct modules *m = NULL;
	json_t *j;

	(void)state;
	/* no index needed: an earlier stage loaded it */
	assert_int_equal(modules_new("/nonexistent", "6.1.0", &m), 0);
	assert_int_equal(modules_note_loaded(m, "virtio_blk"), 0);
	assert_true(modules_usable(m, "virtio-blk"));
	assert_false(modules_usable(m, "nvme"));
	j = modules_to_json(m);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "status")), "already-loaded");
	json_decref(j);
	modules_free(m);
}

static void test_wanted_by_devices(void **state)
{
	/* the captured VM: a virtio-blk PCI function, its virtio device, an ISA bridge */
	const char *const names[] = { "virtio_pci", "virtio-blk", "nvme", "virtio_scsi" };
	const char *const all[] = { "pci", "virtio", "nd", NULL }, *const pci[] = { "pci", NULL };
	const char *const virtio[] = { "virtio", NULL }, *const none[] = { NULL };
	bool want[4];
	struct modules *m = NULL;

	(void)state;
	assert_int_equal(sysroot_set(SYSROOT_DEBIAN), 0);
	assert_int_equal(modules_new(SYSROOT_DEBIAN, "6.1.0-57-amd64", &m), 0);
	assert_int_equal(modules_wanted_by_devices(m, all, names, 4, want), 2);
	assert_true(want[0]);
	assert_true(want[1]);
	assert_false(want[2]);
	assert_false(want[3]);
	/* the PCI function alone already wants its virtio device's driver */
	assert_int_equal(modules_wanted_by_devices(m, pci, names, 4, want), 2);
	assert_true(want[0] && want[1]);
	/* only the buses asked for are looked at */
	assert_int_equal(modules_wanted_by_devices(m, virtio, names, 4, want), 1);
	assert_true(want[1]);
	assert_false(want[0]);
	assert_int_equal(modules_wanted_by_devices(m, none, names, 4, want), 0);
	modules_free(m);
	/* no index (everything built in): nothing to load */
	assert_int_equal(modules_new("/nonexistent", "6.1.0", &m), 0);
	assert_int_equal(modules_wanted_by_devices(m, all, names, 4, want), 0);
	assert_false(want[0]);
	modules_free(m);
	sysroot_set(NULL);
}

/* A modern (non-transitional) virtio-blk function: device 0x1040 + 2. */
static void test_wanted_by_modern_virtio(void **state)
{
	const char *const names[] = { "virtio_pci", "virtio_scsi", "virtio_blk" };
	const char *const pci[] = { "pci", NULL };
	char path[256];
	struct modules *m = NULL;
	bool want[3];

	(void)state;
	snprintf(path, sizeof(path), "mkdir -p %s/sys/bus/pci/devices/0000:00:05.0", unit_dir);
	assert_int_equal(system(path), 0);
	unit_write_file("sys/bus/pci/devices/0000:00:05.0/modalias", "w",
			"pci:v00001AF4d00001042sv00001AF4sd00001100bc01sc00i00\n");
	assert_int_equal(sysroot_set(unit_dir), 0);
	assert_int_equal(modules_new(SYSROOT_DEBIAN, "6.1.0-57-amd64", &m), 0);
	assert_int_equal(modules_wanted_by_devices(m, pci, names, 3, want), 2);
	assert_true(want[0]);
	assert_false(want[1]);
	assert_true(want[2]);
	modules_free(m);
	sysroot_set(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_available),
		cmocka_unit_test(test_no_directory),
		cmocka_unit_test(test_builtin_from_kconfig),
		cmocka_unit_test(test_load_all_order),
		cmocka_unit_test(test_note_loaded),
		cmocka_unit_test(test_wanted_by_devices),
		cmocka_unit_test_setup_teardown(test_wanted_by_modern_virtio, unit_mkdtemp, unit_rmdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
