/* SPDX-License-Identifier: MIT */
/*
 * The filesystem config catalog shipped in image/configs: what each named
 * config (xfs/4k, ext4/bigalloc_1k, btrfs/default) formats and mounts with,
 * the extra devices it needs and what the machine must offer; and the
 * fstests config section fsagent writes for it.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "model/kver.h"
#include "model/plan.h"
#include "machine/roles.h"

/* devices = log, rt, logwrites, pool, dax or zoned (test and scratch on the DAX or the zoned devices), or none */
enum {
	CAT_DEV_LOG = 1 << 0,
	CAT_DEV_RT = 1 << 1,
	CAT_DEV_LOGWRITES = 1 << 2,
	CAT_DEV_POOL = 1 << 3,
	CAT_DEV_DAX = 1 << 4,
	CAT_DEV_ZONED = 1 << 5,
	CAT_DEV_NONE = 1 << 6 /* no block devices at all: a memory filesystem (tmpfs), or a server's exports */
};

struct fs_config {
	char name[64];	 /* "xfs/4k" */
	char fstype[16]; /* "xfs" */
	char *mkfs, *mount, *test_mount;
	unsigned devices;
	bool overlay; /* overlayfs over fstype (check -overlay): test and scratch hold the base fs */
	/*
	 * nfs or cifs over loopback (boot/loopback.h): the local filesystem the
	 * guest's own server exports, made (with mkfs) on the test and scratch
	 * devices; "" for any other config
	 */
	char export_fstype[16];
	char **requires; /* "dax", "config:XFS_RT", ... */
};

/*
 * Load <dir>/<name>. Errors name file, line and key. Returns 0, -ENOENT
 * (no such config, err says so) or -EINVAL.
 */
int catalog_load(const char *dir, const char *name, struct fs_config *ret, char *err, size_t errsize);
/* Parse a config file's text (pure). */
int catalog_parse(const char *name, const char *file, const char *buf, struct fs_config *ret, char *err,
		  size_t errsize);
void fs_config_release(struct fs_config *c);

/* Expand "<fs>/all" entries through <dir>/<fs>/all. *ret is a strv. Returns 0 or -errno. */
int catalog_expand(const char *dir, char *const *names, char ***ret, char *err, size_t errsize);

/* What the machine and its kernel offer, for catalog_unmet. */
struct catalog_machine {
	const struct roles *roles;
	char *const *caps;	     /* inventory_cap_names */
	const void *kconfig_options; /* caps.json's kconfig options object; may be NULL */
	const struct kver *kernel;   /* the running kernel's version; NULL: unknown */
};

/*
 * Why this machine cannot serve c, or NULL when it can: a missing device
 * role, capability, kernel option or kernel version ("kernel>=6.12"). buf
 * holds the reason.
 */
const char *catalog_unmet(const struct fs_config *c, const struct catalog_machine *m, char *buf, size_t size);

/* The roles c's test and scratch devices have: test/scratch, dax_test/dax_scratch or zoned_test/zoned_scratch. */
enum role catalog_test_role(const struct fs_config *c);
enum role catalog_scratch_role(const struct fs_config *c);

/* Where fstests mounts a loopback config's exports from, and the SMB credentials file its mounts name. */
#define CATALOG_EXPORT_TEST "/export/test"
#define CATALOG_EXPORT_SCRATCH "/export/scratch"
#define CATALOG_SMB_CREDENTIALS "/run/fsagent/smb-credentials"

/* The section name for c: "xfs_4k". */
void catalog_section_name(const struct fs_config *c, char *buf, size_t size);

/*
 * Write c's fstests config section to out: FSTYP, TEST_DEV/DIR, SCRATCH_DEV/
 * MNT or SCRATCH_DEV_POOL, the log/rt/log-writes devices, MKFS_OPTIONS,
 * MOUNT_OPTIONS, TEST_FS_MOUNT_OPTS with the plan's options appended, and
 * RESULT_BASE. A value check would misread ('#', quotes, newlines) is
 * refused: -EINVAL with err naming it.
 */
int catalog_write_section(const struct fs_config *c, const struct plan *p, const struct roles *roles,
			  const char *result_base, FILE *out, char *err, size_t errsize);
