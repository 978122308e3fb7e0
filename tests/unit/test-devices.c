// SPDX-License-Identifier: MIT
/* devices: the inventory over a sysroot captured from a real VM. */
#include "unit.h"
#include "machine/devices.h"
#include "util/sysroot.h"
#include "fixture.h"

#include <errno.h>

static const struct device *find(const struct device_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	fail_msg("no device %s", name);
	return NULL;
}

static void test_debian_vm(void **state)
{
	struct device_list l;
	const struct device *d;
	char root[PATH_MAX];

	(void)state;
	assert_int_equal(fixture_materialize(SYSROOT_DEBIAN, root, sizeof(root)), 0);
	assert_int_equal(sysroot_set(root), 0);
	assert_int_equal(devices_scan(&l), 0);
	assert_int_equal(l.n, 7);

	d = find(&l, "vda");
	assert_string_equal(d->serial, "fsagent-results");
	assert_string_equal(d->transport, "virtio");
	assert_string_equal(d->fstype, "ext4");
	assert_string_equal(d->label, "fsagent-results");
	assert_true(d->is_mounted); /* the capture script had it mounted on /mnt */
	assert_false(d->is_root);

	d = find(&l, "vdb");
	assert_string_equal(d->serial, "fsagent-test");
	assert_int_equal(d->size_bytes, 256ULL << 20);
	assert_null(d->fstype);
	assert_false(device_has_signature(d));
	assert_int_equal(d->logical_block, 512);
	assert_int_equal(d->major, 254);
	assert_int_equal(d->minor, 16);

	d = find(&l, "vdc");
	assert_string_equal(d->label, "precious");
	assert_string_equal(d->uuid, "0b5e7a1c-0000-4000-8000-000000000001");
	assert_true(device_has_signature(d));

	d = find(&l, "vdd");
	assert_string_equal(d->serial, "fsagent-rt");
	assert_string_equal(d->pttype, "gpt");
	assert_int_equal(d->n_parts, 2);
	assert_string_equal(d->parts[0].name, "vdd1");
	assert_int_equal(d->parts[0].partno, 1);
	assert_int_equal(d->parts[0].start_bytes, 1048576);
	assert_int_equal(d->parts[0].size_bytes, 20971520);
	assert_string_equal(d->parts[0].fstype, "ext4");
	assert_string_equal(d->parts[0].label, "part-one");
	assert_int_equal(d->parts[1].partno, 2);
	assert_null(d->parts[1].fstype);
	assert_true(device_has_signature(d));

	d = find(&l, "vde");
	assert_int_equal(d->logical_block, 4096);
	assert_int_equal(d->physical_block, 4096);
	assert_true(d->discard_max_bytes > 0);
	assert_int_equal(d->discard_granularity, 4096);

	d = find(&l, "nvme0n1");
	assert_string_equal(d->transport, "nvme");
	assert_string_equal(d->serial, "fsagent-zns"); /* padded with spaces in sysfs */
	assert_string_equal(d->model, "QEMU NVMe Ctrl");
	assert_string_equal(d->zoned, "host-managed");
	assert_int_equal(d->nr_zones, 16);
	assert_non_null(d->wwid);
	assert_true(d->write_cache);

	d = find(&l, "pmem0");
	assert_string_equal(d->transport, "pmem");
	assert_false(d->dax);
	assert_int_equal(d->size_bytes, 128ULL << 20);

	device_list_release(&l);
	sysroot_set(NULL);
	fixture_remove(root);
}

static void test_testvm(void **state)
{
	struct device_list l;
	const struct device *d;
	char root[PATH_MAX];

	(void)state;
	if (access(SYSROOT_TESTVM "/proc", F_OK) < 0)
		skip();
	assert_int_equal(fixture_materialize(SYSROOT_TESTVM, root, sizeof(root)), 0);
	assert_int_equal(sysroot_set(root), 0);
	assert_int_equal(devices_scan(&l), 0);
	d = find(&l, "sda");
	assert_string_equal(d->transport, "scsi");
	assert_string_equal(d->model, "scsi_debug");
	assert_string_equal(d->vendor, "Linux");
	d = find(&l, "nullb0");
	assert_string_equal(d->transport, "virtual");
	assert_null(d->serial);
	device_list_release(&l);
	sysroot_set(NULL);
	fixture_remove(root);
}

static void test_json(void **state)
{
	struct device_list l;
	json_t *j;

	(void)state;
	assert_int_equal(sysroot_set(SYSROOT_DEBIAN), 0);
	assert_int_equal(devices_scan(&l), 0);
	j = devices_to_json(&l);
	assert_int_equal(json_array_size(j), l.n);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "name")), "nvme0n1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(j, 0), "queue"), "zoned")),
			    "host-managed");
	json_decref(j);
	device_list_release(&l);
	sysroot_set(NULL);
}

static void test_trim_and_ids(void **state)
{
	char s[] = "  fsagent-zns          ", id[128];
	struct device d = { .serial = (char *)"abc 1", .model = (char *)"QEMU NVMe Ctrl", .transport = (char *)"nvme" };

	(void)state;
	assert_string_equal(devices_trim_serial(s), "fsagent-zns");
	assert_int_equal(device_udev_id_name(&d, id, sizeof(id)), 0);
	assert_string_equal(id, "nvme-QEMU_NVMe_Ctrl_abc_1");
	d.transport = (char *)"virtio";
	d.serial = (char *)"fsagent-test";
	assert_int_equal(device_udev_id_name(&d, id, sizeof(id)), 0);
	assert_string_equal(id, "virtio-fsagent-test");
	d.serial = NULL;
	assert_int_equal(device_udev_id_name(&d, id, sizeof(id)), -ENOENT);
}

static void test_describe(void **state)
{
	struct device d = {
		.devnode = "/dev/vdc", .fstype = (char *)"xfs", .usage = (char *)"filesystem", .uuid = (char *)"u-1"
	};
	char buf[256];

	(void)state;
	device_describe_signature(&d, buf, sizeof(buf));
	assert_string_equal(buf, "xfs filesystem UUID=u-1");
	d.fstype = (char *)"LVM2_member";
	d.usage = (char *)"raid";
	d.uuid = NULL;
	device_describe_signature(&d, buf, sizeof(buf));
	assert_string_equal(buf, "LVM2_member RAID/LVM member signature");
	d.fstype = NULL;
	d.pttype = (char *)"gpt";
	d.n_parts = 2;
	device_describe_signature(&d, buf, sizeof(buf));
	assert_string_equal(buf, "gpt partition table, 2 partition(s)");
}

static void test_missing_sysroot(void **state)
{
	struct device_list l;

	(void)state;
	assert_int_equal(sysroot_set("/nonexistent"), 0);
	assert_int_equal(devices_scan(&l), -ENOENT);
	sysroot_set(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian_vm), cmocka_unit_test(test_testvm),
		cmocka_unit_test(test_json),	  cmocka_unit_test(test_trim_and_ids),
		cmocka_unit_test(test_describe),  cmocka_unit_test(test_missing_sysroot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
