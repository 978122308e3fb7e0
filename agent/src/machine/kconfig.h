/* SPDX-License-Identifier: MIT */
/*
 * The kernel's build configuration, from /proc/config.gz (IKCONFIG_PROC) or
 * <sysroot>/boot/config-<release>, and a pure lookup over its text.
 */
#pragma once

/*
 * Read the configuration of kernel release into a heap buffer (*ret, caller
 * frees); *ret_source names where it came from. Returns 0 or -errno
 * (-ENOENT when neither exists).
 */
int kconfig_read(const char *release, char **ret, const char **ret_source);

/*
 * Look up key (e.g. "CONFIG_XFS_FS") in a kernel .config held in buf.
 * Returns 1 and *ret_val (pointer into a static buffer: "y", "m", a
 * string or number) when set, 0 when "is not set" or absent.
 */
int kconfig_get(const char *buf, const char *key, const char **ret_val);
