/* SPDX-License-Identifier: MIT */
/*
 * Loop devices over files, for parallel runners' own test and scratch
 * devices (check-parallel's layout: sparse files, buffered I/O). Not
 * autoclear: the device stays attached until loopdev_detach, whoever
 * opens and closes it in between (fstests does, many times).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Create file as a sparse file of size bytes (an existing one is cut to it)
 * and attach it to a free loop device; dev gets its path ("/dev/loop3").
 * /dev goes through the sysroot. Returns 0 or -errno.
 */
int loopdev_attach(const char *file, uint64_t size, char *dev, size_t devsize);

/* Detach dev ("/dev/loop3"). Returns 0 or -errno. */
int loopdev_detach(const char *dev);
