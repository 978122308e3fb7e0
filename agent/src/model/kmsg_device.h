/* SPDX-License-Identifier: MIT */
/*
 * Which block device a kernel message names, so that with tests running
 * side by side a report goes to the test whose device it is: the
 * filesystems' prefixes ("XFS (vdc): ...", "EXT4-fs (loop3): ...",
 * "EXT4-fs error (device loop3): ...", "BTRFS info (device loop0 state
 * E): ...", "F2FS-fs (loop1) : ...") and the block layer's ("I/O error,
 * dev loop3, sector 8", "Buffer I/O error on dev dm-2, logical block 0").
 * Pure, over a message that need not end in NUL.
 */
#pragma once

#include <stddef.h>

/* The device's name ("vdc", "loop3", "dm-2") into buf. Returns 0, -ENOENT (none named) or -ENAMETOOLONG. */
int kmsg_device(const char *msg, size_t len, char *buf, size_t size);
