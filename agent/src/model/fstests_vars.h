/* SPDX-License-Identifier: MIT */
/*
 * fstests' own knobs a plan may set (plan key "fstests.NAME = VALUE"), written
 * into each config's section of the fstests config: the variables fstests'
 * README documents for test control (TIME_FACTOR, LOAD_FACTOR,
 * SOAK_DURATION, FSSTRESS_AVOID, FSX_AVOID, USE_KMEMLEAK, ...), each checked
 * by its kind. The variables fsagent derives from the config and the
 * devices (TEST_DEV, SCRATCH_DEV_POOL, LOGWRITES_DEV, MKFS_OPTIONS, ...)
 * cannot be set this way.
 */
#pragma once

#include <stddef.h>

/*
 * fstests' duration words (SOAK_DURATION: "90", "1.5", "2h", "0.5d"; units
 * m, h, d, w, seconds without) in seconds; -1 when s is not one (or NULL).
 */
double fstests_duration_seconds(const char *s);

/* Whether NAME=VALUE may be set; why says what is wrong otherwise. Returns 0 or -EINVAL. */
int fstests_var_check(const char *name, const char *value, char *why, size_t size);
