/* SPDX-License-Identifier: MIT */
/*
 * Early user space, before anything else runs: the API filesystems, the
 * console on fds 0-2, a clean environment, /etc/mtab, the loopback
 * interface. Each step records what it did; none is fatal.
 */
#pragma once

#include <jansson.h>
#include <stddef.h>

/* Mount /proc, /sys, /dev, /run, ... (those the kernel has). Returns their statuses as a JSON array. */
json_t *early_mount_all(void);

/* The early mounts' targets, for moving them onto a new root. Returns how many (at most max). */
size_t early_mount_targets(const char **targets, size_t max);

/* /dev/console on fds 0-2 and for the log. Returns the console's own close-on-exec fd, or -errno. */
int early_console(void);

/* PATH, HOME, LANG and the rest, umask 022, cwd /. */
void early_environment(void);

/* /etc/mtab -> /proc/self/mounts. Returns 0 or -errno. */
int early_mtab(void);

/* Bring up 'lo'. Returns 0 or -errno. */
int early_loopback_up(void);
