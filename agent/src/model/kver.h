/* SPDX-License-Identifier: MIT */
/*
 * Kernel release strings parsed so that they compare: "6.1.0-57-amd64",
 * "6.6.0-rc3+", "5.15.148". Pure functions over strings.
 */
#pragma once

#include <stddef.h>

struct kver {
	unsigned major, minor, patch;
	int rc; /* 0 for a release, N for -rcN (sorts before the release) */
};

/* Parse the leading MAJOR.MINOR[.PATCH][-rcN] of s. Returns 0 or -EINVAL. */
int kver_parse(const char *s, struct kver *ret);

/* <0, 0, >0 like strcmp. */
int kver_cmp(const struct kver *a, const struct kver *b);

/*
 * The git identity of a kernel built from a commit, as the launcher passes
 * it on the command line: fsagent.commit=<40 hex digits> and
 * fsagent.describe=<git describe, [A-Za-z0-9._+~-], at most 128>.
 */
#define KVER_COMMIT_LEN 40
#define KVER_DESCRIBE_MAX 128

/* Whether s is a value of fsagent.commit (full) or fsagent.describe. */
int kver_commit_ok(const char *s);
int kver_describe_ok(const char *s);

/*
 * The value of word key= (e.g. "fsagent.commit=") in cmdline into buf when
 * it is there and valid for check. Returns 0, -ENOENT or -EINVAL.
 */
int kver_cmdline_value(const char *cmdline, const char *key, int (*check)(const char *), char *buf, size_t size);
