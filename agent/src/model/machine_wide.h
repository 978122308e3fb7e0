/* SPDX-License-Identifier: MIT */
/*
 * What in an fstests test's script reaches past its own devices to the
 * whole machine, so that it cannot run beside other tests (run/parallel.h's
 * serial tail): taking CPUs offline, unloading a kernel module every
 * runner's filesystem holds, changing the machine's memory and writeback
 * settings. check-parallel has only the group unreliable_in_parallel for
 * this; fstests' own helpers name the rest, so they are read from the
 * script's text (comment lines left out).
 */
#pragma once

#include <stddef.h>

/* Why the script text[0..len) needs the machine alone ("it takes CPUs offline"), or NULL when it does not. */
const char *machine_wide_why(const char *text, size_t len);
