// SPDX-License-Identifier: MIT
/*
 * fsagent track's steps for one revision: its build, its qualification
 * against the baseline, the bisection of each regression, its soak, and the
 * word of it (see track.h).
 */
#include "engine/track.h"
#include "analysis/fixes_output.h"
#include "engine/bisect_loop.h"
#include "engine/build.h"
#include "engine/job.h"
#include "engine/qualify_loop.h"
#include "engine/qualify_plan.h"
#include "engine/statedir.h"
#include "analysis/compare.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/output.h"
#include "util/strv.h"
#include "util/utctime.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- one revision's steps ---------------------------------------------------- */

static int run_shell(const char *cmd, const char *const *env, const char *log, unsigned seconds, int *status)
{
	return job_run_for((char *const[]){ (char *)"/bin/sh", (char *)"-c", (char *)cmd, NULL }, env, log, seconds,
			   status);
}

int track_build(struct track_state *s, json_t *rv)
{
	char kdir[PATH_MAX], log[PATH_MAX], why[512];
	double t0 = utctime_monotonic();
	int r;

	if ((r = fileio_pathf(kdir, "%s/kernel", track_str(rv, "dir"))) < 0 ||
	    (r = fileio_pathf(log, "%s/build.log", track_str(rv, "dir"))) < 0)
		return r;
	if ((r = track_step(s, rv, "building")) < 0)
		return r;
	track_say("building %s (log: %s)\n", track_str(rv, "name"), log);
	fflush(stdout);
	r = build_commit(s->in->build, s->in->tree, track_str(rv, "sha"), kdir, log, (unsigned)s->in->build_timeout,
			 why, sizeof(why));
	if (r == -ETIME) {
		snprintf(why, sizeof(why), "no kernel within --build-timeout (%lu s)", s->in->build_timeout);
		r = 1;
	}
	if (r < 0)
		return r;
	if (r == 0)
		return track_append(s, json_pack("{s:s, s:s, s:f}", "event", "built", "sha", track_str(rv, "sha"),
						 "seconds", utctime_monotonic() - t0));
	track_say("cannot build %s: %s\n", track_str(rv, "name"), why);
	return track_append(s, json_pack("{s:s, s:s, s:s+, s:f}", "event", "unbuildable", "sha", track_str(rv, "sha"),
					 "why", "cannot build: ", why, "seconds", utctime_monotonic() - t0));
}

#define HISTORY 8 /* revisions back whose runs a baseline's side may pool */

struct history {
	struct qualify_prior *v;
	size_t n;
};

static void history_free(struct history *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].dir);
		strv_free(h->v[i].except);
	}
	free(h->v);
}

static int history_add(struct history *h, const char *dir, char *const *except)
{
	struct qualify_prior *nv = realloc(h->v, (h->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	h->v = nv;
	h->v[h->n].dir = strdup(dir);
	h->v[h->n].except = strv_split("", ",");
	if (!h->v[h->n].dir || !h->v[h->n].except || strv_extend(&h->v[h->n].except, except) < 0) {
		free(h->v[h->n].dir);
		strv_free(h->v[h->n].except);
		return -ENOMEM;
	}
	h->n++;
	return 0;
}

/* The finished rounds' results of one side ("baseline", "candidate") of rv's qualification. */
static int side_runs(struct history *h, json_t *rv, const char *side, char *const *except)
{
	char path[PATH_MAX], done[PATH_MAX];
	int r = 0;

	for (unsigned k = 0; r == 0; k++) {
		char round[PATH_MAX];

		if ((r = fileio_pathf(round, "%s/qualify/round-%u", track_str(rv, "dir"), k)) < 0 ||
		    !fileio_exists(round))
			break;
		if ((r = fileio_pathf(path, "%s/%s/results", round, side)) < 0 ||
		    (r = fileio_pathf(done, "%s/%s/done", round, side)) < 0)
			break;
		if (fileio_exists(done))
			r = history_add(h, path, except);
	}
	return r;
}

/* A revision's own runs: its qualification's candidate sides, its soak's boots that ran tests. */
static int own_runs(struct history *h, json_t *rv, char *const *except)
{
	char path[PATH_MAX];
	json_t *b;
	size_t i;
	int r = side_runs(h, rv, "candidate", except);

	json_array_foreach(json_object_get(json_object_get(rv, "soak"), "boots"), i, b)
		if (r == 0 && json_integer_value(json_object_get(b, "runs")) > 0 &&
		    (r = fileio_pathf(path, "%s/soak/%lld/results", track_str(rv, "dir"),
				      json_integer_value(json_object_get(b, "boot")))) == 0)
			r = history_add(h, path, except);
	return r;
}

/*
 * The baseline's side before any run of its own: the baseline's runs, and
 * back along the chain of baselines (at most HISTORY), each older
 * revision's runs of the tests that no qualification since found changed
 * (a test that regressed, was fixed or stayed undecided at one leaves the
 * pool there): a flaky test's rate is known from all the kernels it was
 * the same on, so a new revision needs only its own runs to bound it. An
 * older revision's runs are its own and those it got as the baseline of
 * the next one's qualification (the start's first of all).
 */
static int prior_runs(struct track_state *s, json_t *base, struct history *h)
{
	char **except = strv_split("", ",");
	json_t *rv = base, *t;
	int r = except ? 0 : -ENOMEM;

	for (unsigned depth = 0; r == 0 && rv && depth < HISTORY; depth++) {
		size_t i;

		if ((r = own_runs(h, rv, except)) < 0 || !json_object_get(rv, "changed"))
			break;
		json_array_foreach(json_object_get(rv, "changed"), i, t) {
			char key[512];

			snprintf(key, sizeof(key), "%s\x1f%s", track_str(t, "config"), track_str(t, "test"));
			if (!strv_contains(except, key) && (r = strv_push(&except, key)) < 0)
				break;
		}
		/* the baseline's runs in rv's qualification: the older revision's */
		if (r == 0 && depth + 1 < HISTORY)
			r = side_runs(h, rv, "baseline", except);
		rv = track_rev(s, track_str(rv, "baseline_sha"));
	}
	strv_free(except);
	return r;
}

/*
 * The tests of a qualification's outcome with that verdict, as [{config,
 * test}]; "changed": any but pass, flaky and failing (the rate may have
 * moved); NULL: the tests that failed on the candidate.
 */
static json_t *tests_of(json_t *doc, const char *verdict)
{
	json_t *out = json_array(), *t;
	size_t i;

	json_array_foreach(json_object_get(doc, "tests"), i, t)
		if (!verdict ? json_integer_value(json_object_get(json_object_get(t, "candidate"), "failures")) > 0
		    : streq(verdict, "changed")
			    ? !streq(track_str(t, "verdict"), "pass") && !streq(track_str(t, "verdict"), "flaky") &&
				      !streq(track_str(t, "verdict"), "failing")
			    : streq(track_str(t, "verdict"), verdict))
			/* with how the candidate failed first, the file that shows it, and how often */
			json_array_append_new(
				out, json_pack("{s:O, s:O, s:O?, s:O?, s:O?, s:O?, s:O?}", "config",
					       json_object_get(t, "config"), "test", json_object_get(t, "test"), "why",
					       json_object_get(json_object_get(t, "candidate"), "why"), "artifact",
					       json_object_get(json_object_get(t, "candidate"), "artifact"), "failures",
					       json_object_get(json_object_get(t, "candidate"), "failures"), "runs",
					       json_object_get(json_object_get(t, "candidate"), "runs"), "together",
					       json_object_get(t, "together")));
	return out;
}

int track_qualify(struct track_state *s, json_t *rv, json_t *base)
{
	char qdir[PATH_MAX], kb[PATH_MAX], kc[PATH_MAX], plan[PATH_MAX], path[PATH_MAX];
	struct qualify_run q = {
		.runner = s->in->runner, .o = s->in->qo, .budget = s->in->budget, .jobs = s->in->jobs
	};
	struct history h = { 0 };
	json_auto_t *doc = NULL;
	int r, rc;

	if ((r = track_step(s, rv, "qualifying against %s", track_str(base, "name"))) < 0 ||
	    (r = fileio_pathf(qdir, "%s/qualify", track_str(rv, "dir"))) < 0 ||
	    (r = fileio_pathf(kb, "%s/kernel", track_str(base, "dir"))) < 0 ||
	    (r = fileio_pathf(kc, "%s/kernel", track_str(rv, "dir"))) < 0 ||
	    (r = fileio_pathf(plan, "%s/plan/plan.conf", s->in->dir)) < 0 || (r = fileio_mkdir_p(qdir)) < 0 ||
	    (r = prior_runs(s, base, &h)) < 0) {
		history_free(&h);
		return r;
	}
	q.prior = h.v;
	q.nprior = h.n;
	track_say("qualifying %s against %s (%s)\n", track_str(rv, "name"), track_str(base, "name"), qdir);
	fflush(stdout);
	q.dir = qdir;
	q.kernel[0] = kb;
	q.kernel[1] = kc;
	rc = qualify_loop_setup(&q, plan, s->in->qgiven) < 0 ? 2 : qualify_loop_run(&q);
	qualify_loop_release(&q);
	history_free(&h);
	if (rc != 0 && rc != 1)
		return -EIO;
	if ((r = fileio_pathf(path, "%s/qualify.json", qdir)) < 0)
		return r;
	doc = json_load_file(path, 0, NULL);
	if (!json_is_object(doc)) {
		log_err("%s: missing or not fsagent qualify's outcome", path);
		return -EBADMSG;
	}
	return track_append(s, json_pack("{s:s, s:s, s:s, s:s, s:O, s:o, s:o, s:o, s:I, s:s}", "event", "qualified",
					 "sha", track_str(rv, "sha"), "baseline", track_str(base, "name"),
					 "baseline_sha", track_str(base, "sha"), "counts",
					 json_object_get(doc, "counts"), "regressions", tests_of(doc, "regression"),
					 "failed", tests_of(doc, NULL), "changed", tests_of(doc, "changed"), "runs",
					 json_integer_value(json_object_get(json_object_get(doc, "runs"), "total")),
					 "qualify", qdir));
}

/* Each regression not bisected yet, between the baseline and this revision. */
int track_bisect(struct track_state *s, json_t *rv)
{
	json_t *regs = json_object_get(rv, "regressions"), *g;
	size_t i;

	json_array_foreach(regs, i, g) {
		char bdir[PATH_MAX], path[PATH_MAX];
		char *goods[2] = { (char *)track_str(rv, "baseline_sha"), NULL };
		char *tests[2] = { (char *)track_str(g, "test"), NULL };
		char *probe[] = { (char *)"/bin/sh", (char *)"-c", (char *)s->in->probe, NULL };
		struct bisect_run br = {
			.tree = s->in->tree,
			.bad = track_str(rv, "sha"),
			.config = track_str(g, "config"),
			.goods = goods,
			.tests = tests,
			.probe = probe,
			.build = s->in->build,
			.ends_from =
				track_str(rv, "qualify"), /* its baseline ran the good end, its candidate the bad */
			.max_runs = s->in->bisect_runs,
			.max_kernels = s->in->bisect_kernels,
			.probe_timeout = s->in->probe_timeout,
			.build_timeout = s->in->build_timeout,
			.probe_bundles = s->in->probe_bundles,
		};
		json_auto_t *doc = NULL;
		const char *verdict;
		int rc, r;

		if (i < json_array_size(json_object_get(rv, "bisections")))
			continue;
		if ((r = fileio_pathf(bdir, "%s/bisect-%zu", track_str(rv, "dir"), i)) < 0)
			return r;
		if (s->in->probe && !compare_together(g) &&
		    (r = track_step(s, rv, "bisecting %s %s", track_str(g, "config"), track_str(g, "test"))) < 0)
			return r;
		if (!s->in->probe || compare_together(g)) {
			/* a crash of tests together (or of none named): a probe runs one test */
			r = track_append(s,
					 json_pack("{s:s, s:s, s:O, s:O, s:s, s:s}", "event", "bisected", "sha",
						   track_str(rv, "sha"), "config", json_object_get(g, "config"), "test",
						   json_object_get(g, "test"), "verdict", "not bisected", "why",
						   s->in->probe ? "a crash of tests together: a probe runs one test"
								: "no probe command"));
			if (r < 0)
				return r;
			continue;
		}
		track_say("bisecting %s %s between %s and %s (%s)\n", track_str(g, "config"), track_str(g, "test"),
			  track_str(rv, "baseline"), track_str(rv, "name"), bdir);
		fflush(stdout);
		br.dir = bdir;
		bisect_opts_default(&br.o);
		rc = bisect_loop(&br);
		if (rc == 3)
			return -EIO;
		if ((r = fileio_pathf(path, "%s/bisect.json", bdir)) < 0)
			return r;
		doc = json_load_file(path, 0, NULL);
		verdict = rc == 2 || !json_is_object(doc) ? "error" : track_str(doc, "verdict");
		r = track_append(s, json_pack("{s:s, s:s, s:O, s:O, s:s, s:O?, s:O?, s:s, s:i}", "event", "bisected",
					      "sha", track_str(rv, "sha"), "config", json_object_get(g, "config"),
					      "test", json_object_get(g, "test"), "verdict", verdict, "culprits",
					      json_object_get(doc, "culprits"), "confidence",
					      json_object_get(doc, "confidence"), "bisect", bdir, "exit", rc));
		if (r < 0)
			return r;
	}
	return 0;
}

/* The tests of a soak boot's bundles that failed: [{config, test, failures, runs}], the runs into *runs; NULL: none. */
static json_t *soak_failures(const char *res, json_int_t *runs)
{
	struct compare *cmp = NULL;
	char err[1024] = "";
	json_auto_t *doc = NULL;
	json_t *out, *t;
	size_t i;
	int r = compare_new(&cmp);

	*runs = 0;
	if (r < 0)
		return NULL;
	r = compare_add(cmp, SIDE_CANDIDATE, res, err, sizeof(err));
	doc = r == 0 ? compare_result(cmp, 0.01) : NULL;
	compare_free(cmp);
	if (r < 0 && r != -ENOENT)
		log_warn("track: a soak boot's results: %s", err);
	out = json_array();
	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		json_t *k = json_object_get(t, "candidate");

		*runs += json_integer_value(json_object_get(k, "runs"));
		if (json_integer_value(json_object_get(k, "failures")) > 0)
			json_array_append_new(
				out, json_pack("{s:O, s:O, s:O, s:O}", "config", json_object_get(t, "config"), "test",
					       json_object_get(t, "test"), "failures", json_object_get(k, "failures"),
					       "runs", json_object_get(k, "runs")));
	}
	return out;
}

int track_soak(struct track_state *s, json_t *rv)
{
	char dir[PATH_MAX], res[PATH_MAX], plan[PATH_MAX], base[PATH_MAX], log[PATH_MAX], kernel[PATH_MAX], nb[16];
	char echo[160];
	json_t *soak = json_object_get(rv, "soak");
	json_int_t boot = (json_int_t)json_array_size(json_object_get(soak, "boots")), runs;
	uint64_t seed = (uint64_t)json_integer_value(json_object_get(s->track, "seed")) + 1000003u * (uint64_t)boot +
			(uint64_t)json_integer_value(json_object_get(rv, "index"));
	_cleanup_free_ char *text = NULL, *e_side = NULL, *e_round = NULL, *e_plan = NULL, *e_res = NULL,
			    *e_kernel = NULL;
	size_t len = 0;
	double t0 = utctime_monotonic();
	json_t *found;
	int r, status;

	snprintf(nb, sizeof(nb), "%lld", (long long)boot);
	if ((r = fileio_pathf(dir, "%s/soak/%s", track_str(rv, "dir"), nb)) < 0 ||
	    (r = fileio_pathf(res, "%s/results", dir)) < 0 || (r = fileio_pathf(plan, "%s/plan.conf", dir)) < 0 ||
	    (r = fileio_pathf(log, "%s/log", dir)) < 0 ||
	    (r = fileio_pathf(kernel, "%s/kernel", track_str(rv, "dir"))) < 0 ||
	    (r = fileio_pathf(base, "%s/plan/plan.conf", s->in->dir)) < 0)
		return r;
	/* a boot cut off before it was recorded: the runs it finished are its record (the next boot goes on) */
	if (fileio_exists(res)) {
		if (!(found = soak_failures(res, &runs)))
			return -ENOMEM;
		if (runs > 0) {
			track_say("kept the %lld run%s soak boot %s of %s finished before a stop (%s)\n",
				  (long long)runs, runs == 1 ? "" : "s", nb, track_str(rv, "name"), res);
			return track_append(s, json_pack("{s:s, s:s, s:I, s:I, s:f, s:b, s:I, s:o}", "event", "soaked",
							 "sha", track_str(rv, "sha"), "boot", boot, "seed",
							 (json_int_t)seed, "seconds", 0.0, "interrupted", 1, "runs",
							 runs, "failures", found));
		}
		json_decref(found);
	}
	/* nothing finished there: it runs again from nothing */
	if ((r = statedir_set_aside(res)) < 0)
		return r;
	if ((r = track_step(s, rv, "soaking, boot %s", nb)) < 0)
		return r;
	if ((r = fileio_mkdir_p(res)) < 0 || (r = fileio_read_regular(base, 1 << 20, &text, &len)) < 0) {
		log_err("soak of %s: %s: %s", track_str(rv, "name"), r == -ENOENT ? base : res, strerror(-r));
		return r;
	}
	{
		_cleanup_free_ char *p = NULL;
		int n = asprintf(&p, "%s\n# fsagent track: soak boot %s of %s\norder = random\nseed = %llu\n", text, nb,
				 track_str(rv, "name"), (unsigned long long)seed);

		if (n < 0)
			return -ENOMEM;
		/* the plan's files come along, as in a qualification */
		if ((r = qualify_plan_copy_files(s->in->dir, dir)) < 0 ||
		    (r = fileio_write_atomic(plan, p, (size_t)n)) < 0)
			return r;
	}
	track_say("soaking %s, boot %s (seed %llu, log: %s)\n", track_str(rv, "name"), nb, (unsigned long long)seed,
		  log);
	fflush(stdout);
	if (asprintf(&e_side, "FSAGENT_QUALIFY_SIDE=soak") < 0 ||
	    asprintf(&e_round, "FSAGENT_QUALIFY_ROUND=%s", nb) < 0 ||
	    asprintf(&e_plan, "FSAGENT_QUALIFY_PLAN=%s", plan) < 0 ||
	    asprintf(&e_res, "FSAGENT_QUALIFY_RESULTS=%s", res) < 0 ||
	    asprintf(&e_kernel, "FSAGENT_QUALIFY_KERNEL=%s", kernel) < 0)
		return -ENOMEM;
	snprintf(echo, sizeof(echo), "soak of %s, boot %s: ", track_str(rv, "name"), nb);
	r = job_run_echo(s->in->runner, (const char *const[]){ e_side, e_round, e_plan, e_res, e_kernel, NULL }, log, 0,
			 echo, true, &status);
	if (r < 0)
		return r;
	found = soak_failures(res, &runs);
	if (!found)
		return -ENOMEM;
	if (status != 0 && status != 1 && status != 4)
		log_warn("track: soak boot %s of %s: the runner exited %d (its log: %s)", nb, track_str(rv, "name"),
			 status, log);
	return track_append(s, json_pack("{s:s, s:s, s:I, s:I, s:f, s:i, s:I, s:o}", "event", "soaked", "sha",
					 track_str(rv, "sha"), "boot", boot, "seed", (json_int_t)seed, "seconds",
					 utctime_monotonic() - t0, "exit", status, "runs", runs, "failures", found));
}

/* A bisection's upstream fix in words (track_fixes.c), when it was looked for. */
static void fix_text(FILE *f, json_t *b)
{
	json_t *fx = json_object_get(b, "fixes"), *fix = json_object_get(fx, "fix"), *a = json_object_get(fix, "apply"),
	       *pr = json_object_get(fix, "proof");
	const char *v = track_str(a, "verdict");
	size_t after = json_array_size(json_object_get(a, "after"));

	if (!fx)
		return;
	if (!json_is_object(fix)) {
		fprintf(f, "    no upstream fix: %s\n", track_str(fx, "why"));
		return;
	}
	if (pr && !streq(track_str(pr, "verdict"), "fixes")) {
		/* proven, and the best there is does not fix it */
		fprintf(f, "    no upstream fix proven: %.12s \"%s\" (Fixes: %.12s) %s", track_str(fix, "id"),
			track_str(fix, "subject"), track_str(fix, "of"), track_str(pr, "verdict"));
		if (json_object_get(pr, "patched") &&
		    json_integer_value(json_object_get(json_object_get(pr, "patched"), "runs"))) {
			fputs(", ", f);
			fixes_proof_runs(pr, f);
		} else if (*track_str(pr, "why")) {
			fprintf(f, ": %s", track_str(pr, "why"));
		}
		fputc('\n', f);
		return;
	}
	fprintf(f, "    fixed upstream by %.12s \"%s\" (Fixes: %.12s), ", track_str(fix, "id"),
		track_str(fix, "subject"), track_str(fix, "of"));
	if (streq(v, "applies"))
		fputs("applies cleanly", f);
	else if (streq(v, "applies after"))
		fprintf(f, "applies after %zu other candidate%s", after, after == 1 ? "" : "s");
	else
		fprintf(f, "does not apply: %s", track_str(a, "reason"));
	if (pr) {
		fputs(", ", f);
		fixes_proof_runs(pr, f);
	}
	fputc('\n', f);
}

/* The revision in words, for the terminal and --notify. */
char *track_summary(json_t *rv)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);
	json_t *b, *c = json_object_get(rv, "counts");

	if (!f)
		return NULL;
	fprintf(f, "%s (%.12s): %s", track_str(rv, "name"), track_str(rv, "sha"), track_str(rv, "verdict"));
	if (json_object_get(rv, "why"))
		fprintf(f, " (%s)", track_str(rv, "why"));
	if (c)
		fprintf(f, " against %s: %lld regression, %lld flaky, %lld failing, %lld pass, %lld undecided",
			track_str(rv, "baseline"), json_integer_value(json_object_get(c, "regression")),
			json_integer_value(json_object_get(c, "flaky")),
			json_integer_value(json_object_get(c, "failing")),
			json_integer_value(json_object_get(c, "pass")),
			json_integer_value(json_object_get(c, "undecided")));
	fputc('\n', f);
	json_array_foreach(json_object_get(rv, "bisections"), i, b) {
		json_t *cu = json_array_get(json_object_get(b, "culprits"), 0);

		fprintf(f, "  %s %s: %s", track_str(b, "config"), track_str(b, "test"), track_str(b, "verdict"));
		if (cu && streq(track_str(b, "verdict"), "found"))
			fprintf(f, " %.12s \"%s\"%s", track_str(cu, "sha"), track_str(cu, "subject"),
				json_array_size(json_object_get(b, "culprits")) > 1 ? " (or a commit next to it)" : "");
		fputc('\n', f);
		fix_text(f, b);
	}
	fclose(f);
	return text;
}

int track_notify(struct track_state *s, json_t *rv, const char *what, const char *file, const char *text)
{
	char path[PATH_MAX], status[PATH_MAX], log[PATH_MAX];
	_cleanup_free_ char *e_rev = NULL, *e_sha = NULL, *e_verdict = NULL, *e_sum = NULL, *e_status = NULL;
	int st = 0, r;

	/* the words are kept whether or not anyone is told */
	if ((r = fileio_pathf(path, "%s/%s", track_str(rv, "dir"), file)) < 0 ||
	    (r = fileio_write_atomic(path, text, strlen(text))) < 0)
		return r;
	if (!s->in->notify)
		return -ENOENT;
	if ((r = fileio_pathf(status, "%s/status.json", s->in->dir)) < 0 ||
	    (r = fileio_pathf(log, "%s/notify.log", track_str(rv, "dir"))) < 0)
		return r;
	if (asprintf(&e_rev, "FSAGENT_TRACK_REV=%s", track_str(rv, "name")) < 0 ||
	    asprintf(&e_sha, "FSAGENT_TRACK_SHA=%s", track_str(rv, "sha")) < 0 ||
	    asprintf(&e_verdict, "FSAGENT_TRACK_VERDICT=%s", streq(what, "done") ? track_str(rv, "verdict") : what) <
		    0 ||
	    asprintf(&e_sum, "FSAGENT_TRACK_SUMMARY=%s", path) < 0 ||
	    asprintf(&e_status, "FSAGENT_TRACK_STATUS=%s", status) < 0)
		return -ENOMEM;
	r = run_shell(s->in->notify, (const char *const[]){ e_rev, e_sha, e_verdict, e_sum, e_status, NULL }, log,
		      s->in->notify_timeout, &st);
	if (r == -ETIME)
		log_warn("track: the notify command for %s was stopped at --notify-timeout (%u s); it is sent again "
			 "when the watch starts again (its log: %s)",
			 track_str(rv, "name"), s->in->notify_timeout, log);
	else if (r == 0 && st != 0)
		log_warn("track: the notify command exited %d for %s (its log: %s)", st, track_str(rv, "name"), log);
	return r;
}

int track_notify_done(struct track_state *s, json_t *rv, const char *text)
{
	int r = track_notify(s, rv, "done", "summary.txt", text);

	if (r == -ENOENT || r == -ETIME)
		return 0;
	if (r < 0)
		return r;
	return track_append(s, json_pack("{s:s, s:s}", "event", "notified", "sha", track_str(rv, "sha")));
}

/* One revision through its steps; each step recorded before the next. Returns 0 or -errno. */
