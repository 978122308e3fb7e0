// SPDX-License-Identifier: MIT
/*
 * The change that fsagent coverage --diff judges, and the kernel the
 * coverage was taken on (see coverage_change.h).
 */
#include "engine/coverage_change.h"
#include "engine/git.h"
#include "model/bundle.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int coverage_kernel_commit(char **paths, char sha[41], char *err, size_t es)
{
	sha[0] = '\0';
	for (char **a = paths; *a; a++) {
		char **list = NULL;
		int r = bundle_find_all(*a, &list, err, es);

		for (char **p = list; r >= 0 && *p; p++) {
			json_auto_t *b = NULL;
			const char *k;

			r = bundle_load(*p, &b, err, es);
			k = json_string_value(
				json_object_get(json_object_get(json_object_get(b, "kernel"), "git"), "commit"));
			if (r < 0 || !k)
				continue;
			if (sha[0] && !streq(sha, k)) {
				snprintf(err, es,
					 "%s: booted commit %s, other bundles %s: one coverage kernel at a time", *p, k,
					 sha);
				r = -EINVAL;
			}
			snprintf(sha, 41, "%s", k);
		}
		strv_free(list);
		if (r < 0)
			return r;
	}
	return 0;
}

int coverage_change_load(const char *diff, const char *git, const char *side, const char *k, struct patch **ret,
			 struct patch **rebase, struct coverage_diff_opts *o, char *err, size_t es)
{
	_cleanup_free_ char *text = NULL;
	/* a file of that name is the diff, whatever it is called; else with --git, A..B a range */
	const char *dots = fileio_exists(diff) ? NULL : strstr(diff, "..");
	char a[41] = "", b[41] = "";
	size_t len;
	int r;

	*ret = *rebase = NULL;
	o->result_side = side && streq(side, "result");
	if (git && dots) {
		_cleanup_free_ char *ra = strndup(diff, (size_t)(dots - diff));
		const char *args[] = { "diff", "--no-color", "--no-ext-diff", "--no-renames", a, b, NULL };

		if (!ra)
			return -ENOMEM;
		if ((r = git_resolve(git, *ra ? ra : "HEAD", a, err, es)) < 0 ||
		    (r = git_resolve(git, dots[2] ? dots + 2 : "HEAD", b, err, es)) < 0)
			return r;
		r = git_capture(git, args, &text, err, es);
		if (r != 0)
			return r < 0 ? r : -EIO;
		len = strlen(text);
	} else {
		r = fileio_read_full(diff, &text, &len);
		if (r < 0) {
			snprintf(err, es, "%s: %s", diff, strerror(-r));
			return r;
		}
	}
	r = patch_parse(text, len, diff, ret, err, es);
	if (r < 0 || !git || !k[0] || side)
		return r;
	if (!dots) {
		/* a diff file: its blob ids against the coverage kernel's files */
		for (size_t i = 0; i < (*ret)->nfiles; i++) {
			const struct patch_file *f = &(*ret)->files[i];
			char spec[4200];
			_cleanup_free_ char *blob = NULL;
			const char *args[] = { "rev-parse", "--verify", "-q", spec, NULL };

			if (!f->old_blob[0] || !f->old_path)
				continue;
			snprintf(spec, sizeof(spec), "%s:%s", k, f->old_path);
			if (git_capture(git, args, &blob, err, es) != 0 || !blob)
				blob = strdup("");
			if (blob && !strncmp(blob, f->new_blob, strlen(f->new_blob)) && f->new_blob[0]) {
				o->result_side = true;
			} else if (!blob || strncmp(blob, f->old_blob, strlen(f->old_blob)) != 0) {
				snprintf(err, es,
					 "%s: %s at the coverage kernel's commit %.12s is neither the diff's base (%s) "
					 "nor its "
					 "result (%s): give --git TREE A..B to map the lines",
					 diff, f->old_path, k, f->old_blob, f->new_blob);
				return -EINVAL;
			}
		}
		return 0;
	}
	if (streq(k, a) || streq(k, b)) {
		o->result_side = streq(k, b);
		return 0;
	}
	{
		/* neither end: the coverage kernel's lines carried to the base through git diff K A */
		_cleanup_free_ char *rt = NULL;
		char kk[41];
		const char *args[] = { "diff", "--no-color", "--no-ext-diff", "--no-renames", "-U0", kk, a, NULL };

		snprintf(kk, sizeof(kk), "%s", k);
		r = git_resolve(git, k, kk, err, es);
		if (r < 0) {
			snprintf(err, es, "the coverage kernel's commit %.12s is not in %s: its lines cannot be mapped",
				 k, git);
			return -EINVAL;
		}
		r = git_capture(git, args, &rt, err, es);
		if (r != 0)
			return r < 0 ? r : -EIO;
		if (!*rt)
			return 0;
		return patch_parse(rt, strlen(rt), "git diff COVERAGE-KERNEL BASE", rebase, err, es);
	}
}
