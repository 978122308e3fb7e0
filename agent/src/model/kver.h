/* SPDX-License-Identifier: MIT */
/*
 * Kernel release strings parsed so that they compare: "6.1.0-57-amd64",
 * "6.6.0-rc3+", "5.15.148". Pure functions over strings.
 */
#pragma once

struct kver {
	unsigned major, minor, patch;
	int rc; /* 0 for a release, N for -rcN (sorts before the release) */
};

/* Parse the leading MAJOR.MINOR[.PATCH][-rcN] of s. Returns 0 or -EINVAL. */
int kver_parse(const char *s, struct kver *ret);

/* <0, 0, >0 like strcmp. */
int kver_cmp(const struct kver *a, const struct kver *b);
