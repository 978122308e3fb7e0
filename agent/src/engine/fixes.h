/* SPDX-License-Identifier: MIT */
/*
 * From a stable tree's culprit to the upstream commits that fix it (issue
 * 35, its first part): the culprit's upstream id (its message's 'commit <id>
 * upstream.' line, or the commit itself when the upstream tree has it),
 * then, in the upstream range, each commit whose Fixes: names it and,
 * transitively, those that fix them, oldest first, each said to be in the
 * stable tree already (by its upstream id in a stable commit after the
 * culprit, or as the commit itself) or not: a candidate to backport.
 */
#pragma once

#include <jansson.h>
#include <stddef.h>

struct fixes_query {
	const char *stable;   /* the stable tree */
	const char *culprit;  /* a revision in it */
	const char *head;     /* the stable revision that fails (default HEAD) */
	const char *upstream; /* the upstream tree */
	const char *range;    /* the upstream revisions searched (default its HEAD) */
	/*
	 * Or the candidates themselves: the upstream commits of this range (a
	 * REV, A..B; with paths, those touching them), ranked: those whose
	 * Fixes: names the culprit first, then those touching its files, then
	 * the rest, oldest first in each.
	 */
	const char *candidates;
	char *const *paths; /* NULL-ended, or NULL */
};

/*
 * The answer as JSON (schema fsagent-fixes/1): culprit {sha, subject},
 * upstream {id, subject, how}, head (the failing revision, a full id), range, fixes [{id, subject, fixes: [the ids
 * its Fixes: lines name], of: the found id it fixes, in_stable: the stable
 * commit that has it, or null}], candidates (how many are not in the stable
 * tree). With candidates, fixes are those commits, each with its rank
 * ("fixes it", "touches its files", "other"). Returns 0, -EINVAL (bad input, err says which: an unknown revision,
 * a culprit that names no upstream commit the upstream tree has), or -errno.
 */
int fixes_find(const struct fixes_query *q, json_t **ret, char *err, size_t es);
