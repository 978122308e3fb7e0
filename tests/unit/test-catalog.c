// SPDX-License-Identifier: MIT
/* catalog: every shipped config parses; all-lists; what a machine cannot serve; fstests sections. */
#include "unit.h"
#include "boot/catalog.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>

#define CATALOG FIXTURE_DIR "/../../image/configs"

static void test_every_config_loads(void **state)
{
	char all[] = "all", **names = NULL, *v[] = { all, NULL }, err[256] = "";
	const char *families[] = { "btrfs/", "cifs/",	 "exfat/", "ext2/", "ext3/", "ext4/", "f2fs/",
				   "nfs/",   "overlay/", "tmpfs/", "udf/",  "vfat/", "xfs/" };
	size_t f = 0;

	(void)state;
	/* "all": every family's all, families in name order */
	assert_int_equal(catalog_expand(CATALOG, v, &names, err, sizeof(err)), 0);
	assert_int_equal(strv_length(names), 49);
	for (size_t i = 0; names[i]; i++) {
		struct fs_config c;

		if (catalog_load(CATALOG, names[i], &c, err, sizeof(err)) < 0)
			fail_msg("%s", err);
		assert_string_equal(c.name, names[i]);
		fs_config_release(&c);
		if (!startswith(names[i], families[f]))
			f++;
		if (f >= ARRAY_SIZE(families) || !startswith(names[i], families[f]))
			fail_msg("%s out of family order", names[i]);
	}
	assert_int_equal(f, ARRAY_SIZE(families) - 1);
	assert_true(strv_contains(names, "f2fs/compress") && strv_contains(names, "tmpfs/huge"));
	strv_free(names);
}

static void test_expand(void **state)
{
	char a[] = "ext4/1k", b[] = "xfs/all", c[] = "xfs/4k", *v[] = { a, b, c, NULL }, **out = NULL, err[256];
	char bad[] = "zfs/all", *w[] = { bad, NULL };

	(void)state;
	assert_int_equal(catalog_expand(CATALOG, v, &out, err, sizeof(err)), 0);
	assert_int_equal(strv_length(out), 15); /* ext4/1k + 14 xfs, xfs/4k not twice */
	assert_string_equal(out[0], "ext4/1k");
	assert_string_equal(out[1], "xfs/4k");
	assert_string_equal(out[12], "xfs/dax");
	strv_free(out);
	assert_int_equal(catalog_expand(CATALOG, w, &out, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "config 'zfs/all': no such filesystem in the catalog");
}

static struct device dv[8];
static struct roles roles_with(bool log, bool scratch)
{
	struct roles r = { 0 };
	const char *names[] = { "vdb", "vdc", "vdd", "vde", "vdf" };
	const enum role rl[] = { ROLE_TEST, ROLE_SCRATCH, ROLE_LOG, ROLE_POOL, ROLE_POOL };

	for (size_t i = 0; i < 5; i++) {
		snprintf(dv[i].devnode, sizeof(dv[i].devnode), "/dev/%s", names[i]);
		if ((rl[i] == ROLE_LOG && !log) || (rl[i] == ROLE_SCRATCH && !scratch))
			continue;
		r.v[r.n++] =
			(struct role_slot){ .role = rl[i], .index = i == 4, .dev = &dv[i], .state = ROLE_ASSIGNED };
	}
	return r;
}

static const char *unmet(const struct fs_config *c, const struct roles *r, char **caps, json_t *opts,
			 const struct kver *kernel, char *why)
{
	const struct catalog_machine m = { .roles = r, .caps = caps, .kconfig_options = opts, .kernel = kernel };

	return catalog_unmet(c, &m, why, 128);
}

static void test_unmet(void **state)
{
	struct fs_config c;
	char err[256], why[128], *caps[] = { NULL };
	struct roles r = roles_with(false, true);
	json_t *opts = json_pack("{s:s, s:n}", "XFS_FS", "m", "XFS_RT");

	(void)state;
	assert_int_equal(catalog_load(CATALOG, "xfs/4k", &c, err, sizeof(err)), 0);
	assert_null(unmet(&c, &r, caps, opts, NULL, why));
	fs_config_release(&c);
	assert_int_equal(catalog_load(CATALOG, "xfs/dax", &c, err, sizeof(err)), 0);
	assert_string_equal(unmet(&c, &r, caps, opts, NULL, why), "no DAX device");
	fs_config_release(&c);
	assert_int_equal(catalog_load(CATALOG, "xfs/logdev", &c, err, sizeof(err)), 0);
	assert_string_equal(unmet(&c, &r, caps, opts, NULL, why), "no log device");
	fs_config_release(&c);
	r = roles_with(true, true);
	assert_int_equal(catalog_load(CATALOG, "xfs/realtime_logdev", &c, err, sizeof(err)), 0);
	assert_string_equal(unmet(&c, &r, caps, opts, NULL, why), "no realtime device");
	fs_config_release(&c);
	assert_int_equal(catalog_load(CATALOG, "btrfs/default", &c, err, sizeof(err)), 0);
	r = roles_with(false, false);
	assert_null(unmet(&c, &r, caps, opts, NULL, why)); /* the pool stands for scratch */
	fs_config_release(&c);
	/* ext4/encrypt: fscrypt's ciphers too (the shared test kernel has no XTS: ENOPKG at the first mkdir) */
	{
		json_t *enc = json_pack("{s:s, s:n, s:s}", "FS_ENCRYPTION", "y", "CRYPTO_XTS", "CRYPTO_CTS", "m");

		r = roles_with(false, true);
		assert_int_equal(catalog_load(CATALOG, "ext4/encrypt", &c, err, sizeof(err)), 0);
		assert_string_equal(unmet(&c, &r, caps, enc, NULL, why), "kernel without CONFIG_CRYPTO_XTS");
		json_object_set_new(enc, "CRYPTO_XTS", json_string("m"));
		assert_null(unmet(&c, &r, caps, enc, NULL, why));
		fs_config_release(&c);
		json_decref(enc);
	}
	/* large block sizes: a kernel version, when it is known */
	{
		struct kver old, lbs;

		assert_int_equal(kver_parse("6.1.0-57-amd64", &old), 0);
		assert_int_equal(kver_parse("6.12.3", &lbs), 0);
		r = roles_with(false, true);
		assert_int_equal(catalog_load(CATALOG, "xfs/16k", &c, err, sizeof(err)), 0);
		assert_string_equal(unmet(&c, &r, caps, opts, &old, why), "kernel older than 6.12");
		assert_string_equal(unmet(&c, &r, caps, opts, NULL, why), "kernel older than 6.12");
		assert_null(unmet(&c, &r, caps, opts, &lbs, why));
		fs_config_release(&c);
	}
	/* no devices at all (tmpfs), and the new families' kernel options */
	{
		json_t *none = json_object();

		r = (struct roles){ 0 };
		assert_int_equal(catalog_load(CATALOG, "tmpfs/default", &c, err, sizeof(err)), 0);
		assert_true(c.devices & CAT_DEV_NONE);
		assert_null(unmet(&c, &r, caps, none, NULL, why));
		fs_config_release(&c);
		assert_int_equal(catalog_load(CATALOG, "tmpfs/huge", &c, err, sizeof(err)), 0);
		assert_string_equal(unmet(&c, &r, caps, none, NULL, why), "kernel without CONFIG_TRANSPARENT_HUGEPAGE");
		fs_config_release(&c);
		assert_int_equal(catalog_load(CATALOG, "ext2/default", &c, err, sizeof(err)), 0);
		assert_string_equal(unmet(&c, &r, caps, none, NULL, why), "no test device");
		fs_config_release(&c);
		r = roles_with(false, true);
		assert_int_equal(catalog_load(CATALOG, "f2fs/compress", &c, err, sizeof(err)), 0);
		json_object_set_new(none, "F2FS_FS", json_string("m"));
		assert_string_equal(unmet(&c, &r, caps, none, NULL, why), "kernel without CONFIG_F2FS_FS_COMPRESSION");
		json_object_set_new(none, "F2FS_FS_COMPRESSION", json_string("y"));
		assert_null(unmet(&c, &r, caps, none, NULL, why));
		fs_config_release(&c);
		json_decref(none);
	}
	json_decref(opts);
}

static char *section(const char *name, const char *extra_mkfs, const char *extra_mount, struct roles *r)
{
	struct fs_config c;
	struct plan p;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(plan_init(&p), 0);
	if (extra_mkfs)
		assert_int_equal(plan_set(&p, "t", 1, "mkfs_options", extra_mkfs, err, sizeof(err)), 0);
	if (extra_mount)
		assert_int_equal(plan_set(&p, "t", 2, "mount_options", extra_mount, err, sizeof(err)), 0);
	if (extra_mount && strstr(extra_mount, "noatime")) {
		/* the plan's fstests knobs close the section */
		assert_int_equal(plan_set(&p, "t", 3, "fstests.LOAD_FACTOR", "2", err, sizeof(err)), 0);
		assert_int_equal(plan_set(&p, "t", 4, "fstests.FSSTRESS_AVOID", "-f setattr=0", err, sizeof(err)), 0);
	}
	assert_int_equal(catalog_load(CATALOG, name, &c, err, sizeof(err)), 0);
	assert_int_equal(catalog_write_section(&c, &p, r, "/results/runs/x/fstests", f, err, sizeof(err)), 0);
	fclose(f);
	fs_config_release(&c);
	plan_release(&p);
	return buf;
}

static void test_sections(void **state)
{
	struct roles r = roles_with(true, true);
	char *s;

	(void)state;
	s = section("xfs/quota_1k", "-m reflink=1", "-o noatime", &r);
	assert_string_equal(s, "[xfs_quota_1k]\n"
			       "FSTYP=\"xfs\"\n"
			       "TEST_DEV=\"/dev/vdb\"\n"
			       "TEST_DIR=\"/mnt/test\"\n"
			       "SCRATCH_DEV=\"/dev/vdc\"\n"
			       "SCRATCH_MNT=\"/mnt/scratch\"\n"
			       "MKFS_OPTIONS=\"-b size=1024 -m reflink=1\"\n"
			       "MOUNT_OPTIONS=\"-o usrquota,grpquota,prjquota -o noatime\"\n"
			       "TEST_FS_MOUNT_OPTS=\"-o usrquota,grpquota,prjquota -o noatime\"\n"
			       "RESULT_BASE=\"/results/runs/x/fstests\"\n"
			       "LOAD_FACTOR=\"2\"\n"
			       "FSSTRESS_AVOID=\"-f setattr=0\"\n");
	free(s);
	s = section("xfs/logdev", NULL, NULL, &r);
	assert_non_null(strstr(s, "USE_EXTERNAL=\"yes\"\nSCRATCH_LOGDEV=\"/dev/vdd\"\n"));
	free(s);
	s = section("btrfs/default", NULL, NULL, &r);
	assert_non_null(strstr(s, "SCRATCH_DEV_POOL=\"/dev/vde /dev/vdf\"\n"));
	assert_null(strstr(s, "SCRATCH_DEV="));
	free(s);
	/* tmpfs: no devices, the names fstests gives them, both set (common/config sets TEST_DEV twice) */
	r = (struct roles){ 0 };
	s = section("tmpfs/huge", NULL, NULL, &r);
	assert_string_equal(s, "[tmpfs_huge]\n"
			       "FSTYP=\"tmpfs\"\n"
			       "TEST_DEV=\"tmpfs_test\"\n"
			       "SCRATCH_DEV=\"tmpfs_scratch\"\n"
			       "TEST_DIR=\"/mnt/test\"\n"
			       "SCRATCH_MNT=\"/mnt/scratch\"\n"
			       "MOUNT_OPTIONS=\"-o size=1G,huge=always\"\n"
			       "TEST_FS_MOUNT_OPTS=\"-o size=1G,huge=always\"\n"
			       "RESULT_BASE=\"/results/runs/x/fstests\"\n");
	free(s);
}

/* nfs and cifs over loopback: the guest's exports, the test and scratch disks holding them */
static void test_loopback_sections(void **state)
{
	struct roles r = roles_with(true, true);
	char *s;

	(void)state;
	s = section("nfs/loopback_v3", "-m reflink=1", "-o noac", &r);
	assert_string_equal(s, "[nfs_loopback_v3]\n"
			       "FSTYP=\"nfs\"\n"
			       "TEST_DEV=\"localhost:/export/test\"\n"
			       "SCRATCH_DEV=\"localhost:/export/scratch\"\n"
			       "TEST_DIR=\"/mnt/test\"\n"
			       "SCRATCH_MNT=\"/mnt/scratch\"\n"
			       "MOUNT_OPTIONS=\"-o vers=3 -o noac\"\n"
			       "TEST_FS_MOUNT_OPTS=\"-o vers=3 -o noac\"\n"
			       "RESULT_BASE=\"/results/runs/x/fstests\"\n");
	free(s);
	/* every cifs mount names the credentials made at boot, in the same -o */
	s = section("cifs/smb3_seal", NULL, NULL, &r);
	assert_non_null(strstr(s, "TEST_DEV=\"//localhost/test\"\nSCRATCH_DEV=\"//localhost/scratch\"\n"));
	assert_non_null(strstr(s, "MOUNT_OPTIONS=\"-o credentials=" CATALOG_SMB_CREDENTIALS
				  ",noperm,vers=3.0,mfsymlinks,actimeo=0,seal\"\n"));
	assert_non_null(strstr(s, "TEST_FS_MOUNT_OPTS=\"-o credentials=" CATALOG_SMB_CREDENTIALS ",noperm,"));
	assert_null(strstr(s, "MKFS_OPTIONS"));
	free(s);
}

/* devices = dax: test and scratch are the DAX roles' devices, not the disks */
static void test_dax_section(void **state)
{
	struct roles r = roles_with(true, true);
	struct fs_config c;
	char err[256], why[128], *caps[] = { NULL }, *s;

	(void)state;
	assert_int_equal(catalog_load(CATALOG, "ext4/dax", &c, err, sizeof(err)), 0);
	assert_int_equal(catalog_test_role(&c), ROLE_DAX_TEST);
	assert_int_equal(catalog_scratch_role(&c), ROLE_DAX_SCRATCH);
	snprintf(dv[6].devnode, sizeof(dv[6].devnode), "/dev/pmem0");
	r.v[r.n++] = (struct role_slot){ .role = ROLE_DAX_TEST, .dev = &dv[6], .state = ROLE_ASSIGNED };
	assert_string_equal(unmet(&c, &r, caps, NULL, NULL, why), "no second DAX device for scratch");
	snprintf(dv[7].devnode, sizeof(dv[7].devnode), "/dev/pmem1");
	r.v[r.n++] = (struct role_slot){ .role = ROLE_DAX_SCRATCH, .dev = &dv[7], .state = ROLE_ASSIGNED };
	assert_null(unmet(&c, &r, caps, NULL, NULL, why));
	fs_config_release(&c);
	s = section("xfs/dax", NULL, NULL, &r);
	assert_non_null(strstr(s, "TEST_DEV=\"/dev/pmem0\"\n"));
	assert_non_null(strstr(s, "SCRATCH_DEV=\"/dev/pmem1\"\n"));
	assert_non_null(strstr(s, "MOUNT_OPTIONS=\"-o dax=always\"\n"));
	free(s);
	s = section("xfs/4k", NULL, NULL, &r);
	assert_non_null(strstr(s, "TEST_DEV=\"/dev/vdb\"\n"));
	free(s);
}

static void test_bad(void **state)
{
	struct fs_config c;
	struct plan p;
	struct roles r = roles_with(true, true);
	char err[256] = "", *buf = NULL;
	size_t len;
	FILE *f;

	(void)state;
	assert_int_equal(
		catalog_parse("x/y", "cfg/x/y", "fstype = xfs\nmkfs = -b 4096\ncolour = red\n", &c, err, sizeof(err)),
		-EINVAL);
	assert_string_equal(err, "cfg/x/y:3: key 'colour': unknown key");
	assert_int_equal(catalog_parse("x/y", "cfg/x/y", "mkfs = -b 4096\n", &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "cfg/x/y: key 'fstype': missing");
	assert_int_equal(catalog_parse("x/y", "f", "fstype = xfs\ndevices = log, tape\n", &c, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "f:2: key 'devices': unknown device 'tape'");
	assert_int_equal(catalog_parse("x/y", "f", "fstype = xfs\noverlay = maybe\n", &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "f:2: key 'overlay': 'maybe' is not yes or no");
	assert_int_equal(catalog_parse("x/y", "f", "fstype = xfs\nrequires = kernel>=six\n", &c, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "f:2: key 'requires': unknown requirement 'kernel>=six'");
	/* a kernel option caps.json does not read could never be met: refused when the catalog is read */
	assert_int_equal(catalog_parse("x/y", "f", "fstype = xfs\nrequires = config:XFS_WARP\n", &c, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "f:2: key 'requires': CONFIG_XFS_WARP is not an option fsagent reads from the "
				 "kernel's config (machine/caps.c)");
	/* a network filesystem here is the guest's own server's, of a local export */
	assert_int_equal(catalog_parse("nfs/x", "f", "fstype = nfs\nmount = -o vers=3\n", &c, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "f: key 'export': missing (the filesystem the guest's nfs server exports)");
	assert_int_equal(catalog_parse("x/y", "f", "fstype = xfs\nexport = ext4\n", &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "f: key 'export': only nfs and cifs configs export a filesystem");
	assert_int_equal(catalog_parse("x/y", "f", "fstype = cifs\nexport = x-fs\n", &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "f:2: key 'export': 'x-fs' is not a filesystem type");
	assert_int_equal(
		catalog_parse("x/y", "f", "fstype = nfs\nexport = xfs\ndevices = none\n", &c, err, sizeof(err)),
		-EINVAL);
	assert_string_equal(err, "f: key 'devices': not with export (the exports take the test and scratch devices)");
	assert_int_equal(catalog_load(CATALOG, "nfs/loopback_ext4", &c, err, sizeof(err)), 0);
	assert_string_equal(c.export_fstype, "ext4");
	fs_config_release(&c);
	/* overlay configs: the base fs formats, overlay's tests run */
	assert_int_equal(catalog_load(CATALOG, "overlay/xfs", &c, err, sizeof(err)), 0);
	assert_true(c.overlay);
	assert_string_equal(c.fstype, "xfs");
	fs_config_release(&c);
	assert_int_equal(catalog_load(CATALOG, "xfs/9k", &c, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "config 'xfs/9k': no such config in the catalog");
	assert_int_equal(catalog_load(CATALOG, "../../etc/passwd", &c, err, sizeof(err)), -EINVAL);
	/* an option check's config parser would mangle is refused, not written */
	assert_int_equal(plan_init(&p), 0);
	assert_int_equal(plan_set(&p, "t", 1, "mount_options", "-o context=\"x\"", err, sizeof(err)), 0);
	assert_int_equal(catalog_load(CATALOG, "xfs/4k", &c, err, sizeof(err)), 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(catalog_write_section(&c, &p, &r, "/r", f, err, sizeof(err)), -EINVAL);
	fclose(f);
	free(buf);
	assert_non_null(strstr(err, "key 'MOUNT_OPTIONS'"));
	fs_config_release(&c);
	plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_config_loads),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_unmet),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_loopback_sections),
		cmocka_unit_test(test_dax_section),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
