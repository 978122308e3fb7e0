/* SPDX-License-Identifier: MIT */
/*
 * udev for the run: systemd-udevd started as a daemon and the block
 * devices' add events replayed and waited for, as `udevadm trigger --settle
 * --subsystem-match=block` does, without exec'ing udevadm (a second of CPU
 * under TCG for the two): each replayed event carries a UUID, written with
 * the action to the device's uevent file, which udevd passes on in the event
 * it broadcasts (netlink group 2, libudev's format) once it has processed
 * the device. All of it runs in a helper process that reports over a pipe,
 * so PID 1 goes on meanwhile; the initramfs stage starts it as soon as the
 * root disk is /, and hands the pipe to the next stage (HANDOFF_UDEV_FD_ENV, handoff.h).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* systemd-udevd's path in the running root, or NULL. */
const char *udev_find_daemon(void);

/*
 * Fork the helper: it runs udevd --daemon, replays the block devices' add
 * events and waits for udevd to have processed them (at most timeout_ms).
 * *ret_fd gets the pipe its report comes on (close-on-exec unless
 * inherit). Returns 0 or -errno.
 */
int udev_begin(const char *udevd, unsigned timeout_ms, bool inherit, int *ret_fd);

/*
 * Read the helper's report from fd and close it. Returns 0 with the boot
 * time (ms) it settled at, or -errno (-EPROTO: no report; -ECHILD: udevd
 * exited non-zero) with *what naming the failed step.
 */
int udev_end(int fd, long *ret_settled_ms, const char **what);

/*
 * Write "add <uuid>" to the uevent file of every device under
 * <sysroot>/sys/class/block; uuids[0..*n) get the UUIDs written (at most
 * max; a device that vanished meanwhile is skipped). Returns 0 or -errno.
 */
int udev_trigger_block(char (*uuids)[37], size_t max, size_t *n);

/*
 * The SYNTH_UUID of a libudev monitor message (buf, len), or NULL when it
 * is not one or has none. Points into buf.
 */
const char *udev_event_uuid(const char *buf, size_t len);
