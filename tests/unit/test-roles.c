// SPDX-License-Identifier: MIT
/* roles: matching specs, defaults, and the format-safety policy. */
#include "unit.h"
#include "machine/roles.h"
#include "util/sysroot.h"

#include <errno.h>

static struct device devs_v[12];
static struct device_list devs = { devs_v, 0 };

static struct device *add(const char *name, const char *serial, const char *label, const char *fstype)
{
	struct device *d = &devs_v[devs.n++];

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->devnode, sizeof(d->devnode), "/dev/%s", name);
	d->serial = (char *)serial;
	d->label = (char *)label;
	d->fstype = (char *)fstype;
	d->usage = fstype ? (char *)"filesystem" : NULL;
	d->transport = (char *)"virtio";
	d->size_bytes = 1 << 30;
	return d;
}

static int setup(void **state)
{
	(void)state;
	devs.n = 0;
	add("vda", "fsagent-results", "fsagent-results", "ext4");
	add("vdb", "fsagent-test", NULL, NULL);
	add("vdc", "fsagent-scratch", NULL, "xfs"); /* left by an earlier fstests run */
	add("vdd", "fsagent-log", "precious", "ext4");
	add("vde", "fsagent-pool1", NULL, NULL);
	add("vdf", "fsagent-pool0", NULL, NULL);
	add("sda", NULL, "root", "ext4")->is_root = true;
	return 0;
}

static const struct role_slot *slot(const struct roles *r, enum role role, unsigned idx)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].role == role && r->v[i].index == idx)
			return &r->v[i];
	return NULL;
}

static void test_defaults_and_refusals(void **state)
{
	struct roles_request req = { 0 };
	struct roles r;
	const struct role_slot *s;

	(void)state;
	roles_assign(&devs, &req, &r);
	s = slot(&r, ROLE_RESULTS, 0);
	assert_non_null(s);
	assert_int_equal(s->state, ROLE_ASSIGNED);
	assert_string_equal(s->dev->name, "vda");
	assert_int_equal(slot(&r, ROLE_TEST, 0)->state, ROLE_ASSIGNED);
	/* an xfs fsagent never claimed: refused, naming device and content */
	s = slot(&r, ROLE_SCRATCH, 0);
	assert_int_equal(s->state, ROLE_REFUSED);
	assert_non_null(strstr(s->reason, "'/dev/vdc' holds xfs filesystem"));
	assert_non_null(strstr(s->reason, "fsagent.wipe=vdc"));
	s = slot(&r, ROLE_LOG, 0);
	assert_int_equal(s->state, ROLE_REFUSED);
	assert_non_null(strstr(s->reason, "LABEL=precious"));
	assert_null(roles_get(&r, ROLE_LOG));
	assert_null(slot(&r, ROLE_RT, 0));
	/* pool by serial prefix, in name order */
	assert_string_equal(slot(&r, ROLE_POOL, 0)->dev->name, "vde");
	assert_string_equal(slot(&r, ROLE_POOL, 1)->dev->name, "vdf");
}

/* persistent memory has no serial: the DAX roles take the DAX-capable devices in name order */
static void test_dax_defaults(void **state)
{
	struct roles_request req = { 0 };
	struct roles r;

	(void)state;
	add("pmem0", NULL, NULL, NULL)->dax = true;
	add("pmem1", NULL, NULL, NULL)->dax = true;
	add("pmem2", NULL, "mine", "ext4")->dax = true; /* a third, holding data: never reached */
	roles_assign(&devs, &req, &r);
	assert_string_equal(roles_get(&r, ROLE_DAX_TEST)->dev->name, "pmem0");
	assert_string_equal(roles_get(&r, ROLE_DAX_SCRATCH)->dev->name, "pmem1");
	assert_non_null(strstr(slot(&r, ROLE_DAX_SCRATCH, 0)->matched_by, "DAX-capable, second"));
	for (size_t i = 0; i < r.n; i++)
		assert_string_not_equal(r.v[i].dev->name, "pmem2");

	/* one DAX device: test only; a root one is never taken */
	setup(NULL);
	add("pmem0", NULL, NULL, "ext4")->is_root = true;
	devs_v[devs.n - 1].dax = true;
	add("pmem1", NULL, NULL, NULL)->dax = true;
	roles_assign(&devs, &req, &r);
	assert_string_equal(roles_get(&r, ROLE_DAX_TEST)->dev->name, "pmem1");
	assert_null(roles_get(&r, ROLE_DAX_SCRATCH));
	assert_null(slot(&r, ROLE_DAX_SCRATCH, 0));

	/* given explicitly, like any role */
	req.spec[ROLE_DAX_SCRATCH] = "/dev/pmem1";
	req.spec[ROLE_DAX_TEST] = "vdb";
	setup(NULL);
	add("pmem1", NULL, NULL, NULL);
	roles_assign(&devs, &req, &r);
	assert_string_equal(roles_get(&r, ROLE_DAX_SCRATCH)->dev->name, "pmem1");
	/* vdb is the test device already */
	assert_int_equal(slot(&r, ROLE_DAX_TEST, 0)->state, ROLE_REFUSED);
	assert_int_equal(role_from_string("dax_scratch"), ROLE_DAX_SCRATCH);
}

/* zoned disks likewise: host-managed or host-aware, in name order; conventional ones never */
static void test_zoned_defaults(void **state)
{
	struct roles_request req = { 0 };
	struct roles r;

	(void)state;
	snprintf(add("nvme0n1", "fsagent-zoned0", NULL, NULL)->zoned, 16, "host-managed");
	snprintf(add("nvme1n1", "fsagent-zoned1", NULL, NULL)->zoned, 16, "none");
	snprintf(add("sdb", NULL, NULL, NULL)->zoned, 16, "host-aware");
	roles_assign(&devs, &req, &r);
	assert_string_equal(roles_get(&r, ROLE_ZONED_TEST)->dev->name, "nvme0n1");
	assert_string_equal(roles_get(&r, ROLE_ZONED_SCRATCH)->dev->name, "sdb");
	assert_non_null(strstr(slot(&r, ROLE_ZONED_TEST, 0)->matched_by, "zoned, first"));
	assert_null(roles_get(&r, ROLE_DAX_TEST));
}

static void test_claims_and_wipe(void **state)
{
	const char *claims[] = { "serial:fsagent-scratch", NULL };
	struct roles_request req = { .claims = claims, .wipe = "serial:fsagent-log" };
	struct roles r;

	(void)state;
	roles_assign(&devs, &req, &r);
	assert_int_equal(slot(&r, ROLE_SCRATCH, 0)->state, ROLE_ASSIGNED);
	assert_true(slot(&r, ROLE_SCRATCH, 0)->claimed_before);
	assert_int_equal(slot(&r, ROLE_LOG, 0)->state, ROLE_ASSIGNED);
	assert_true(slot(&r, ROLE_LOG, 0)->wipe_allowed);
}

static void test_root_never(void **state)
{
	struct roles_request req = { .spec = { [ROLE_TEST] = "sda" }, .wipe = "all" };
	struct roles r;

	(void)state;
	roles_assign(&devs, &req, &r);
	assert_int_equal(slot(&r, ROLE_TEST, 0)->state, ROLE_REFUSED);
	assert_non_null(strstr(slot(&r, ROLE_TEST, 0)->reason, "root filesystem"));
}

static void test_explicit_specs(void **state)
{
	struct roles_request req = { .spec = { [ROLE_TEST] = "label:precious",
					       [ROLE_SCRATCH] = "/dev/vdb",
					       [ROLE_RT] = "serial:nope",
					       [ROLE_POOL] = "vdf,vde" },
				     .wipe = "vdd" };
	struct roles r;

	(void)state;
	roles_assign(&devs, &req, &r);
	assert_string_equal(slot(&r, ROLE_TEST, 0)->dev->name, "vdd");
	assert_int_equal(slot(&r, ROLE_TEST, 0)->state, ROLE_ASSIGNED);
	assert_string_equal(slot(&r, ROLE_SCRATCH, 0)->dev->name, "vdb");
	assert_string_equal(r.missing[ROLE_RT], "serial:nope");
	assert_string_equal(slot(&r, ROLE_POOL, 0)->dev->name, "vdf");
	assert_string_equal(slot(&r, ROLE_POOL, 1)->dev->name, "vde");
	/* the log default (serial fsagent-log) now names vdd, which already has a role */
	assert_int_equal(slot(&r, ROLE_LOG, 0)->state, ROLE_REFUSED);
	assert_non_null(strstr(slot(&r, ROLE_LOG, 0)->reason, "already has role test"));
}

static void test_busy_devices(void **state)
{
	struct roles_request req = { .wipe = "all" };
	struct roles r;

	(void)state;
	devs_v[1].is_mounted = true;
	devs_v[2].has_holders = true;
	devs_v[4].read_only = true;
	roles_assign(&devs, &req, &r);
	assert_non_null(strstr(slot(&r, ROLE_TEST, 0)->reason, "is mounted"));
	assert_non_null(strstr(slot(&r, ROLE_SCRATCH, 0)->reason, "in use by another block device"));
	assert_non_null(strstr(slot(&r, ROLE_POOL, 0)->reason, "read-only"));
}

static void test_results_needs_fs(void **state)
{
	struct roles_request req = { .spec = { [ROLE_RESULTS] = "vdb" } };
	struct roles r;

	(void)state;
	roles_assign(&devs, &req, &r);
	assert_int_equal(slot(&r, ROLE_RESULTS, 0)->state, ROLE_REFUSED);
	assert_non_null(strstr(slot(&r, ROLE_RESULTS, 0)->reason, "holds no filesystem"));
}

static void test_spec_forms(void **state)
{
	(void)state;
	assert_int_equal(roles_spec_validate("serial:x"), 0);
	assert_int_equal(roles_spec_validate("/dev/disk/by-id/virtio-x"), 0);
	assert_int_equal(roles_spec_validate("nvme0n1"), 0);
	assert_int_equal(roles_spec_validate("label:"), -EINVAL);
	assert_int_equal(roles_spec_validate("what:x"), -EINVAL);
	assert_int_equal(roles_spec_validate("dev/vdb"), -EINVAL);
	assert_int_equal(roles_spec_validate(""), -EINVAL);
	assert_true(roles_spec_matches("/dev/vdb", &devs_v[1]));
	assert_true(roles_spec_matches("serial:fsagent-test", &devs_v[1]));
	assert_false(roles_spec_matches("serial:fsagent-tes", &devs_v[1]));
	assert_false(roles_spec_matches("uuid:x", &devs_v[1]));
}

static void test_by_id_link(void **state)
{
	struct device d = { .name = "vdb", .devnode = "/dev/vdb" };
	char dir[] = "/tmp/fsagent-roles-XXXXXX", path[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/dev/disk/by-id", dir);
	assert_int_equal(system(NULL) != 0, 1);
	snprintf(path, sizeof(path),
		 "mkdir -p %s/dev/disk/by-id && touch %s/dev/vdb && "
		 "ln -s ../../vdb %s/dev/disk/by-id/virtio-t",
		 dir, dir, dir);
	assert_int_equal(system(path), 0);
	sysroot_set(dir);
	assert_true(roles_spec_matches("/dev/disk/by-id/virtio-t", &d));
	assert_false(roles_spec_matches("/dev/disk/by-id/virtio-u", &d));
	sysroot_set(NULL);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_defaults_and_refusals, setup),
		cmocka_unit_test_setup(test_dax_defaults, setup),
		cmocka_unit_test_setup(test_zoned_defaults, setup),
		cmocka_unit_test_setup(test_claims_and_wipe, setup),
		cmocka_unit_test_setup(test_root_never, setup),
		cmocka_unit_test_setup(test_explicit_specs, setup),
		cmocka_unit_test_setup(test_busy_devices, setup),
		cmocka_unit_test_setup(test_results_needs_fs, setup),
		cmocka_unit_test_setup(test_spec_forms, setup),
		cmocka_unit_test(test_by_id_link),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
