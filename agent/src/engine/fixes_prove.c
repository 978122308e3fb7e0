// SPDX-License-Identifier: MIT
/*
 * Candidates proven on the kernel (see fixes_prove.h): builds and probe
 * calls as jobs, each recorded in DIR/prove.jsonl as it ends.
 */
#include "engine/fixes_prove.h"
#include "analysis/fixes_output.h"
#include "engine/build.h"
#include "engine/jsonl.h"
#include "engine/probe.h"
#include "engine/statedir.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/output.h"
#include "util/utctime.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

struct ctx {
	const struct fixes_prove_opts *o;
	char record[PATH_MAX];
	json_t *first;	      /* the record's first line: {test, config} */
	json_t *commits;      /* sha -> {runs, fails, built, unbuildable, untestable, why, artifact} */
	unsigned long probes; /* probe calls so far: the next one's number */
	int bundles;	      /* the probe's kind: 1 leaves bundles, 0 one run a call, -1 not known yet */
	struct probe probe;
};

static json_t *entry(struct ctx *c, const char *sha)
{
	json_t *e = json_object_get(c->commits, sha);

	if (!e && (e = json_pack("{s:i, s:i}", "runs", 0, "fails", 0)) && json_object_set_new(c->commits, sha, e) < 0)
		e = NULL;
	return e;
}

static unsigned num(json_t *e, const char *k)
{
	return (unsigned)json_integer_value(json_object_get(e, k));
}

/* One record into the state: a build, a probe call's runs, or a commit that cannot be built or tested. */
static int take(void *ctx, json_t *rec, const char *path, unsigned line)
{
	struct ctx *c = ctx;
	const char *sha = json_string_value(json_object_get(rec, "commit"));
	json_t *e, *v;

	if (!c->first) {
		c->first = json_incref(rec);
		return 0;
	}
	if (!sha) {
		log_err("%s:%u: key 'commit': missing or not a string", path, line);
		return -EBADMSG;
	}
	if (!(e = entry(c, sha)))
		return -ENOMEM;
	if (json_is_true(json_object_get(rec, "built")))
		return json_object_set_new(e, "built", json_true());
	if ((v = json_object_get(rec, "unbuildable")))
		return json_object_set(e, "unbuildable", v);
	if (json_is_integer(json_object_get(rec, "probe")))
		c->probes = (unsigned long)json_integer_value(json_object_get(rec, "probe")) + 1;
	if ((v = json_object_get(rec, "untestable")))
		return json_object_set(e, "untestable", v);
	if (!json_is_integer(json_object_get(rec, "runs")) || !json_is_integer(json_object_get(rec, "fails")) ||
	    json_integer_value(json_object_get(rec, "fails")) < 0 ||
	    json_integer_value(json_object_get(rec, "fails")) > json_integer_value(json_object_get(rec, "runs")) ||
	    json_integer_value(json_object_get(rec, "runs")) > 1000000) {
		log_err("%s:%u: key 'runs' or 'fails': missing, or not counts with 0 <= fails <= runs <= 1000000", path,
			line);
		return -EBADMSG;
	}
	if (json_is_true(json_object_get(rec, "bundles")))
		c->bundles = 1;
	else if (c->bundles < 0)
		c->bundles = 0;
	if (num(rec, "fails") && !json_object_get(e, "why") && json_object_get(rec, "why")) {
		json_object_set(e, "why", json_object_get(rec, "why"));
		json_object_set(e, "artifact", json_object_get(rec, "artifact"));
	}
	json_object_set_new(e, "runs", json_integer(num(e, "runs") + num(rec, "runs")));
	return json_object_set_new(e, "fails", json_integer(num(e, "fails") + num(rec, "fails")));
}

static int append(struct ctx *c, json_t *rec)
{
	int r = rec ? jsonl_append(c->record, rec) : -ENOMEM;

	if (r == 0)
		r = take(c, rec, c->record, 0);
	json_decref(rec);
	return r;
}

/* The kernel of sha, built unless built before. Returns 0 built (kdir set), 1 cannot be built, or -errno. */
static int build(struct ctx *c, const char *sha, char *kdir)
{
	char dir[PATH_MAX], log[PATH_MAX], why[512];
	json_t *e = entry(c, sha);
	double t0 = utctime_monotonic();
	int r, status;

	if (!e)
		return -ENOMEM;
	if ((r = fileio_pathf(dir, "%s/kernels/%s", c->o->dir, sha)) < 0 ||
	    (r = fileio_pathf(kdir, "%s/kernel", dir)) < 0 || (r = fileio_pathf(log, "%s/build.log", dir)) < 0)
		return r;
	if (!c->o->build) {
		kdir[0] = '\0';
		return 0;
	}
	if (json_is_true(json_object_get(e, "built")))
		return 0;
	if (json_object_get(e, "unbuildable"))
		return 1;
	printf("building %.12s (log: %s)\n", sha, log);
	fflush(stdout);
	status = build_commit(c->o->build, c->o->tree, sha, kdir, log, (unsigned)c->o->build_timeout, why, sizeof(why));
	if (status == -ETIME) {
		snprintf(why, sizeof(why), "no kernel within --build-timeout (%lu s)", c->o->build_timeout);
		status = 1;
	}
	if (status < 0)
		return status;
	if (status)
		printf("  cannot build %.12s: %s\n", sha, why);
	r = append(c, status ? json_pack("{s:s, s:s, s:f}", "commit", sha, "unbuildable", why, "seconds",
					 utctime_monotonic() - t0)
			     : json_pack("{s:s, s:b, s:f}", "commit", sha, "built", 1, "seconds",
					 utctime_monotonic() - t0));
	return r < 0 ? r : status != 0;
}

static const char *untestable(int status, bool timed_out)
{
	return timed_out       ? "no result within --probe-timeout"
	       : status == 125 ? "the probe cannot test it (exit 125)"
			       : "the probe left no result";
}

/* want more runs of sha (built into kdir), each call recorded as it ends. Returns 0 or -errno. */
static int runs(struct ctx *c, const char *sha, const char *kdir, unsigned want)
{
	unsigned got = 0;

	while (got < want) {
		char pdir[PATH_MAX], res[PATH_MAX];
		unsigned asked = c->bundles == 1 ? want - got : 1, n = 0, fails = 0;
		double t0 = utctime_monotonic();
		json_auto_t *how = NULL;
		json_t *rec;
		bool timed_out;
		int status, r;

		if ((r = fileio_pathf(pdir, "%s/probes/%lu", c->o->dir, c->probes)) < 0 ||
		    (r = fileio_pathf(res, "%s/results", pdir)) < 0 ||
		    (r = probe_write_step(pdir, json_pack("{s:s, s:i}", "commit", sha, "runs", (int)asked))) < 0)
			return r;
		status = probe_call(&c->probe, sha, kdir, asked, false, pdir, c->o->probe_timeout);
		if ((timed_out = status == -ETIME))
			status = 125; /* stopped at --probe-timeout: what its bundles hold counts */
		if (status < 0)
			return status;
		if (status != 0 && status != 1 && status != 125)
			return -ECHILD;
		r = probe_count(&c->probe, res, &n, &fails, &how);
		if (r == -ENOENT && status != 125 && !c->o->probe_bundles) {
			n = 1; /* no bundle: the call was one run, as fsagent reduce's probes are */
			fails = status == 1;
		} else if (r < 0 && r != -ENOENT) {
			return r;
		}
		if (!n)
			rec = json_pack("{s:s, s:I, s:s, s:f}", "commit", sha, "probe", (json_int_t)c->probes,
					"untestable", untestable(status, timed_out), "seconds",
					utctime_monotonic() - t0);
		else
			rec = json_pack("{s:s, s:I, s:i, s:i, s:i, s:b, s:f}", "commit", sha, "probe",
					(json_int_t)c->probes, "asked", (int)asked, "runs", (int)n, "fails", (int)fails,
					"bundles", r == 0, "seconds", utctime_monotonic() - t0);
		if (rec && how && fails)
			json_object_update(rec, how);
		if ((r = append(c, rec)) < 0)
			return r;
		if (!n) {
			printf("  %.12s: %s\n", sha, untestable(status, timed_out));
			return 0;
		}
		printf("  %.12s: %u of %u runs failed\n", sha, fails, n);
		fflush(stdout);
		got += n;
	}
	return 0;
}

/* A probe directory left by a stop: its finished runs recorded, nothing run again. */
static int recover(struct ctx *c)
{
	char pdir[PATH_MAX], res[PATH_MAX], step[PATH_MAX];
	json_auto_t *st = NULL;
	unsigned n = 0, fails = 0;
	const char *sha;
	int r;

	if ((r = fileio_pathf(pdir, "%s/probes/%lu", c->o->dir, c->probes)) < 0 ||
	    (r = fileio_pathf(res, "%s/results", pdir)) < 0 || (r = fileio_pathf(step, "%s/step.json", pdir)) < 0)
		return r;
	if (!fileio_exists(pdir))
		return 0;
	st = json_load_file(step, 0, NULL);
	sha = json_string_value(json_object_get(st, "commit"));
	r = probe_count(&c->probe, res, &n, &fails, NULL);
	if (r == 0 && n && sha) {
		printf("recovered %u run%s of an interrupted probe (%s)\n", n, n == 1 ? "" : "s", pdir);
		return append(c,
			      json_pack("{s:s, s:I, s:i, s:i, s:b, s:b}", "commit", sha, "probe", (json_int_t)c->probes,
					"runs", (int)n, "fails", (int)fails, "bundles", 1, "interrupted", 1));
	}
	r = statedir_set_aside(pdir); /* nothing finished there: the number reused */
	return r;
}

/* The record's first line: the test and config it was begun for, refused when others are given. */
static int begin(struct ctx *c, char *err, size_t es)
{
	const char *t, *k;

	if (!c->first)
		return append(c, json_pack("{s:s, s:s}", "test", c->o->test, "config", c->o->config));
	t = json_string_value(json_object_get(c->first, "test"));
	k = json_string_value(json_object_get(c->first, "config"));
	if (!t || !k) {
		snprintf(err, es, "%s:1: key 'test' or 'config': missing or not a string", c->record);
		return -EINVAL;
	}
	if (!streq(t, c->o->test) || !streq(k, c->o->config)) {
		snprintf(err, es, "%s was begun to prove %s %s, not %s %s: its runs are of that test", c->o->dir, k, t,
			 c->o->config, c->o->test);
		return -EINVAL;
	}
	return 0;
}

static json_t *side(struct ctx *c, const char *sha)
{
	json_t *e = entry(c, sha);

	return json_pack("{s:s, s:i, s:i}", "commit", sha, "runs", (int)num(e, "runs"), "fails", (int)num(e, "fails"));
}

/* Candidate f (applied as patched) against head: its proof. Returns 0, -EINVAL (err says), or -errno. */
static int prove_one(struct ctx *c, const char *head, json_t *f, char *err, size_t es)
{
	const char *patched = json_string_value(json_object_get(json_object_get(f, "apply"), "commit"));
	char hdir[PATH_MAX], kdir[PATH_MAX];
	struct fix_proof p = { 0 };
	const char *verdict, *why = "";
	json_t *eh, *ek, *proof;
	int r;

	printf("proving %.12s \"%s\" (%.12s with it) against %.12s, %s %s\n",
	       json_string_value(json_object_get(f, "id")), json_string_value(json_object_get(f, "subject")), patched,
	       head, c->o->config, c->o->test);
	fflush(stdout);
	if ((r = build(c, head, hdir)) == 1) {
		snprintf(err, es, "the failing revision %.12s cannot be built: %s", head,
			 json_string_value(json_object_get(entry(c, head), "unbuildable")));
		return -EINVAL;
	}
	if (r < 0 || (r = build(c, patched, kdir)) < 0)
		return r;
	if (r == 1) {
		verdict = "cannot build";
		why = json_string_value(json_object_get(entry(c, patched), "unbuildable"));
	}
	for (verdict = r == 1 ? verdict : NULL; !verdict;) {
		eh = entry(c, head);
		ek = entry(c, patched);
		if (!eh || !ek)
			return -ENOMEM;
		if (json_object_get(eh, "untestable")) {
			snprintf(err, es, "the failing revision %.12s cannot be tested: %s", head,
				 json_string_value(json_object_get(eh, "untestable")));
			return -EINVAL;
		}
		if (json_object_get(ek, "untestable")) {
			verdict = "undecided";
			why = json_string_value(json_object_get(ek, "untestable"));
			break;
		}
		fix_proof_judge(&c->o->o, num(eh, "fails"), num(eh, "runs"), num(ek, "fails"), num(ek, "runs"), &p);
		if (p.verdict != FIX_UNDECIDED || !(p.want_head + p.want_patched)) {
			verdict = fix_verdict_name(p.verdict);
			why = p.why;
			break;
		}
		if ((p.want_head && (r = runs(c, head, hdir, p.want_head)) < 0) ||
		    (p.want_patched && (r = runs(c, patched, kdir, p.want_patched)) < 0))
			return r;
	}
	proof = json_pack("{s:s, s:s, s:o, s:o}", "verdict", verdict, "why", why ?: "", "head", side(c, head),
			  "patched", side(c, patched));
	if (proof && json_object_get(entry(c, patched), "why")) {
		json_object_set(json_object_get(proof, "patched"), "why", json_object_get(entry(c, patched), "why"));
		json_object_set(json_object_get(proof, "patched"), "artifact",
				json_object_get(entry(c, patched), "artifact"));
	}
	printf("  %.12s: %s\n", json_string_value(json_object_get(f, "id")), verdict);
	return proof ? json_object_set_new(f, "proof", proof) : -ENOMEM;
}

int fixes_prove(struct fixes_prove_opts *o, const char *head, json_t *fixes, char *err, size_t es)
{
	struct ctx c = { .o = o, .bundles = o->probe_bundles ? 1 : -1 };
	double rate = o->o.min_rate, alpha = o->o.alpha, max = o->o.max_runs;
	struct statedir_option opts[] = {
		{ "min_rate", &rate, o->given[0], false },
		{ "alpha", &alpha, o->given[1], false },
		{ "max_runs", &max, o->given[2], true },
	};
	bool found = false;
	size_t i;
	json_t *f;
	int r;

	c.probe = (struct probe){ .argv = o->probe, .config = o->config, .dir = o->dir };
	if (!(c.commits = json_object()) || !(c.probe.tests = json_pack("[s]", o->test)))
		r = -ENOMEM;
	else if ((r = statedir_options(o->dir, "fsagent fixes --prove", opts, ARRAY_SIZE(opts))) < 0)
		; /* said */
	else if ((r = fileio_pathf(c.record, "%s/prove.jsonl", o->dir)) == 0 &&
		 (r = jsonl_replay(c.record, take, &c)) == 0 && (r = begin(&c, err, es)) == 0)
		r = recover(&c);
	/* the directory's, when it was begun with others */
	o->o.min_rate = rate;
	o->o.alpha = alpha;
	o->o.max_runs = (unsigned)max;
	if (r == 0 && o->prior_runs) {
		/* not in the record: added again on every start, as they were the first time */
		json_t *e = entry(&c, head);

		r = e ? json_object_set_new(e, "runs", json_integer(num(e, "runs") + o->prior_runs)) : -ENOMEM;
		if (r == 0)
			r = json_object_set_new(e, "fails", json_integer(num(e, "fails") + o->prior_fails));
	}
	json_array_foreach(fixes, i, f) {
		if (r < 0)
			break;
		if (!json_is_string(json_object_get(json_object_get(f, "apply"), "commit")))
			continue; /* cannot apply: nothing to prove */
		if (found && !o->all)
			break;
		r = prove_one(&c, head, f, err, es);
		found |= r == 0 &&
			 streq(json_string_value(json_object_get(json_object_get(f, "proof"), "verdict")), "fixes");
	}
	json_decref(c.first);
	json_decref(c.commits);
	json_decref(c.probe.tests);
	return r;
}

int fixes_settle(json_t *res, const struct fixes_apply_opts *ao, struct fixes_prove_opts *po, char *err, size_t es)
{
	char path[PATH_MAX];
	int r = 0;

	if (json_integer_value(json_object_get(res, "candidates")) > 0)
		r = fixes_apply(ao, json_object_get(res, "fixes"), err, es);
	if (r == 0 && po) {
		po->dir = ao->dir;
		r = fixes_prove(po, json_string_value(json_object_get(res, "head")), json_object_get(res, "fixes"), err,
				es);
		if (r == 0)
			r = json_object_set_new(res, "proof",
						json_pack("{s:s, s:s, s:f, s:f, s:i}", "test", po->test, "config",
							  po->config, "min_rate", po->o.min_rate, "alpha", po->o.alpha,
							  "max_runs", (int)po->o.max_runs));
	}
	if (r == 0 && (r = fileio_pathf(path, "%s/fixes.json", ao->dir)) == 0 &&
	    (r = write_output(path, res, dump_json)) == 0 && (r = fileio_pathf(path, "%s/fixes.html", ao->dir)) == 0)
		r = write_output(path, res, fixes_html);
	return r;
}

json_t *fixes_proven(json_t *res)
{
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(res, "fixes"), i, f)
		if (streq(json_string_value(json_object_get(json_object_get(f, "proof"), "verdict")) ?: "", "fixes"))
			return f;
	return NULL;
}
