/* SPDX-License-Identifier: MIT */
/*
 * What a kernel commit message says about other commits, for finding the
 * upstream fix of a stable regression (issue 35): the upstream commit a
 * stable backport was taken from, as the stable trees write it
 *   commit 0123...(40 hex) upstream.          (the stable maintainer's line)
 *   [ Upstream commit 0123...(40 hex) ]        (AUTOSEL's)
 *   (cherry picked from commit 0123...(40 hex)) (git cherry-pick -x)
 * and the commits it fixes, its "Fixes: 0123456789ab ("subject")" lines
 * (any case, 8 to 40 hex digits). Pure parsers over a buffer: no NUL needed,
 * nothing read past len.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define COMMIT_ID_SIZE 41 /* 40 hex digits and the NUL */

/* The upstream commit msg[0..len) says it was taken from, lower-cased. Returns 0, or -ENOENT when it names none. */
int commit_upstream_id(const char *msg, size_t len, char id[COMMIT_ID_SIZE]);

/*
 * The commits msg[0..len) says it fixes: each Fixes: line's id (8 to 40 hex
 * digits, lower-cased) into ids, in order, at most max (a repeated one once).
 * Returns how many there are in all (more than max: the rest not kept).
 */
size_t commit_fixes(const char *msg, size_t len, char (*ids)[COMMIT_ID_SIZE], size_t max);

/*
 * One mail of an mbox of patches (git format-patch, AUTOSEL's): the commit
 * its "From <40 hex> Mon Sep 17 00:00:00 2001" line names into id ("" when
 * none), its Subject (continuation lines joined, leading "[PATCH ...]"
 * tags dropped) into subject. Returns 0, or -EINVAL when it has no Subject
 * or holds no diff (a mail that is not a patch).
 */
int commit_mail(const char *mail, size_t len, char id[COMMIT_ID_SIZE], char *subject, size_t ss);

/* Whether prefix (an abbreviated id, 8 hex digits or more) names the full id. */
bool commit_id_names(const char *prefix, const char *id);
