/* SPDX-License-Identifier: MIT */
/*
 * What fsagent coverage --diff compares the coverage with: the kernel
 * commit the bundles' runs booted, and the change (a diff file, or a git
 * range), mapped to the side of it that kernel is.
 */
#pragma once

#include "analysis/coverage_diff.h"
#include "model/patch.h"

#include <stddef.h>

/*
 * The kernel commit the bundles under paths (NULL-terminated) booted
 * (kernel.git.commit): "" when none says. Returns 0, -EINVAL when they
 * differ (err says which), or -errno.
 */
int coverage_kernel_commit(char **paths, char sha[41], char *err, size_t es);

/*
 * The change: the diff file, or with git (a tree) the range A..B's; side
 * ("base", "result" or NULL: found from git) is which side of it the
 * coverage kernel (commit k, "" unknown) is, and *rebase the mapping of that
 * kernel's lines when it is neither (else NULL). Sets o->result_side.
 * Returns 0 or -errno with err.
 */
int coverage_change_load(const char *diff, const char *git, const char *side, const char *k, struct patch **ret,
			 struct patch **rebase, struct coverage_diff_opts *o, char *err, size_t es);
