// SPDX-License-Identifier: MIT
/*
 * The watch finds the fix (issue 36's sibling, issue 35's fourth part): for
 * each bisection of a revision that named its culprit, with --upstream, the
 * upstream commits that fix the culprit (engine/fixes.h), applied to the
 * revision (engine/fixes_apply.h) and, with a probe, proven on the kernel
 * (engine/fixes_prove.h); the first proven to fix it (else the first that
 * applies) recorded on the bisection as its "fix" (a "fixes" event), for
 * the row and the notification.
 */
#include "engine/fixes.h"
#include "engine/fixes_apply.h"
#include "engine/fixes_prove.h"
#include "engine/track.h"
#include "util/fileio.h"
#include "util/log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The first candidate proven to fix it, else the first that applies, else the first one; NULL for none. */
static json_t *first_applying(json_t *res)
{
	json_t *f, *first = NULL, *applying = NULL;
	size_t i;

	if ((f = fixes_proven(res)))
		return f;
	json_array_foreach(json_object_get(res, "fixes"), i, f) {
		if (!json_is_null(json_object_get(f, "in_stable")))
			continue;
		if (!first)
			first = f;
		if (!applying && !streq(track_str(json_object_get(f, "apply"), "verdict"), "cannot apply"))
			applying = f;
	}
	return applying ?: first;
}

/*
 * With a probe, how the applied candidates are proven on the kernel against the revision: the watch's build and
 * probe, the test's runs there from the bisection's ends (the qualification's) counted, not run again. Returns po,
 * or NULL without a probe.
 */
static struct fixes_prove_opts *prove_opts(struct track_state *s, json_t *b, struct fixes_prove_opts *po, char **probe)
{
	char path[PATH_MAX];
	json_auto_t *bd = NULL;
	json_t *bad;

	if (!s->in->probe)
		return NULL;
	probe[0] = (char *)"/bin/sh";
	probe[1] = (char *)"-c";
	probe[2] = (char *)s->in->probe;
	probe[3] = NULL;
	*po = (struct fixes_prove_opts){ .tree = s->in->tree,
					 .build = s->in->build,
					 .probe = probe,
					 .test = track_str(b, "test"),
					 .config = track_str(b, "config"),
					 .probe_bundles = s->in->probe_bundles,
					 .probe_timeout = s->in->probe_timeout,
					 .build_timeout = s->in->build_timeout };
	fix_proof_opts_default(&po->o);
	if (fileio_pathf(path, "%s/bisect.json", track_str(b, "bisect")) == 0 && (bd = json_load_file(path, 0, NULL)) &&
	    (bad = json_object_get(json_object_get(bd, "ends"), "bad"))) {
		po->prior_runs = (unsigned)json_integer_value(json_object_get(bad, "runs"));
		po->prior_fails = (unsigned)json_integer_value(json_object_get(bad, "fails"));
	}
	track_say("the fixes of %s %s will be proven on the kernel\n", po->config, po->test);
	return po;
}

int track_fixes(struct track_state *s, json_t *rv)
{
	json_t *b;
	size_t i;

	if (!s->in->upstream)
		return 0;
	json_array_foreach(json_object_get(rv, "bisections"), i, b) {
		const char *culprit = track_str(json_array_get(json_object_get(b, "culprits"), 0), "sha");
		struct fixes_query q = { .stable = s->in->tree,
					 .culprit = culprit,
					 .head = track_str(rv, "sha"),
					 .upstream = s->in->upstream };
		char fdir[PATH_MAX], err[1024] = "";
		json_auto_t *res = NULL;
		json_t *fix = NULL;
		json_int_t n = 0;
		int r;

		if (!streq(track_str(b, "verdict"), "found") || json_object_get(b, "fixes"))
			continue;
		if ((r = fileio_pathf(fdir, "%s/fixes-%zu", track_str(rv, "dir"), i)) < 0)
			return r;
		track_say("looking for %.12s's fix in %s\n", culprit, s->in->upstream);
		r = fixes_find(&q, &res, err, sizeof(err));
		if (r == 0 && (n = json_integer_value(json_object_get(res, "candidates"))) > 0) {
			const struct fixes_apply_opts ao = { .stable = s->in->tree,
							     .head = track_str(res, "head"),
							     .upstream = s->in->upstream,
							     .dir = fdir };
			struct fixes_prove_opts po;
			char *probe[4];

			r = fixes_settle(res, &ao, prove_opts(s, b, &po, probe), err, sizeof(err));
			fix = r == 0 ? first_applying(res) : NULL;
		}
		if (r < 0 && r != -EINVAL) {
			log_err("track: the fix of %.12s: %s", culprit, *err ? err : strerror(-r));
			return -EIO;
		}
		if (r == 0 && !n)
			snprintf(err, sizeof(err), "%s",
				 json_array_size(json_object_get(res, "fixes"))
					 ? "the stable tree has every upstream fix of it"
					 : "no upstream commit says it fixes it");
		r = track_append(s, json_pack("{s:s, s:s, s:O, s:O, s:{s:O?, s:s?, s:I, s:s?, s:s}}", "event", "fixes",
					      "sha", track_str(rv, "sha"), "config", json_object_get(b, "config"),
					      "test", json_object_get(b, "test"), "fixes", "fix", fix, "why",
					      fix ? NULL : err, "candidates", n, "upstream_id",
					      res ? track_str(json_object_get(res, "upstream"), "id") : NULL, "dir",
					      fdir));
		if (r < 0)
			return r;
	}
	return 0;
}
