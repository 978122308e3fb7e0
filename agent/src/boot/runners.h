/* SPDX-License-Identifier: MIT */
/*
 * The parallel runners' disk in the guest (plan key jobs above 1): the
 * device of role runners (serial fsagent-runners, which fsagent-qemu -j N
 * attaches) made ext4 afresh each boot and mounted at
 * /run/fsagent/runners, where each config's runners keep their loop files
 * (run/pool.h). Without one, the run goes one test at a time and says why:
 * loop files in the guest's memory would not hold a test that fills its
 * scratch device.
 */
#pragma once

#include <stddef.h>

#include "machine/roles.h"
#include "model/plan.h"

#define RUNNERS_MOUNT "/run/fsagent/runners"

/*
 * For plan p on roles: 1 with pool := the runners' root, ready; 0 when the
 * plan runs one test at a time (why := the reason when it asked for more,
 * else empty). Never fails the run: a disk that cannot be made or mounted
 * is a reason too.
 */
int runners_prepare(const struct plan *p, const struct roles *roles, char *pool, size_t size, char *why, size_t ws);
