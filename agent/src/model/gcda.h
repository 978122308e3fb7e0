/* SPDX-License-Identifier: MIT */
/*
 * A .gcda file as gcc's gcov-io writes it (and the kernel's gcov debugfs
 * serves it): the magic "gcda" (a little-endian word, so "adcg" on disk),
 * version and stamp (and, since GCC 12, a checksum), then records of a tag,
 * a length in bytes and that many bytes. gcov itself takes a truncated file
 * silently as "nothing reached": this says it was not read whole.
 */
#pragma once

#include <stddef.h>

/*
 * Whether buf holds a whole .gcda file. Returns 0, or -EBADMSG with *why
 * in words ("empty", "not a gcov data file", "cut short: ...").
 */
int gcda_check(const unsigned char *buf, size_t len, const char **why);
