/* SPDX-License-Identifier: MIT */
/*
 * What the initramfs stage hands the root disk's PID 1 when it execs it, in
 * the environment: when it started and switched, the disk drivers it loaded
 * (recorded by the next stage instead of probed again) and the pipe of the
 * udev helper it started (see udev.h).
 *
 *   FSAGENT_INITRAMFS=<start ms>,<switch ms>,<module>+<module>+...
 *   FSAGENT_UDEV_FD=<fd>
 *
 * Both are decoded strictly: a malformed value is ignored as a whole (the
 * stage then probes on its own), never half used.
 */
#pragma once

#include <stddef.h>

#define HANDOFF_ENV "FSAGENT_INITRAMFS"
#define HANDOFF_UDEV_FD_ENV "FSAGENT_UDEV_FD"
#define HANDOFF_DRIVERS_MAX 200

struct handoff {
	long start_ms, switch_ms;
	char drivers[HANDOFF_DRIVERS_MAX]; /* module names, each followed by '+' */
};

/* Append module to h->drivers. Returns 0, -EINVAL for a name that is not one, or -ENOSPC. */
int handoff_add_driver(struct handoff *h, const char *module);

/* The FSAGENT_INITRAMFS value into buf. Returns 0 or -ENAMETOOLONG. */
int handoff_encode(const struct handoff *h, char *buf, size_t size);

/* Parse a FSAGENT_INITRAMFS value. Returns 0, or -EINVAL with *h untouched. */
int handoff_decode(const char *s, struct handoff *h);

/* Parse a FSAGENT_UDEV_FD value: a decimal fd above 2. Returns 0 or -EINVAL. */
int handoff_decode_fd(const char *s, int *ret_fd);
