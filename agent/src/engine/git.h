/* SPDX-License-Identifier: MIT */
/*
 * The git a bisection needs, run as git itself (no library): revisions
 * resolved, ancestry checked, the line of commits between the ends, and
 * whether a work tree has changes. Every error names the tree and git's
 * own first line.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * git -C tree args..., its stdout into *out (NUL-terminated, owned by the
 * caller). Returns git's exit status (0..255) or -errno; its stderr's
 * first line into err.
 */
int git_capture(const char *tree, const char *const *args, char **out, char *err, size_t es);

/*
 * git -C tree args... for a change that may fail (a cherry-pick, an am):
 * its stdout and stderr read together, and what it said of the failure
 * into said: its first CONFLICT line (stdout's, which may come after
 * stderr's error), else its first error or fatal line, else its last.
 * Returns git's exit status (0..255) or -errno.
 */
int git_try(const char *tree, const char *const *args, char *said, size_t ss);

/* rev as a full commit id (41 bytes with the NUL). Returns 0, -ENOENT (no such commit, err says), or -errno. */
int git_resolve(const char *tree, const char *rev, char sha[41], char *err, size_t es);

/* Whether a is an ancestor of b (or b itself): 1, 0, or -errno. */
int git_is_ancestor(const char *tree, const char *a, const char *b);

/* Whether the work tree's tracked files differ from HEAD: 1, 0, or -errno. */
int git_dirty(const char *tree);

/*
 * The commits reachable from bad and from none of goods, oldest first (git
 * rev-list --topo-order --reverse), each "SHA\tSUBJECT" in *ret (a strv).
 * Returns the count or -errno.
 */
int git_line(const char *tree, const char *bad, char *const *goods, char ***ret, char *err, size_t es);
