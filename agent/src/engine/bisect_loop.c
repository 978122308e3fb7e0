// SPDX-License-Identifier: MIT
/*
 * The bisection loop: the line set up or read back, the runs replayed,
 * builds and probes run as jobs, each result appended to DIR/runs.jsonl
 * (see bisect_loop.h).
 */
#include "engine/bisect_loop.h"
#include "engine/bisect_line.h"
#include "engine/bisect_runs.h"
#include "engine/build.h"
#include "analysis/bisect_output.h"
#include "analysis/compare.h"
#include "engine/git.h"
#include "engine/job.h"
#include "engine/probe.h"
#include "engine/jsonl.h"
#include "engine/statedir.h"
#include "model/result.h"
#include "util/fileio.h"
#include "util/jnum.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/output.h"
#include "util/strv.h"
#include "util/utctime.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- builds and probes ----------------------------------------------------- */

static unsigned long call_limit(const struct bisect_state *s, unsigned long limit, bool *by_time);

/*
 * commit i's kernel, built unless built before. Returns 0 built, 1 not built
 * (recorded: cannot be built, or stopped where --max-time ran out), or -errno.
 */
static int build(struct bisect_state *s, size_t i, char *kdir)
{
	char dir[PATH_MAX], log[PATH_MAX], why[512];
	const char *sha = bisect_runs_sha(s, i);
	double t0 = utctime_monotonic();
	size_t k;
	json_t *rec;
	bool by_time;
	int r, status;

	if ((r = fileio_pathf(dir, "%s/kernels/%s", s->in->dir, sha)) < 0 ||
	    (r = fileio_pathf(kdir, "%s/kernel", dir)) < 0 || (r = fileio_pathf(log, "%s/build.log", dir)) < 0)
		return r;
	if (!s->in->build) {
		kdir[0] = '\0';
		return 0;
	}
	json_array_foreach(s->log, k, rec)
		if (streq(json_string_value(json_object_get(rec, "commit")), sha) &&
		    json_is_true(json_object_get(rec, "built")))
			return 0;
	printf("building %.12s (log: %s)\n", sha, log);
	fflush(stdout);
	status = build_commit(s->in->build, json_string_value(json_object_get(s->line, "tree")), sha, kdir, log,
			      (unsigned)call_limit(s, s->in->build_timeout, &by_time), why, sizeof(why));
	if (status == -ETIME && by_time) {
		printf("  %.12s: the build was stopped at what --max-time left (its log: %s)\n", sha, log);
		rec = json_pack("{s:s, s:I, s:s, s:f}", "commit", sha, "index", (json_int_t)i, "stopped", "max-time",
				"seconds", utctime_monotonic() - t0);
		r = rec ? bisect_runs_append(s, rec) : -ENOMEM;
		json_decref(rec);
		return r < 0 ? r : 1;
	}
	if (status == -ETIME) {
		snprintf(why, sizeof(why), "no kernel within --build-timeout (%lu s)", s->in->build_timeout);
		status = 1;
	}
	if (status < 0)
		return status;
	if (status == 0) {
		rec = json_pack("{s:s, s:I, s:b, s:f}", "commit", sha, "index", (json_int_t)i, "built", 1, "seconds",
				utctime_monotonic() - t0);
	} else {
		printf("  cannot build %.12s: %s\n", sha, why);
		rec = json_pack("{s:s, s:I, s:s+, s:f}", "commit", sha, "index", (json_int_t)i, "skip",
				"cannot build: ", why, "seconds", utctime_monotonic() - t0);
	}
	r = rec ? bisect_runs_append(s, rec) : -ENOMEM;
	json_decref(rec);
	return r < 0 ? r : status != 0;
}

/* The probe as this bisection calls it: its line's tests and config, its directory. */
static struct probe the_probe(const struct bisect_state *s)
{
	return (struct probe){ .argv = s->in->probe,
			       .tests = json_object_get(s->line, "tests"),
			       .config = json_string_value(json_object_get(s->line, "config")),
			       .dir = s->in->dir };
}

static int count_bundles(struct bisect_state *s, const char *res, unsigned *runs, unsigned *fails, json_t **how)
{
	struct probe p = the_probe(s);

	return probe_count(&p, res, runs, fails, how);
}

/* A call's seconds at most: limit (--probe-timeout, --build-timeout), or what --max-time leaves when less (*by_time).
 * 0: none. */
static unsigned long call_limit(const struct bisect_state *s, unsigned long limit, bool *by_time)
{
	double left = (double)s->in->max_seconds - s->seconds;

	*by_time = false;
	if (s->in->max_seconds && (!limit || left < (double)limit)) {
		limit = left < 1 ? 1 : (unsigned long)left;
		*by_time = true;
	}
	return limit;
}

/*
 * One call of the probe in probe directory pdir, asked for runs runs. Returns its exit status, -ETIME (stopped at its
 * limit, *by_time: the one --max-time set) or -errno.
 */
static int call_probe(struct bisect_state *s, size_t i, const char *kdir, const struct bisect_step *st, unsigned runs,
		      const char *pdir, bool *by_time)
{
	struct probe p = the_probe(s);
	int r = probe_call(&p, bisect_runs_sha(s, i), kdir, runs, st->stop_at_fail, pdir,
			   call_limit(s, s->in->probe_timeout, by_time));

	if (r == -ETIME)
		printf("  %.12s: the probe was stopped at %s (its log: %s/log)\n", bisect_runs_sha(s, i),
		       *by_time ? "what --max-time left" : "--probe-timeout", pdir);
	return r;
}

/* What a probe directory was made for, before the probe runs: a stop leaves it to recover(). */
static int write_step(struct bisect_state *s, size_t i, const struct bisect_step *st, unsigned runs, const char *pdir)
{
	return probe_write_step(pdir, json_pack("{s:s, s:i, s:b, s:s}", "commit", bisect_runs_sha(s, i), "runs",
						(int)runs, "stop_at_fail", st->stop_at_fail, "phase", st->phase));
}

/*
 * Probe call n at commit i stopped at its time limit: the runs its bundles hold are recorded; with none, a call
 * stopped at --probe-timeout skips the commit, one stopped where --max-time ran out records only its time (the
 * loop then ends on the budget). Returns 0 or -errno.
 */
static int stopped(struct bisect_state *s, size_t i, unsigned long n, const char *res, bool by_time, double t0)
{
	unsigned runs = 0, fails = 0;
	int r = count_bundles(s, res, &runs, &fails, NULL);
	json_t *rec;

	if (r < 0 && r != -ENOENT)
		return r;
	if (runs)
		rec = json_pack("{s:s, s:I, s:I, s:s, s:i, s:i, s:b, s:s, s:f}", "commit", bisect_runs_sha(s, i),
				"index", (json_int_t)i, "probe", (json_int_t)n, "phase", "stopped", "runs", (int)runs,
				"fails", (int)fails, "bundles", 1, "stopped", by_time ? "max-time" : "probe-timeout",
				"seconds", utctime_monotonic() - t0);
	else if (by_time)
		rec = json_pack("{s:s, s:I, s:I, s:s, s:f}", "commit", bisect_runs_sha(s, i), "index", (json_int_t)i,
				"probe", (json_int_t)n, "stopped", "max-time", "seconds", utctime_monotonic() - t0);
	else
		rec = json_pack("{s:s, s:I, s:I, s:s, s:f}", "commit", bisect_runs_sha(s, i), "index", (json_int_t)i,
				"probe", (json_int_t)n, "skip", "timed out: no result within --probe-timeout",
				"seconds", utctime_monotonic() - t0);
	r = rec ? bisect_runs_append(s, rec) : -ENOMEM;
	json_decref(rec);
	if (r == 0 && runs)
		printf("  %.12s: %u of %u runs failed before the stop\n", bisect_runs_sha(s, i), fails, runs);
	return r;
}

/* Probe step st at commit i (built into kdir), each result recorded as it comes. Returns 0 or -errno/-ECHILD. */
static int probe(struct bisect_state *s, size_t i, const char *kdir, const struct bisect_step *st)
{
	unsigned got = 0, failed = 0;

	while (got < st->runs && !(st->stop_at_fail && failed)) {
		char pdir[PATH_MAX], res[PATH_MAX];
		unsigned long n = s->probes;
		/* a probe not known to leave bundles is asked for one run: its exit status can tell no more */
		unsigned asked = s->bundles == 1 ? st->runs - got : 1, runs, fails;
		double t0 = utctime_monotonic();
		json_auto_t *how = NULL;
		json_t *rec;
		bool by_time = false;
		int status, r;

		if ((r = fileio_pathf(pdir, "%s/probes/%lu", s->in->dir, n)) < 0 ||
		    (r = fileio_pathf(res, "%s/results", pdir)) < 0 || (r = write_step(s, i, st, asked, pdir)) < 0)
			return r;
		status = call_probe(s, i, kdir, st, asked, pdir, &by_time);
		if (status == -ETIME)
			return stopped(s, i, n, res, by_time, t0);
		if (status < 0)
			return status;
		if (status != 0 && status != 1 && status != 125)
			return -ECHILD;
		r = status == 125 ? -ENOENT : count_bundles(s, res, &runs, &fails, &how);
		if (r == -ENOENT && status != 125 && s->in->probe_bundles) {
			runs = 0; /* said to leave bundles, it left none: no result */
		} else if (r == -ENOENT && status != 125) {
			/* no bundle: the call was one run, as fsagent reduce's probes are */
			runs = 1;
			fails = status == 1;
		} else if (r < 0 && status != 125) {
			return r;
		}
		if (status == 125 || runs == 0)
			rec = json_pack("{s:s, s:I, s:I, s:s, s:f}", "commit", bisect_runs_sha(s, i), "index",
					(json_int_t)i, "probe", (json_int_t)n, "skip",
					status == 125 ? "cannot test" : "no result", "seconds",
					utctime_monotonic() - t0);
		else
			rec = json_pack("{s:s, s:I, s:I, s:s, s:i, s:i, s:i, s:b, s:f}", "commit",
					bisect_runs_sha(s, i), "index", (json_int_t)i, "probe", (json_int_t)n, "phase",
					st->phase, "asked", (int)asked, "runs", (int)runs, "fails", (int)fails,
					"bundles", r == 0, "seconds", utctime_monotonic() - t0);
		/* how the first failure went, for the page and the text */
		if (rec && how && fails)
			json_object_update(rec, how);
		if (!rec || (r = bisect_runs_append(s, rec)) < 0) {
			json_decref(rec);
			return r < 0 ? r : -ENOMEM;
		}
		json_decref(rec);
		if (status == 125 || runs == 0) {
			printf("  %.12s: %s: skipped\n", bisect_runs_sha(s, i),
			       status == 125 ? "cannot test" : "no result");
			return 0;
		}
		printf("  %.12s: %u of %u runs failed\n", bisect_runs_sha(s, i), fails, runs);
		if (how && fails)
			printf("    %s (%s)\n", json_string_value(json_object_get(how, "why")),
			       json_string_value(json_object_get(how, "artifact")));
		fflush(stdout);
		got += runs;
		failed += fails;
	}
	return 0;
}

/* A probe directory left by a stop: its finished runs recorded, nothing run again. */
static int recover(struct bisect_state *s)
{
	char pdir[PATH_MAX], res[PATH_MAX], step[PATH_MAX];
	unsigned runs, fails;
	json_t *st, *rec;
	int r;

	if ((r = fileio_pathf(pdir, "%s/probes/%lu", s->in->dir, s->probes)) < 0 ||
	    (r = fileio_pathf(res, "%s/results", pdir)) < 0 || (r = fileio_pathf(step, "%s/step.json", pdir)) < 0)
		return r;
	if (!fileio_exists(pdir))
		return 0;
	st = json_load_file(step, 0, NULL);
	r = count_bundles(s, res, &runs, &fails, NULL);
	if (r == 0 && runs && json_is_string(json_object_get(st, "commit")) &&
	    bisect_runs_index(s, json_string_value(json_object_get(st, "commit"))) >= 0) {
		rec = json_pack("{s:O, s:I, s:I, s:s, s:i, s:i, s:b, s:b}", "commit", json_object_get(st, "commit"),
				"index",
				(json_int_t)bisect_runs_index(s, json_string_value(json_object_get(st, "commit"))),
				"probe", (json_int_t)s->probes, "phase", "recovered", "runs", (int)runs, "fails",
				(int)fails, "bundles", 1, "interrupted", 1);
		r = rec ? bisect_runs_append(s, rec) : -ENOMEM;
		json_decref(rec);
		if (r == 0)
			printf("recovered %u run%s of an interrupted probe (%s)\n", runs, runs == 1 ? "" : "s", pdir);
	} else {
		/* nothing finished there: set aside, the number reused */
		r = statedir_set_aside(pdir);
	}
	json_decref(st);
	return r < 0 && r != -ENOENT ? r : 0;
}

/* ---- the loop -------------------------------------------------------------- */

static int outcome(struct bisect_state *s, const struct bisect_step *st, const char *verdict)
{
	char path[PATH_MAX];
	json_t *doc = bisect_output_doc(s->line, s->b, st, verdict, s->log, s->runs, s->kernels, s->seconds);
	int r;

	if (!doc)
		return -ENOMEM;
	if ((r = fileio_pathf(path, "%s/bisect.json", s->in->dir)) == 0)
		r = write_output(path, doc, dump_json);
	if (r == 0 && (r = fileio_pathf(path, "%s/bisect.html", s->in->dir)) == 0)
		r = write_output(path, doc, bisect_output_html);
	putchar('\n');
	print_printable(bisect_output_text, doc);
	printf("outcome: %s/bisect.json, %s/bisect.html\n", s->in->dir, s->in->dir);
	json_decref(doc);
	return r;
}

static const char *over_budget(struct bisect_state *s)
{
	if (s->in->max_runs && s->runs >= s->in->max_runs)
		return "budget: the runs are spent (--max-runs)";
	if (s->in->max_kernels && s->kernels >= s->in->max_kernels)
		return "budget: the kernels are spent (--max-kernels)";
	if (s->in->max_seconds && s->seconds >= (double)s->in->max_seconds)
		return "budget: the time is spent (--max-time)";
	return NULL;
}

static int loop(struct bisect_state *s)
{
	struct bisect_step st;
	char kdir[PATH_MAX];

	for (;;) {
		const char *budget;
		size_t i;
		int r;

		if (bisect_next(s->b, &st) < 0)
			return 3;
		if (st.action != BISECT_PROBE) {
			static const char *const verdicts[] = { "", "found", "no-difference", "stuck" };

			if (outcome(s, &st, verdicts[st.action]) < 0)
				return 3;
			return st.action == BISECT_FOUND ? 0 : st.action == BISECT_NO_DIFFERENCE ? 1 : 4;
		}
		budget = over_budget(s);
		if (budget) {
			st.why = budget;
			if (outcome(s, &st, "budget") < 0)
				return 3;
			return 4;
		}
		i = st.commit;
		if (s->in->max_runs && st.runs > s->in->max_runs - s->runs)
			st.runs = (unsigned)(s->in->max_runs - s->runs); /* a batch never passes --max-runs */
		printf("%s: %.12s %s, %u run%s%s", st.phase, bisect_runs_sha(s, i),
		       json_string_value(json_object_get(json_array_get(s->commits, i), "subject")), st.runs,
		       st.runs == 1 ? "" : "s", st.stop_at_fail ? " (to the first failure)" : "");
		if (!strcmp(st.phase, "search") || !strcmp(st.phase, "confirm")) {
			/* where the search stands: the commit most likely to be the culprit so far */
			size_t lead = 1;

			for (size_t k = 2; k < json_array_size(s->commits); k++)
				if (bisect_posterior(s->b, k) > bisect_posterior(s->b, lead))
					lead = k;
			printf("; most likely so far: %.12s (%.2f)", bisect_runs_sha(s, lead),
			       bisect_posterior(s->b, lead));
		}
		putchar('\n');
		fflush(stdout);
		r = build(s, i, kdir);
		if (r == 0)
			r = probe(s, i, kdir, &st);
		if (r < 0)
			return 3;
	}
}

int bisect_loop(struct bisect_run *in)
{
	struct bisect_state s = { .in = in, .bundles = in->probe_bundles ? 1 : -1 };
	double conf = in->o.confidence;
	struct statedir_option opt = { "confidence", &conf, in->confidence_given, false };
	int r, rc;

	if (statedir_lock(in->dir, "fsagent bisect") < 0)
		return 2;
	if (!(s.log = json_array()))
		return 3;
	job_stop_on_signals(3);
	r = bisect_line_setup(in, &s.line);
	s.commits = json_object_get(s.line, "commits");
	if (r == 0 && (r = statedir_options(in->dir, "fsagent bisect", &opt, 1)) == 0) {
		in->o.confidence = conf;
		r = bisect_new(json_array_size(s.commits), &in->o, &s.b);
		if (r < 0)
			log_err("bisect: %s", strerror(-r));
	}
	if (r == 0)
		bisect_runs_take_ends(&s);
	if (r == 0 && (r = bisect_runs_replay(&s)) == 0 && (r = recover(&s)) == 0) {
		printf("bisect %s %s: %zu commit%s after the good end, %lu run%s so far\n",
		       json_string_value(json_object_get(s.line, "config")),
		       json_string_value(json_array_get(json_object_get(s.line, "tests"), 0)),
		       json_array_size(s.commits) - 1, json_array_size(s.commits) == 2 ? "" : "s", s.runs,
		       s.runs == 1 ? "" : "s");
		fflush(stdout);
		rc = loop(&s);
	} else {
		rc = r == -ENOMEM || r == -EIO ? 3 : 2;
	}
	bisect_free(s.b);
	json_decref(s.line);
	json_decref(s.log);
	return rc;
}
