/* SPDX-License-Identifier: MIT */
/*
 * The candidates fsagent fixes found, applied to the failing stable
 * revision (issue 35's second part, its first step): each alone on that
 * revision in a worktree of the stable tree (git cherry-pick -x of the
 * upstream commit, fetched from the upstream tree), and, where it does not
 * apply, after the candidates before it that do (its prerequisites, tried
 * in order). Each patched revision is kept as refs/fsagent/fixes/<id>, for
 * the build and the qualification that prove it. Everything is kept in a
 * directory: a stop at any moment loses at most the candidate being
 * applied, and nothing recorded is applied twice.
 */
#pragma once

#include <jansson.h>
#include <stddef.h>

struct fixes_apply_opts {
	const char *stable;   /* the stable tree */
	const char *head;     /* the failing revision, a full id */
	const char *upstream; /* the tree the candidates' commits are fetched from */
	const char *dir;      /* DIR: the worktree DIR/worktree, the record DIR/apply.json */
};

/*
 * Apply each candidate of fixes (fixes_find's "fixes": those with a null
 * in_stable, in order) and set its "apply": {verdict: "applies", "applies
 * after" or "cannot apply", after: the ids applied before it, reason:
 * git's words when it did not apply alone, commit: the patched revision}.
 * Returns 0, -EINVAL (err says: DIR was begun for another revision), or
 * -errno (err says what git said).
 */
int fixes_apply(const struct fixes_apply_opts *o, json_t *fixes, char *err, size_t es);
