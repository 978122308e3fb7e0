/* SPDX-License-Identifier: MIT */
/*
 * Formatting a device with mkfs.<fstype> through proc.c, with the force
 * flag each mkfs spells its own way, and reading back why it failed.
 */
#pragma once

#include <stddef.h>

/*
 * Run mkfs.<fstype> [force] <options split at blanks> <dev>. On failure
 * why holds the exit status and mkfs_why of its output.
 * Returns 0 or -errno (-EIO when mkfs itself failed).
 */
int mkfs_format(const char *fstype, const char *options, const char *dev, char *why, size_t size);

/* The line of mkfs's output (modified in place) that says why it failed. */
const char *mkfs_why(char *out);
