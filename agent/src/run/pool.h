/* SPDX-License-Identifier: MIT */
/*
 * The places of N parallel runners in one machine, check-parallel's
 * layout: BASE/runner-K/ (K from 1) holds the runner's fstests config
 * (fstests.config: the config's section with the runner's TEST_DIR,
 * SCRATCH_MNT and RESULT_BASE), those directories (test, scratch,
 * results) and its TMPDIR (tmp). Each check runs in a mount namespace
 * of its own (run/parallel.h), so a runner's mounts are its own.
 *
 * Devices: where the config names a block device as TEST_DEV,
 * SCRATCH_DEV or LOGWRITES_DEV, each runner gets its own, check-parallel's
 * way: a loop device over a sparse file in its directory (test.img,
 * POOL_TEST_SIZE, made with the config's FSTYP and MKFS_OPTIONS;
 * scratch.img and logwrites.img, POOL_SCRATCH_SIZE, left for the tests),
 * detached and removed by pool_release. The root's filesystem must hold
 * them all at full size. A tmpfs config's device is a name and stays. A
 * config that needs the machine alone (pool_needs_machine) has no runners:
 * pool_setup runs it one test at a time, saying why.
 */
#pragma once

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "run/select.h"

struct runner_slot {
	char dir[PATH_MAX];	     /* BASE/runner-K */
	char host_options[PATH_MAX]; /* its fstests config */
	char result_dir[PATH_MAX];   /* where its check leaves a test's files (RESULT_BASE[/section]) */
	char **env;		     /* TMPDIR=... for its check */
	char **loops;		     /* its loop devices ("/dev/loop3"), detached at release */
	char **devices;		     /* their names ("loop3"), for the kernel log's attribution */
	char test_dev[64];	     /* its TEST_DEV's loop device, made with the config's mkfs; "" for none */
	bool test_dev_made;	     /* this pool attached and made it (not another config's pool it shares) */
	char dev_of[3][64];	     /* its loop device for TEST_DEV, SCRATCH_DEV, LOGWRITES_DEV, or "" */
};

#define POOL_TEST_SIZE (2ULL << 30) /* check-parallel's sizes: sparse, so only what tests write is used */
#define POOL_SCRATCH_SIZE (8ULL << 30)

struct runner_pool {
	unsigned n;
	struct runner_slot *slots;
	char fstype[64], mkfs[512]; /* the config's FSTYP and MKFS_OPTIONS, for its test devices */
};

/*
 * Make n runners' places for config ("xfs/4k") under ROOT/xfs_4k (the
 * BASE above) from the config file host_options (section: the one used, or
 * NULL). With share (another config's pool of n runners, in one queue with
 * this one), runner K's devices are share's runner K's where it has them:
 * one runner serves one config at a time, and its test device is made for
 * a config when it turns to it (run/parallel.h), not here. Returns 0, or -errno with err saying what (file and
 * key for a config that cannot be shared).
 */
int pool_make(struct runner_pool *p, const char *root, const char *config, unsigned n, const char *host_options,
	      const char *section, const struct runner_pool *share, char *err, size_t errsize);

void pool_release(struct runner_pool *p);

/*
 * Whether the config (host_options, section or NULL) needs the machine
 * alone, why saying so with file, section and key: it names a device no
 * runner can have a copy of (a network export, SCRATCH_DEV_POOL, a log or
 * realtime device), asks for DAX in its mount options, or names a test or
 * scratch device that is zoned or DAX-capable (sysfs, through the
 * sysroot), which a loop device is not. Returns 1, 0, or -errno (why says
 * what).
 */
int pool_needs_machine(const char *host_options, const char *section, char *why, size_t ws);

/*
 * Runner k's (0-based) test device made anew with the config's mkfs, as
 * pool_make made it: after a test was killed on it, what it left there
 * must not meet the next. Returns 0 (nothing to make for a device that is
 * a name), or -errno with why saying mkfs's reason.
 */
int pool_remake_test_dev(const struct runner_pool *p, unsigned k, char *why, size_t ws);

/*
 * A config's runners for plan key jobs: none for jobs 1; none, said and
 * recorded (record's "parallel") with the reason when cannot says why the
 * machine has none, when the config needs the machine alone
 * (pool_needs_machine), or when the tree has no test in group
 * unreliable_in_parallel (it cannot say which tests are unsafe beside
 * others: one at a time, never half parallel); else jobs runners under root
 * (pool_make, sharing share's devices). Returns 0 or pool_make's -errno with
 * err.
 */
int pool_setup(struct runner_pool *pool, unsigned jobs, const char *root, const char *cannot, const char *config,
	       const char *host_options, const char *section, const struct selection *sel,
	       const struct runner_pool *share, json_t *record, char *err, size_t es);
