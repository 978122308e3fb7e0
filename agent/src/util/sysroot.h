/* SPDX-License-Identifier: MIT */
/*
 * The --sysroot seam: every access to /sys, /proc, /dev, /boot and
 * /lib/modules goes through these helpers, so tests can replay a tree
 * captured from a real VM (util-linux's ul_path prefix). In PID-1 mode the
 * prefix is always empty.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/* Set the prefix ("" or NULL for the real root). The string is copied. */
int sysroot_set(const char *prefix);
const char *sysroot_get(void);
bool sysroot_is_real(void);

/* Format prefix + path into buf. Returns 0 or -ENAMETOOLONG. */
int sysroot_path(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);

/* Read the first line of a sysroot file, trimmed. Returns 0 or -errno. */
int sysroot_read_line(char **ret, const char *fmt, ...) _printf_(2, 3);

/* Read a whole sysroot file. Returns 0 or -errno. */
int sysroot_read_file(char **ret, size_t *ret_len, const char *fmt, ...) _printf_(3, 4);

/* Read a decimal number from a sysroot file. Returns 0 or -errno. */
int sysroot_read_u64(unsigned long long *ret, const char *fmt, ...) _printf_(2, 3);

/* Write value to an existing sysroot file (a sysfs attribute) in one write. Returns 0 or -errno. */
int sysroot_write(const char *value, const char *fmt, ...) _printf_(2, 3);

/* Whether a sysroot path exists. */
bool sysroot_exists(const char *fmt, ...) _printf_(1, 2);
