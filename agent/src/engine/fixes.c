// SPDX-License-Identifier: MIT
/*
 * The upstream fixes of a stable culprit (see fixes.h), through git: one
 * `git log` of the upstream range's commits with a Fixes: line, one of the
 * stable commits after the culprit, read with model/commit_tags.
 */
#include "engine/fixes.h"
#include "engine/git.h"
#include "model/commit_tags.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXES_MAX 16 /* Fixes: lines kept of one commit */

/* A commit of a `git log --format=%H%x1f%s%x1f%B%x1e` listing. */
struct record {
	const char *id, *subject, *body;
	size_t body_len;
};

/* The records of a listing, cut in place (the listing is owned by the caller). Returns how many, or -ENOMEM. */
static long split(char *text, struct record **ret)
{
	size_t n = 0, cap = 0;
	struct record *v = NULL;

	for (char *p = text; p && *p;) {
		char *end = strchr(p, '\x1e'), *u1, *u2;

		if (end)
			*end = '\0';
		while (*p == '\n')
			p++;
		u1 = strchr(p, '\x1f');
		u2 = u1 ? strchr(u1 + 1, '\x1f') : NULL;
		if (u2) {
			if (n == cap) {
				struct record *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*nv));

				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			*u1 = *u2 = '\0';
			v[n++] = (struct record){ p, u1 + 1, u2 + 1, strlen(u2 + 1) };
		}
		p = end ? end + 1 : NULL;
	}
	*ret = v;
	return (long)n;
}

static int log_of(const char *tree, const char *const *args, char **out, char *err, size_t es)
{
	int r = git_capture(tree, args, out, err, es);

	return r < 0 ? r : r > 0 ? -EINVAL : 0;
}

/* The culprit's upstream id and how it was known. */
static int upstream_of(const struct fixes_query *q, const char *sha, const char *msg, char id[COMMIT_ID_SIZE],
		       const char **how, char *err, size_t es)
{
	char e2[256];

	if (commit_upstream_id(msg, strlen(msg), id) == 0) {
		*how = "its message names it";
		return 0;
	}
	/* no backport line: the culprit itself, when the upstream tree has it */
	if (git_resolve(q->upstream, sha, id, e2, sizeof(e2)) == 0) {
		*how = "the commit itself";
		return 0;
	}
	snprintf(err, es,
		 "culprit %.12s names no upstream commit (no 'commit <id> upstream.', '[ Upstream commit <id> ]' or "
		 "'(cherry picked from commit <id>)' line) and %s does not have it",
		 sha, q->upstream);
	return -EINVAL;
}

/* The stable commit after the culprit that carries upstream id, or NULL. */
static const char *in_stable(struct record *st, long nst, const char *id)
{
	for (long i = 0; i < nst; i++) {
		char up[COMMIT_ID_SIZE];

		if (streq(st[i].id, id) || (commit_upstream_id(st[i].body, st[i].body_len, up) == 0 && streq(up, id)))
			return st[i].id;
	}
	return NULL;
}

/* REV or A..B (an end left out: HEAD) as full ids into out. Returns 0, -ENOENT (err names the end), or -errno. */
static int resolve_range(const char *tree, const char *range, char out[2 * COMMIT_ID_SIZE + 2], char *err, size_t es)
{
	const char *dots = strstr(range, "..");
	char a[COMMIT_ID_SIZE], b[COMMIT_ID_SIZE];
	_cleanup_free_ char *left = NULL;
	int r;

	if (!dots)
		return git_resolve(tree, range, out, err, es);
	if (!(left = strndup(range, (size_t)(dots - range))))
		return -ENOMEM;
	if ((r = git_resolve(tree, *left ? left : "HEAD", a, err, es)) < 0 ||
	    (r = git_resolve(tree, dots[2] ? dots + 2 : "HEAD", b, err, es)) < 0)
		return r;
	snprintf(out, 2 * COMMIT_ID_SIZE + 2, "%s..%s", a, b);
	return 0;
}

/* Whether any of the files the body of `git log --name-only` lists for a commit is one of files. */
static bool touches(const char *names, char *const *files)
{
	char **v = strv_split(names, "\n");
	bool yes = false;

	for (char **f = v; f && *f && !yes; f++)
		yes = **f && strv_contains(files, *f);
	strv_free(v);
	return yes;
}

/*
 * The candidates of q->candidates (with q->paths), ranked (see fixes.h), as
 * "fixes" entries; up is the culprit's upstream id, sha the culprit.
 */
static int ranked(const struct fixes_query *q, const char *sha, const char *up, struct record *st, long nst,
		  json_t *fixes, int *candidates, char *err, size_t es)
{
	char resolved[2 * COMMIT_ID_SIZE + 2];
	const char *args[40] = { "log", "--reverse", "--format=%x1e%H%x1f%s%x1f%B%x1d", "--name-only", resolved, "--" };
	const char *sargs[] = { "show", "--format=", "--name-only", sha, NULL };
	_cleanup_free_ char *log = NULL, *own = NULL;
	char **files;
	json_t *rank[3];
	size_t n = 6;
	int r;

	if ((r = resolve_range(q->upstream, q->candidates, resolved, err, es)) < 0)
		return r == -ENOENT ? -EINVAL : r;
	for (char *const *p = q->paths; p && *p && n < ARRAY_SIZE(args) - 1; p++)
		args[n++] = *p;
	args[n] = NULL;
	if ((r = log_of(q->upstream, args, &log, err, es)) < 0 || (r = log_of(q->stable, sargs, &own, err, es)) < 0)
		return r;
	files = strv_split(own ? own : "", "\n");
	for (int k = 0; k < 3; k++)
		rank[k] = json_array();
	/* each commit: RS id US subject US body GS names */
	for (char *c = strtok(log ? log : (char *)"", "\x1e"); c; c = strtok(NULL, "\x1e")) {
		char *u1 = strchr(c, '\x1f'), *u2 = u1 ? strchr(u1 + 1, '\x1f') : NULL,
		     *gs = u2 ? strchr(u2 + 1, '\x1d') : NULL;
		char ids[FIXES_MAX][COMMIT_ID_SIZE];
		json_t *named = json_array();
		const char *have, *of = NULL;
		size_t k;
		int rk;

		if (!gs) {
			json_decref(named);
			continue;
		}
		*u1 = *u2 = *gs = '\0';
		k = commit_fixes(u2 + 1, strlen(u2 + 1), ids, FIXES_MAX);
		for (size_t j = 0; j < k && j < FIXES_MAX; j++) {
			json_array_append_new(named, json_string(ids[j]));
			if (!of && commit_id_names(ids[j], up))
				of = up;
		}
		rk = of ? 0 : touches(gs + 1, files) ? 1 : 2;
		have = in_stable(st, nst, c);
		*candidates += !have;
		json_array_append_new(rank[rk], json_pack("{s:s, s:s, s:o, s:s?, s:o, s:s}", "id", c, "subject", u1 + 1,
							  "fixes", named, "of", of, "in_stable",
							  have ? json_string(have) : json_null(), "rank",
							  rk == 0   ? "fixes it"
							  : rk == 1 ? "touches its files"
								    : "other"));
	}
	for (int k = 0; k < 3; k++) {
		json_array_extend(fixes, rank[k]);
		json_decref(rank[k]);
	}
	strv_free(files);
	return 0;
}

int fixes_find(const struct fixes_query *q, json_t **ret, char *err, size_t es)
{
	char sha[COMMIT_ID_SIZE], head[COMMIT_ID_SIZE], up[COMMIT_ID_SIZE], resolved[2 * COMMIT_ID_SIZE + 2];
	_cleanup_free_ char *msg = NULL, *subj = NULL, *usubj = NULL, *log = NULL, *slog = NULL, *after = NULL;
	struct record *rec = NULL, *st = NULL;
	const char *how = NULL, *range = q->candidates ? q->candidates : q->range ? q->range : "HEAD";
	long n, nst;
	json_t *fixes, *found;
	bool *taken = NULL;
	int r, candidates = 0;

	*ret = NULL;
	if ((r = git_resolve(q->stable, q->culprit, sha, err, es)) < 0 ||
	    (r = git_resolve(q->stable, q->head ? q->head : "HEAD", head, err, es)) < 0)
		return r == -ENOENT ? -EINVAL : r;
	/* the range's ends resolved in the upstream tree, so that git sees ids only, never an option */
	if ((r = resolve_range(q->upstream, range, resolved, err, es)) < 0)
		return r == -ENOENT ? -EINVAL : r;
	{
		const char *a1[] = { "log", "-1", "--format=%B", sha, NULL },
			   *a2[] = { "log", "-1", "--format=%s", sha, NULL };

		if ((r = log_of(q->stable, a1, &msg, err, es)) < 0 || (r = log_of(q->stable, a2, &subj, err, es)) < 0)
			return r;
	}
	if ((r = upstream_of(q, sha, msg, up, &how, err, es)) < 0)
		return r;
	{
		const char *a[] = { "log", "-1", "--format=%s", up, NULL };

		if (log_of(q->upstream, a, &usubj, err, es) < 0) {
			snprintf(err, es, "the culprit's upstream commit %.12s is not in %s", up, q->upstream);
			return -EINVAL;
		}
	}
	/* every upstream commit of the range with a Fixes: line, newest first (unless the candidates are given) */
	if (!q->candidates) {
		const char *a[] = { "log",    "-i", "--grep=^[[:space:]]*fixes:", "--format=%H%x1f%s%x1f%B%x1e",
				    resolved, NULL };

		if ((r = log_of(q->upstream, a, &log, err, es)) < 0)
			return r;
	}
	/* the stable commits after the culprit, up to the failing revision */
	if (asprintf(&after, "%s..%s", sha, head) < 0)
		return -ENOMEM;
	{
		const char *a[] = { "log", "--format=%H%x1f%s%x1f%B%x1e", after, NULL };

		if ((r = log_of(q->stable, a, &slog, err, es)) < 0)
			return r;
	}
	if ((n = split(log, &rec)) < 0 || (nst = split(slog, &st)) < 0 ||
	    !(taken = calloc((size_t)n + 1, sizeof(*taken)))) {
		free(rec);
		free(taken);
		return -ENOMEM;
	}
	/* the ids found so far; each pass adds the commits whose Fixes: names one of them */
	found = json_array();
	json_array_append_new(found, json_string(up));
	fixes = json_array();
	if (q->candidates && (r = ranked(q, sha, up, st, nst, fixes, &candidates, err, es)) < 0) {
		json_decref(found);
		json_decref(fixes);
		free(rec);
		free(st);
		free(taken);
		return r;
	}
	for (bool more = !q->candidates; more;) {
		more = false;
		for (long i = n - 1; i >= 0; i--) { /* oldest first */
			char ids[FIXES_MAX][COMMIT_ID_SIZE];
			size_t k = commit_fixes(rec[i].body, rec[i].body_len, ids, FIXES_MAX), f;
			json_t *named = json_array(), *of = NULL, *x;

			if (taken[i]) {
				json_decref(named);
				continue;
			}
			for (size_t j = 0; j < k && j < FIXES_MAX; j++) {
				json_array_append_new(named, json_string(ids[j]));
				json_array_foreach(found, f, x)
					if (!of && commit_id_names(ids[j], json_string_value(x)))
						of = x;
			}
			if (!of) {
				json_decref(named);
				continue;
			}
			taken[i] = true;
			more = true;
			{
				const char *have = in_stable(st, nst, rec[i].id);

				candidates += !have;
				json_array_append_new(fixes, json_pack("{s:s, s:s, s:o, s:s, s:o}", "id", rec[i].id,
								       "subject", rec[i].subject, "fixes", named, "of",
								       json_string_value(of), "in_stable",
								       have ? json_string(have) : json_null()));
			}
			json_array_append_new(found, json_string(rec[i].id));
		}
	}
	*ret = json_pack("{s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s}, s:s, s:s, s:o, s:i}", "schema", "fsagent-fixes/1",
			 "culprit", "sha", sha, "subject", subj ? strtok(subj, "\n") ?: "" : "", "upstream", "id", up,
			 "subject", usubj ? strtok(usubj, "\n") ?: "" : "", "how", how, "head", head, "range", range,
			 "fixes", fixes, "candidates", candidates);
	if (*ret && q->candidates)
		json_object_set_new(*ret, "ranked", json_true());
	json_decref(found);
	free(rec);
	free(st);
	free(taken);
	return *ret ? 0 : -ENOMEM;
}
