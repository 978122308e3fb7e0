/* SPDX-License-Identifier: MIT */
/*
 * The kernel's gcov counters (CONFIG_GCOV_KERNEL, kconfig/gcov) around each
 * test: reset before it (<root>/reset), and after it the .gcda files of the
 * chosen source directories (plan key coverage = fs/xfs fs/iomap) that the
 * test touched, copied into the bundle. <root> is debugfs' gcov directory,
 * which mirrors the kernel's build directory: fs/xfs is found as whatever
 * directory under it ends in /fs/xfs. A .gcda the test did not touch reads
 * the same as right after a reset, so it is told apart by comparing with
 * that first reading: no parsing of gcc's format, which changes between
 * versions.
 */
#pragma once

#include <stddef.h>

struct gcov;

/*
 * Find dirs (kernel source directories) under root. Returns 0, -ENOENT
 * with err naming what is missing (no gcov tree: not a gcov kernel; a
 * directory not built with profiling), or -errno.
 */
int gcov_open(const char *root, char *const *dirs, struct gcov **ret, char *err, size_t errsize);
void gcov_free(struct gcov *g);

/* Zero every counter. Returns 0 or -errno. */
int gcov_reset(struct gcov *g);

/*
 * Copy the .gcda files touched since the reset into dest/<dir>/...
 * (created). *ret_files gets their number. Returns 0 or -errno.
 */
int gcov_save(struct gcov *g, const char *dest, unsigned *ret_files);
