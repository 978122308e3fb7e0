/* SPDX-License-Identifier: MIT */
/*
 * The places of N parallel runners in one machine, check-parallel's
 * layout: BASE/runner-K/ (K from 1) holds the runner's fstests config
 * (fstests.config: the config's section with the runner's TEST_DIR,
 * SCRATCH_MNT and RESULT_BASE), those directories (test, scratch,
 * results) and its TMPDIR (tmp). Each check runs in a mount namespace
 * of its own (run/parallel.h), so a runner's mounts are its own.
 *
 * Devices: a config that names TEST_DEV or SCRATCH_DEV would have every
 * runner format and mount the same device; until runners get devices of
 * their own, such a config is refused for more than one runner.
 */
#pragma once

#include <limits.h>
#include <stddef.h>

struct runner_slot {
	char dir[PATH_MAX];	     /* BASE/runner-K */
	char host_options[PATH_MAX]; /* its fstests config */
	char result_dir[PATH_MAX];   /* where its check leaves a test's files (RESULT_BASE[/section]) */
	char **env;		     /* TMPDIR=... for its check */
};

struct runner_pool {
	unsigned n;
	struct runner_slot *slots;
};

/*
 * Make n runners' places for config ("xfs/4k") under ROOT/xfs_4k (the
 * BASE above) from the config file host_options (section: the one used, or
 * NULL). Returns 0, or -errno with err saying what (file and key for a
 * config that cannot be shared).
 */
int pool_make(struct runner_pool *p, const char *root, const char *config, unsigned n, const char *host_options,
	      const char *section, char *err, size_t errsize);

void pool_release(struct runner_pool *p);
