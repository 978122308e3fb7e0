// SPDX-License-Identifier: MIT
/*
 * Candidates applied in a worktree (see fixes_apply.h): git cherry-pick -x
 * through git_try, the record rewritten (temp file, fsync, rename) after
 * each candidate.
 */
#include "engine/fixes_apply.h"
#include "engine/git.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_SCHEMA "fsagent-fixes-apply/1"

struct ctx {
	const struct fixes_apply_opts *o;
	char wt[PATH_MAX], record[PATH_MAX];
	bool ident;  /* the stable tree says no committer: fsagent's name on the patched commits */
	json_t *doc; /* the record: {schema, head, applied: {id: apply}} */
};

/* git in the worktree, with a committer where the tree has none. */
static int wgit(const struct ctx *c, const char *const *args, char *said, size_t ss)
{
	const char *argv[24];
	size_t n = 0;

	if (c->ident) {
		argv[n++] = "-c", argv[n++] = "user.name=fsagent";
		argv[n++] = "-c", argv[n++] = "user.email=fsagent@localhost";
	}
	for (const char *const *a = args; *a && n < ARRAY_SIZE(argv) - 1; a++)
		argv[n++] = *a;
	argv[n] = NULL;
	return git_try(c->wt, argv, said, ss);
}

/* The worktree at the failing revision, clean: what a stop in the middle of a pick left is undone. */
static int reset(const struct ctx *c, char *err, size_t es)
{
	const char *abort_pick[] = { "cherry-pick", "--abort", NULL }, *abort_am[] = { "am", "--abort", NULL },
		   *checkout[] = { "checkout", "-q", "--detach", "-f", c->o->head, NULL },
		   *clean[] = { "clean", "-fdq", NULL };
	char said[512];
	int r;

	if (wgit(c, abort_pick, said, sizeof(said)) < 0 || wgit(c, abort_am, said, sizeof(said)) < 0 ||
	    (r = wgit(c, checkout, said, sizeof(said))) != 0 || (r = wgit(c, clean, said, sizeof(said))) != 0) {
		snprintf(err, es, "%s: the worktree back at %.12s: %s", c->wt, c->o->head, said);
		return -EIO;
	}
	return 0;
}

/*
 * Candidate f onto the worktree's HEAD: its upstream commit cherry-picked,
 * or its patch (an mbox's mail) applied with git am -3. Returns 0, or 1
 * with git's words in said (the attempt undone).
 */
static int pick(const struct ctx *c, json_t *f, char *said, size_t ss)
{
	const char *id = json_string_value(json_object_get(f, "id")) ?: "",
		   *patch = json_string_value(json_object_get(f, "patch"));
	const char *cp[] = { "cherry-pick", "-x", id, NULL }, *am[] = { "am", "-3", patch, NULL };
	const char *ab[] = { patch ? "am" : "cherry-pick", "--abort", NULL };
	char ignored[256];
	int r = wgit(c, patch ? am : cp, said, ss);

	if (r == 0)
		return 0;
	wgit(c, ab, ignored, sizeof(ignored));
	return r < 0 ? r : 1;
}

static int save(const struct ctx *c)
{
	_cleanup_free_ char *text = json_dumps(c->doc, JSON_INDENT(2) | JSON_SORT_KEYS);

	return text ? fileio_write_atomic(c->record, text, strlen(text)) : -ENOMEM;
}

/* The record of DIR, or a new one; one begun for another revision is refused. */
static int load(struct ctx *c, char *err, size_t es)
{
	json_error_t je;

	if (!fileio_exists(c->record)) {
		c->doc = json_pack("{s:s, s:s, s:{}}", "schema", RECORD_SCHEMA, "head", c->o->head, "applied");
		return c->doc ? 0 : -ENOMEM;
	}
	c->doc = json_load_file(c->record, 0, &je);
	if (!c->doc || !json_is_object(json_object_get(c->doc, "applied")) ||
	    !streq(json_string_value(json_object_get(c->doc, "schema")) ?: "", RECORD_SCHEMA)) {
		snprintf(err, es, "%s:%d: not a record of applied fixes (%s)", c->record, c->doc ? 0 : je.line,
			 c->doc ? "schema " RECORD_SCHEMA " wanted" : je.text);
		return -EINVAL;
	}
	if (!streq(json_string_value(json_object_get(c->doc, "head")) ?: "", c->o->head)) {
		snprintf(err, es, "%s was begun for the revision %.12s, not %.12s: another --apply directory",
			 c->o->dir, json_string_value(json_object_get(c->doc, "head")) ?: "?", c->o->head);
		return -EINVAL;
	}
	return 0;
}

/* The worktree, made once; the candidates' commits fetched into the stable tree. */
static int prepare(struct ctx *c, json_t *fixes, char *err, size_t es)
{
	const char *cfg[] = { "config", "user.email", NULL };
	_cleanup_free_ char *out = NULL;
	const char *argv[72] = { "fetch", "-q", "--no-tags", c->o->upstream };
	size_t n = 4, i;
	json_t *f;
	char said[512];
	int r;

	c->ident = git_capture(c->o->stable, cfg, &out, NULL, 0) != 0;
	if (!fileio_exists(c->wt)) {
		const char *add[] = { "worktree", "add", "-q", "--detach", c->wt, c->o->head, NULL };

		if ((r = git_try(c->o->stable, add, said, sizeof(said))) != 0) {
			snprintf(err, es, "%s: a worktree at %s: %s", c->o->stable, c->wt, said);
			return r < 0 ? r : -EIO;
		}
	}
	json_array_foreach(fixes, i, f) {
		const char *id = json_string_value(json_object_get(f, "id"));
		char sha[41];

		if (json_is_null(json_object_get(f, "in_stable")) && id && !json_object_get(f, "patch") &&
		    n < ARRAY_SIZE(argv) - 1 && git_resolve(c->o->stable, id, sha, NULL, 0) < 0)
			argv[n++] = id;
	}
	argv[n] = NULL;
	if (n > 4 && (r = git_try(c->o->stable, argv, said, sizeof(said))) != 0) {
		snprintf(err, es, "%s: fetching the candidates from %s: %s", c->o->stable, c->o->upstream, said);
		return r < 0 ? r : -EIO;
	}
	return reset(c, err, es);
}

/* Candidate id applied: alone, else after those before it that apply. Returns its apply record, or NULL. */
static json_t *apply_one(struct ctx *c, json_t *fixes, size_t k, json_t *cand, char *err, size_t es)
{
	const char *head[] = { "rev-parse", "HEAD", NULL };
	char said[512], again[512];
	json_t *after = json_array(), *rec = NULL, *f;
	_cleanup_free_ char *top = NULL;
	const char *id = json_string_value(json_object_get(cand, "id")) ?: "";
	size_t i;
	int r = pick(c, cand, said, sizeof(said));

	if (r == 1) {
		/* its prerequisites among the candidates before it, in order */
		if (reset(c, err, es) < 0) {
			json_decref(after);
			return NULL;
		}
		json_array_foreach(fixes, i, f) {
			const char *pid = json_string_value(json_object_get(f, "id"));
			json_t *pa = json_object_get(json_object_get(c->doc, "applied"), pid ?: "");

			if (i >= k)
				break;
			if (json_is_null(json_object_get(f, "in_stable")) && pa &&
			    !streq(json_string_value(json_object_get(pa, "verdict")) ?: "", "cannot apply") &&
			    pick(c, f, again, sizeof(again)) == 0)
				json_array_append_new(after, json_string(pid));
		}
		r = json_array_size(after) ? pick(c, cand, again, sizeof(again)) : 1;
	}
	if (r < 0) {
		snprintf(err, es, "cherry-pick of %.12s: %s", id, strerror(-r));
		json_decref(after);
		return NULL;
	}
	if (r == 0 && git_capture(c->wt, head, &top, err, es) == 0) {
		char ref[128];
		const char *upd[] = { "update-ref", ref, strtok(top, "\n"), NULL };

		snprintf(ref, sizeof(ref), "refs/fsagent/fixes/%s", id);
		if (git_try(c->o->stable, upd, again, sizeof(again)) != 0)
			log_warn("%s: keeping %.12s's patched revision as %s failed: %s", c->o->stable, id, ref, again);
		rec = json_pack("{s:s, s:o, s:s?, s:s}", "verdict",
				json_array_size(after) ? "applies after" : "applies", "after", after, "reason",
				json_array_size(after) ? said : NULL, "commit", top);
	} else if (r == 0) {
		json_decref(after);
		return NULL;
	} else {
		json_decref(after);
		rec = json_pack("{s:s, s:[], s:s}", "verdict", "cannot apply", "after", "reason", said);
	}
	return rec;
}

int fixes_apply(const struct fixes_apply_opts *o, json_t *fixes, char *err, size_t es)
{
	struct ctx c = { .o = o };
	size_t i;
	json_t *f;
	int r;

	if ((r = fileio_mkdir_p(o->dir)) < 0) {
		snprintf(err, es, "create '%s' failed: %s", o->dir, strerror(-r));
		return r;
	}
	if ((r = fileio_pathf(c.wt, "%s/worktree", o->dir)) < 0 ||
	    (r = fileio_pathf(c.record, "%s/apply.json", o->dir)) < 0)
		return r;
	if ((r = load(&c, err, es)) < 0 || (r = prepare(&c, fixes, err, es)) < 0)
		goto out;
	json_array_foreach(fixes, i, f) {
		const char *id = json_string_value(json_object_get(f, "id"));
		json_t *rec;

		if (!id || !json_is_null(json_object_get(f, "in_stable")))
			continue;
		rec = json_object_get(json_object_get(c.doc, "applied"), id);
		if (rec) {
			/* recorded before a stop: not applied again */
			json_object_set(f, "apply", rec);
			continue;
		}
		if ((r = reset(&c, err, es)) < 0 || !(rec = apply_one(&c, fixes, i, f, err, es))) {
			r = r < 0 ? r : -EIO;
			goto out;
		}
		json_object_set_new(json_object_get(c.doc, "applied"), id, rec);
		json_object_set(f, "apply", rec);
		if ((r = save(&c)) < 0) {
			snprintf(err, es, "write '%s' failed: %s", c.record, strerror(-r));
			goto out;
		}
	}
	r = reset(&c, err, es);
out:
	json_decref(c.doc);
	return r;
}
