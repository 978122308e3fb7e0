/* SPDX-License-Identifier: MIT */
/*
 * timeout = auto, the plan's default: a time limit for every test, so that
 * no hang stops a run for good, from what the test took before.
 *
 *   a history of d seconds (the plan's durations file, fsagent durations,
 *   or this run's own earlier runs of the test, the longer of the two):
 *       max(TIMEOUT_FLOOR, TIMEOUT_MULTIPLE * d)
 *   no history:   TIMEOUT_UNSEEN
 *
 * times the kernel's slowdown (from caps: lockdep x3, kasan x3, kcsan x3,
 * kmemleak x2, ubsan x1.5; their product, at most x20; KFENCE samples, so
 * costs nothing to speak of), times
 * fstests' TIME_FACTOR, plus SOAK_DURATION (tests that soak run that long
 * on top). A history from another kind of machine (KVM for a TCG run) is
 * 10-30x off: durations from the same kind of machine make the limits right.
 */
#pragma once

#include <jansson.h>

#define TIMEOUT_FLOOR 300
#define TIMEOUT_MULTIPLE 5
#define TIMEOUT_UNSEEN 1800
#define TIMEOUT_SCALE_MAX 20.0

/* The slowdown of a kernel with these capabilities (inventory_cap_names; NULL-terminated, may be NULL). */
double timeout_scale(char *const *caps);

/*
 * The limit in seconds for a test with history seconds (< 0: none), on a
 * kernel of slowdown scale, with the plan's fstests.NAME variables (NAME ->
 * string, may be NULL).
 */
unsigned timeout_auto(double history, double scale, const json_t *fstests);
