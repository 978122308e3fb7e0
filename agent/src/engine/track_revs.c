// SPDX-License-Identifier: MIT
/*
 * fsagent track's revisions: DIR/track.json (what is followed, from where)
 * and what git lists now (see track.h).
 */
#include "engine/track.h"
#include "util/fileio.h"
#include "util/log.h"
#include "engine/git.h"
#include "util/macro.h"
#include "util/output.h"
#include "util/strv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the revisions --------------------------------------------------------- */

/* A name as a directory's: what is not [A-Za-z0-9._-] becomes '_'. */
static void slug(const char *name, char *out, size_t size)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < size && i < 64; i++) {
		char c = name[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
					 c == '-' || (c == '_' && i)
				 ? c
				 : '_';
	}
	out[i] = '\0';
}

int track_seen(struct track_state *s, const char *name, const char *sha, bool start)
{
	char sl[80];
	time_t t = time(NULL);
	char when[32];

	slug(name, sl, sizeof(sl));
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	track_say("%s %s (%.12s)\n", start ? "starting from" : "new revision", name, sha);
	fflush(stdout);
	return track_append(s, json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "event", "seen", "name", name, "sha", sha,
					 "slug", sl, "time", when, "start", start));
}

/*
 * The tags matching the pattern, in version order (-rcN before the release),
 * each with the commit it names in one git call ("tag COMMIT", COMMIT empty
 * when it names a tree or a blob, "?" when a tag of a tag needs git_resolve).
 * Returns the count or -errno.
 */
static int list_tags(struct track_state *s, const char *pattern, char ***ret)
{
	const char *args[] = { "-c",
			       "versionsort.suffix=-rc",
			       "tag",
			       "-l",
			       pattern,
			       "--sort=version:refname",
			       "--format=%(refname:strip=2) %(objecttype) %(objectname) %(*objecttype) %(*objectname)",
			       NULL };
	_cleanup_free_ char *out = NULL;
	char err[512];
	int r = git_capture(s->in->tree, args, &out, err, sizeof(err));

	if (r != 0) {
		log_err("%s: git tag -l '%s' failed: %s", s->in->tree, pattern, r < 0 ? strerror(-r) : err);
		return r < 0 ? r : -EIO;
	}
	*ret = strv_split(out, "\n");
	if (!*ret)
		return -ENOMEM;
	for (char **l = *ret; *l; l++) {
		char name[1024], type[16], obj[64], ptype[16] = "", pobj[64] = "";
		int n = sscanf(*l, "%1023s %15s %63s %15s %63s", name, type, obj, ptype, pobj);
		const char *commit = n >= 3 && streq(type, "commit")	? obj
				     : n == 5 && streq(ptype, "commit") ? pobj
				     : n == 5 && streq(ptype, "tag")	? "?"
									: "";

		if (n < 3)
			continue;
		snprintf(*l, strlen(*l) + 1, "%s %s", name, commit);
	}
	return (int)strv_length(*ret);
}

/* A line of list_tags cut to its name, its commit into sha ("" when none). Returns 0 or -errno. */
static int tag_line(struct track_state *s, char *line, char sha[41])
{
	char *sp = strchr(line, ' '), err[512];
	int r;

	sha[0] = '\0';
	if (sp)
		*sp++ = '\0';
	if (sp && strlen(sp) == 40) {
		memcpy(sha, sp, 41);
		return 0;
	}
	if (sp && streq(sp, "?") && (r = git_resolve(s->in->tree, line, sha, err, sizeof(err))) < 0 && r != -ENOENT) {
		log_err("%s: tag '%s': %s", s->in->tree, line, err);
		return r;
	}
	return 0;
}

/* Each new revision recorded as seen, the oldest first. Returns 0 or -errno (logged). */
int track_look(struct track_state *s)
{
	const char *tags = track_str(json_object_get(s->track, "follow"), "tags");
	const char *branch = track_str(json_object_get(s->track, "follow"), "branch");
	char sha[41], err[512];
	int r;

	if (*branch) {
		_cleanup_free_ char *out = NULL;
		const char *args[] = { "describe", "--tags", "--always", sha, NULL };

		if ((r = git_resolve(s->in->tree, branch, sha, err, sizeof(err))) < 0) {
			log_err("%s: branch '%s': %s", s->in->tree, branch, err);
			return r;
		}
		if (track_rev(s, sha))
			return 0; /* the branch's head, or a revision it had before (a reset): seen once */
		if (git_capture(s->in->tree, args, &out, err, sizeof(err)) != 0 || !out)
			return track_seen(s, sha, sha, false);
		out[strcspn(out, "\n")] = '\0';
		return track_seen(s, out, sha, false);
	}
	{
		char **list = NULL;
		int n = list_tags(s, tags, &list), from = -1;
		char(*shas)[41] = n > 0 ? calloc((size_t)n, sizeof(*shas)) : NULL;

		if (n < 0)
			return n;
		r = n > 0 && !shas ? -ENOMEM : 0;
		for (int i = 0; i < n && r == 0; i++)
			r = tag_line(s, list[i], shas[i]);
		/* after the newest tag seen; else after the last tag the start contains */
		for (int i = 0; i < n && r == 0; i++) {
			json_t *rv;
			size_t k;

			json_array_foreach(s->revs, k, rv)
				if (streq(track_str(rv, "name"), list[i]))
					from = i;
		}
		if (from < 0)
			for (int i = 0; i < n && r == 0; i++)
				if (shas[i][0] &&
				    git_is_ancestor(s->in->tree, shas[i],
						    track_str(json_object_get(s->track, "start"), "sha")) == 1)
					from = i;
		/* a tag taken before that names another commit now: said once, its first commit's verdicts kept */
		for (int i = 0; i <= from && r == 0; i++) {
			json_t *rv = NULL, *x;
			const char *sha_now = shas[i];
			size_t k;

			json_array_foreach(s->revs, k, x)
				if (streq(track_str(x, "name"), list[i]))
					rv = x;
			if (!rv || !sha_now[0] || streq(sha_now, track_str(rv, "sha")) ||
			    streq(sha_now, track_str(rv, "moved_to")))
				continue;
			log_warn("%s: tag '%s' was %.12s when taken, it names %.12s now: its verdicts stay %.12s's",
				 s->in->tree, list[i], track_str(rv, "sha"), sha_now, track_str(rv, "sha"));
			r = track_append(s, json_pack("{s:s, s:s, s:s}", "event", "moved", "sha", track_str(rv, "sha"),
						      "to", sha_now));
			if (r == 0) {
				_cleanup_free_ char *text = NULL;

				if (asprintf(&text,
					     "%s: the tag moved from %.12s to %.12s after it was taken; its "
					     "verdicts are %.12s's\n",
					     list[i], track_str(rv, "sha"), sha_now, track_str(rv, "sha")) > 0)
					track_notify(s, rv, "tag moved", "tag-moved.txt", text);
			}
		}
		for (int i = from + 1; i < n && r == 0; i++) {
			if (!shas[i][0]) {
				/* a tag of a tree or a blob (Linux has v2.6.11-tree): no kernel to build */
				if (!strv_contains(s->skipped_tags, list[i])) {
					log_warn("%s: tag '%s' matches '%s' but names no commit: skipped", s->in->tree,
						 list[i], tags);
					r = strv_push(&s->skipped_tags, list[i]);
				}
				continue;
			}
			if (!track_rev(s, shas[i]))
				r = track_seen(s, list[i], shas[i], false);
		}
		free(shas);
		strv_free(list);
		return r;
	}
}

/* ---- setting up ------------------------------------------------------------ */

/* DIR/track.json: made at the start (the start resolved); given again, what was given must agree. */
int track_setup(struct track_state *s)
{
	struct track_run *in = s->in;
	char path[PATH_MAX], sha[41], err[512];
	int r;

	if ((r = fileio_pathf(path, "%s/track.json", in->dir)) < 0)
		return r;
	if (fileio_exists(path)) {
		json_error_t je;
		json_t *follow;

		s->track = json_load_file(path, 0, &je);
		follow = json_object_get(s->track, "follow");
		if (!json_is_object(s->track) || !json_is_string(json_object_get(s->track, "tree")) ||
		    !json_is_object(follow)) {
			log_err("%s:%d: not an fsagent track state (%s)", path, je.line, je.text);
			return -EBADMSG;
		}
		if ((in->tree && !streq(in->tree, track_str(s->track, "tree"))) ||
		    (in->tags && !streq(in->tags, track_str(follow, "tags"))) ||
		    (in->branch && !streq(in->branch, track_str(follow, "branch")))) {
			log_err("%s was begun for %s, %s %s: give the same --git and --tags or --branch, or a new "
				"--dir",
				in->dir, track_str(s->track, "tree"), *track_str(follow, "tags") ? "tags" : "branch",
				*track_str(follow, "tags") ? track_str(follow, "tags") : track_str(follow, "branch"));
			return -EEXIST;
		}
		in->tree = track_str(s->track, "tree");
		return 0;
	}
	if (!in->tree || (!in->tags == !in->branch)) {
		log_err("%s holds no watch yet: --git TREE and --tags PATTERN or --branch BRANCH begin one", in->dir);
		return -EINVAL;
	}
	{
		const char *args[] = { "rev-parse", "--git-dir", NULL };
		_cleanup_free_ char *out = NULL;

		if (git_capture(in->tree, args, &out, err, sizeof(err)) != 0) {
			log_err("--git %s: not a git repository (%s)", in->tree, err);
			return -EINVAL;
		}
	}
	{
		const char *start = in->start;
		char **list = NULL;

		if (in->tags) {
			int n = list_tags(s, in->tags, &list);

			if (n < 0)
				return n;
			if (n == 0) {
				log_err("--tags '%s': no tag of %s matches", in->tags, in->tree);
				strv_free(list);
				return -ENOENT;
			}
			if (!start)
				start = list[n - 1];
		} else if (!start) {
			start = in->branch;
		}
		r = git_resolve(in->tree, start, sha, err, sizeof(err));
		if (r < 0) {
			log_err("--start %s: %s", start, err);
			strv_free(list);
			return r;
		}
		/* the soak's seeds derive from this one: each boot's is recorded, so any can be replayed */
		s->track = json_pack("{s:s, s:I, s:{s:s?, s:s?}, s:{s:s, s:s}}", "tree", in->tree, "seed",
				     (json_int_t)(time(NULL) % 1000000007), "follow", "tags", in->tags, "branch",
				     in->branch, "start", "name", start, "sha", sha);
		strv_free(list);
	}
	if (!s->track)
		return -ENOMEM;
	return write_output(path, s->track, dump_json);
}
