// SPDX-License-Identifier: MIT
/*
 * The qualification loop (see qualify_loop.h): rounds of plans written
 * whole before they run, runner jobs per side, read back from their bundles.
 */
#include "engine/qualify_loop.h"
#include "engine/qualify_plan.h"
#include "engine/qualify_rest.h"
#include "analysis/compare.h"
#include "analysis/upkeep.h"
#include "engine/job.h"
#include "engine/statedir.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/output.h"
#include "util/strv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* DIR/options.json: the options that decide verdicts are those of the start; going on with others is refused. */
static int setup_options(struct qualify_run *q, const bool given[QUALIFY_KEPT])
{
	double vals[QUALIFY_KEPT] = { q->o.alpha,	  q->o.min_rate, q->o.miss,	   q->o.rounds,
				      q->o.baseline_runs, q->o.max_runs, (double)q->budget };
	struct statedir_option opts[QUALIFY_KEPT] = {
		{ "alpha", &vals[0], given[0], false },
		{ "min_rate", &vals[1], given[1], false },
		{ "miss", &vals[2], given[2], false },
		{ "rounds", &vals[3], given[3], true },
		{ "baseline_runs", &vals[4], given[4], true },
		{ "max_runs", &vals[5], given[5], true, .newer = true },
		{ "budget", &vals[6], given[6], true, .zero = true, .newer = true }, /* 0: the fixed protocol's */
	};
	int r = statedir_options(q->dir, "fsagent qualify", opts, QUALIFY_KEPT);

	if (r < 0)
		return r;
	q->o.alpha = vals[0];
	q->o.min_rate = vals[1];
	q->o.miss = vals[2];
	q->o.rounds = (unsigned)vals[3];
	q->o.baseline_runs = (unsigned)vals[4];
	q->o.max_runs = (unsigned)vals[5];
	q->budget = (unsigned long long)vals[6];
	return 0;
}

/* ---- running a round ----------------------------------------------------- */

struct side_job {
	char dir[PATH_MAX];
	struct job job;
};

static int start_side(struct qualify_run *q, unsigned k, unsigned s, struct side_job *j)
{
	char path[PATH_MAX], res[PATH_MAX], plan[PATH_MAX], kbuf[16], echo[64];
	int r;

	/* what an interrupted runner finished is kept, and only the rest of the plan runs */
	if ((r = fileio_pathf(res, "%s/results", j->dir)) < 0 ||
	    (r = qualify_rest(k, qualify_sides[s], j->dir, plan)) < 0 || (r = fileio_pathf(path, "%s/log", j->dir)) < 0)
		return r;
	snprintf(kbuf, sizeof(kbuf), "%u", k);
	{
		_cleanup_free_ char *e_side = NULL, *e_round = NULL, *e_plan = NULL, *e_res = NULL, *e_kernel = NULL;
		const char *env[6];

		if (asprintf(&e_side, "FSAGENT_QUALIFY_SIDE=%s", qualify_sides[s]) < 0 ||
		    asprintf(&e_round, "FSAGENT_QUALIFY_ROUND=%s", kbuf) < 0 ||
		    asprintf(&e_plan, "FSAGENT_QUALIFY_PLAN=%s", plan) < 0 ||
		    asprintf(&e_res, "FSAGENT_QUALIFY_RESULTS=%s", res) < 0 ||
		    (q->kernel[s] && asprintf(&e_kernel, "FSAGENT_QUALIFY_KERNEL=%s", q->kernel[s]) < 0))
			return -ENOMEM;
		env[0] = e_side, env[1] = e_round, env[2] = e_plan, env[3] = e_res, env[4] = e_kernel, env[5] = NULL;
		/* the side's progress on the terminal too, not only in its log: a round can take hours */
		snprintf(echo, sizeof(echo), "round %u %s: ", k, qualify_sides[s]);
		j->job.echo = echo;
		return job_start(&j->job, q->runner, env, path, true);
	}
}

/* Wait for a side's runner; 0 and its round marked done, or -ECHILD (logged) when it failed. */
static int finish_side(unsigned k, unsigned s, struct side_job *j)
{
	char path[PATH_MAX];
	int r = job_wait(&j->job);

	if (r < 0)
		return r;
	/* 0: passed, 1: tests failed, 4: nothing ran (every test not run or expunged): all are answers */
	if (j->job.p.status != 0 && j->job.p.status != 1 && j->job.p.status != 4) {
		log_err("round %u: the %s's runner exited %d; its log: %s/log. Run fsagent qualify again to go on", k,
			qualify_sides[s], j->job.p.status, j->dir);
		return -ECHILD;
	}
	printf("round %u: %s done (runner exit %d)\n", k, qualify_sides[s], j->job.p.status);
	fflush(stdout);
	if ((r = fileio_pathf(path, "%s/done", j->dir)) < 0)
		return r;
	return fileio_write_atomic(path, "", 0);
}

/*
 * Run the sides of round k (planned as round.json rj says) that are not
 * done, side by side with jobs 2. A side round.json plans runs for whose
 * plan is gone is refused (-EBADMSG, logged): run without it, the round
 * would be judged on one side, silently.
 */
static int run_round(struct qualify_run *q, unsigned k, json_t *rj)
{
	struct side_job j[2] = { { .job = JOB_INIT }, { .job = JOB_INIT } };
	int r = 0, r2;

	for (unsigned s = 0; s < 2; s++) {
		char plan[PATH_MAX], done[PATH_MAX];

		if ((r = fileio_pathf(j[s].dir, "%s/round-%u/%s", q->dir, k, qualify_sides[s])) < 0 ||
		    (r = fileio_pathf(plan, "%s/plan/plan.conf", j[s].dir)) < 0 ||
		    (r = fileio_pathf(done, "%s/done", j[s].dir)) < 0)
			break;
		if (!fileio_exists(plan) &&
		    json_integer_value(json_object_get(json_object_get(rj, qualify_sides[s]), "runs")) > 0) {
			log_err("%s is missing, but round %u plans %" JSON_INTEGER_FORMAT
				" runs of the %s there: refused, nothing planned anew (put it back, or begin again "
				"in a new --dir)",
				plan, k,
				json_integer_value(json_object_get(json_object_get(rj, qualify_sides[s]), "runs")),
				qualify_sides[s]);
			r = -EBADMSG;
			break;
		}
		if (!fileio_exists(plan) || fileio_exists(done))
			continue;
		printf("round %u: running the %s (log: %s/log)\n", k, qualify_sides[s], j[s].dir);
		fflush(stdout);
		r = start_side(q, k, s, &j[s]);
		if (r < 0)
			break;
		if (q->jobs < 2 && (r = finish_side(k, s, &j[s])) < 0)
			break;
	}
	for (unsigned s = 0; s < 2; s++)
		if (j[s].job.started) {
			r2 = finish_side(k, s, &j[s]);
			r = r < 0 ? r : r2;
		}
	return r;
}

/* ---- reading back -------------------------------------------------------- */

/* Every done side of every round so far into a compare. */
static int read_rounds(struct qualify_run *q, unsigned upto, struct compare **ret)
{
	struct compare *cmp = NULL;
	char err[1024], path[PATH_MAX], done[PATH_MAX];
	int r = compare_new(&cmp);

	if (r < 0)
		return r;
	/* runs made before on the baseline's kernel */
	for (size_t i = 0; i < q->nprior; i++) {
		err[0] = '\0';
		r = compare_add_except(cmp, SIDE_BASELINE, q->prior[i].dir, q->prior[i].except, err, sizeof(err));
		if (r < 0) {
			log_err("the baseline's earlier runs: %s: %s", q->prior[i].dir,
				r == -ENOENT ? "no bundle" : err);
			goto fail;
		}
	}
	for (unsigned k = 0; k < upto; k++)
		for (unsigned s = 0; s < 2; s++) {
			if ((r = fileio_pathf(path, "%s/round-%u/%s/results", q->dir, k, qualify_sides[s])) < 0 ||
			    (r = fileio_pathf(done, "%s/round-%u/%s/done", q->dir, k, qualify_sides[s])) < 0)
				goto fail;
			if (!fileio_exists(done))
				continue;
			err[0] = '\0';
			r = compare_add(cmp, s ? SIDE_CANDIDATE : SIDE_BASELINE, path, err, sizeof(err));
			if (r < 0) {
				log_err("round %u's %s: %s", k, qualify_sides[s],
					r == -ENOENT ? "the runner left no bundle" : err);
				goto fail;
			}
		}
	*ret = cmp;
	return 0;
fail:
	compare_free(cmp);
	return r;
}

/* The tests any side ran, 30 runs a side each: what a fixed protocol spends. */
static json_int_t fixed_protocol(json_t *judged)
{
	json_int_t n = 0;
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(judged, "tests"), i, t)
		n += compare_num(json_object_get(t, "baseline"), "runs") ||
		     compare_num(json_object_get(t, "candidate"), "runs");
	return 60 * n;
}

static const char *first_kernel(json_t *cmp, const char *side)
{
	void *it = json_object_iter(json_object_get(json_object_get(cmp, side), "kernels"));

	return it ? json_object_iter_key(it) : "unknown";
}

/* The expunge suggestion: upkeep's rules for the tests that failed every run on both sides. */
static int write_expunge(struct qualify_run *q, json_t *cmp, json_t *judged, json_t *doc)
{
	struct upkeep_opts uo = { .min_rate = 0.9, .min_runs = 3 };
	struct upkeep *u = NULL;
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	char path[PATH_MAX];
	FILE *f;
	json_t *t;
	size_t i;
	int r = upkeep_new(&u), rules = 0;

	if (r < 0)
		return r;
	json_array_foreach(json_object_get(judged, "tests"), i, t) {
		/* a crash of tests together is no test an expunge file can name */
		if (!streq(compare_str(t, "verdict"), "failing") || compare_together(t))
			continue;
		for (unsigned s = 0; s < 2 && r == 0; s++) {
			json_t *side = json_object_get(t, qualify_sides[s]);

			r = upkeep_add(u, compare_str(t, "config"), compare_str(t, "test"),
				       first_kernel(cmp, qualify_sides[s]), compare_num(side, "runs"),
				       compare_num(side, "failures"));
		}
	}
	f = r == 0 ? open_memstream(&text, &len) : NULL;
	if (f) {
		rules = upkeep_write(u, &uo, NULL, f);
		fclose(f);
	} else if (r == 0) {
		r = -ENOMEM;
	}
	upkeep_free(u);
	if (r < 0 || rules < 0)
		return r < 0 ? r : rules;
	if (rules == 0)
		return 0;
	/* upkeep's header counts bundles it read, none here: ours says where the rules come from */
	{
		const char *body = strchr(text, '\n') ? strchr(text, '\n') + 1 : text;
		_cleanup_free_ char *out = NULL;
		int n = asprintf(&out,
				 "# fsagent qualify: the tests that failed every run on both the baseline (%s) and the "
				 "candidate (%s)\n%s",
				 first_kernel(cmp, "baseline"), first_kernel(cmp, "candidate"), body);

		if (n < 0)
			return -ENOMEM;
		if ((r = fileio_pathf(path, "%s/expunge-suggested.txt", q->dir)) < 0 ||
		    (r = fileio_write_atomic(path, out, (size_t)n)) < 0)
			return r;
	}
	json_object_set_new(doc, "expunge_suggested", json_string(path));
	json_object_set_new(doc, "expunge_rules", json_integer(rules));
	return 0;
}

static json_t *outcome(struct qualify_run *q, json_t *cmp, json_t *judged, const char *stopped, json_int_t budget)
{
	json_t *doc = json_pack("{s:s, s:f, s:f, s:f, s:f, s:i, s:i, s:i, s:I, s:o, s:I, s:O, s:s, s:{s:O}, s:{s:O}}",
				"schema", QUALIFY_SCHEMA, "alpha", q->o.alpha, "look_alpha", qualify_look_alpha(&q->o),
				"min_rate", q->o.min_rate, "miss", q->o.miss, "rounds_max", (int)q->o.rounds,
				"baseline_runs", (int)q->o.baseline_runs, "clean_runs",
				(int)qualify_clean_runs(&q->o, 1), "budget", budget, "runs", qualify_runs(judged),
				"fixed_protocol_runs", fixed_protocol(judged), "rounds", q->rounds, "stopped", stopped,
				"baseline", "kernels", json_object_get(json_object_get(cmp, "baseline"), "kernels"),
				"candidate", "kernels", json_object_get(json_object_get(cmp, "candidate"), "kernels"));

	if (!doc)
		return NULL;
	json_object_set(doc, "counts", json_object_get(judged, "counts"));
	json_object_set(doc, "tests", json_object_get(judged, "tests"));
	json_object_set_new(doc, "weights", json_deep_copy(q->weights));
	json_object_set(doc, "userspace", json_object_get(cmp, "userspace"));
	return doc;
}

/* The runs of the baseline's kernel made before (prior): read, counted, not spent from this budget. */
static int prior_runs(struct qualify_run *q, json_int_t *ret, json_t **per_test)
{
	struct compare *cmp = NULL;
	json_auto_t *doc = NULL, *judged = NULL, *runs = NULL;
	json_t *t;
	size_t i;
	int r;

	*ret = 0;
	*per_test = json_object();
	if (!*per_test)
		return -ENOMEM;
	if (!q->nprior)
		return 0;
	if ((r = read_rounds(q, 0, &cmp)) < 0)
		return r;
	doc = compare_result(cmp, qualify_look_alpha(&q->o));
	compare_free(cmp);
	judged = doc ? qualify_judge(doc, &q->o, q->weights) : NULL;
	runs = judged ? qualify_runs(judged) : NULL;
	if (!runs)
		return -ENOMEM;
	*ret = json_integer_value(json_object_get(runs, "total"));
	/* "CONFIG\x1fTEST" -> its earlier runs, for the outcome */
	json_array_foreach(json_object_get(judged, "tests"), i, t) {
		char key[512];

		snprintf(key, sizeof(key), "%s\x1f%s", compare_str(t, "config"), compare_str(t, "test"));
		json_object_set(*per_test, key, json_object_get(json_object_get(t, "baseline"), "runs"));
	}
	return 0;
}

/* Whether a round after k is in DIR. */
static bool later_round(const struct qualify_run *q, unsigned k)
{
	char path[PATH_MAX];

	for (unsigned n = k + 1; n <= q->o.rounds + 1; n++)
		if (fileio_pathf(path, "%s/round-%u", q->dir, n) == 0 && fileio_exists(path))
			return true;
	return false;
}

/* The loop: rounds until every test is decided, the rounds or the budget spent. Returns the exit status. */
int qualify_loop_run(struct qualify_run *q)
{
	json_auto_t *cmp_doc = NULL, *judged = NULL, *doc = NULL, *earlier_of = NULL;
	struct compare *cmp = NULL;
	const char *stopped = NULL;
	json_int_t budget = (json_int_t)q->budget, total, earlier;
	char path[PATH_MAX];
	unsigned k;
	int r;

	if (prior_runs(q, &earlier, &earlier_of) < 0)
		return 3;

	for (k = 0;; k++) {
		bool none = false;

		if ((r = fileio_pathf(path, "%s/round-%u", q->dir, k)) < 0)
			return 1;
		if (!fileio_exists(path) && later_round(q, k)) {
			/* planned anew from fewer rounds, it would run another plan and count another total */
			log_err("%s is missing but a later round is there: each round is planned from all before it; "
				"put it back, or begin again in a new --dir",
				path);
			return 2;
		}
		if (!fileio_exists(path)) {
			if (k > 0) {
				json_t *runs;

				if ((r = read_rounds(q, k, &cmp)) < 0)
					return 3;
				json_decref(cmp_doc);
				cmp_doc = compare_result(cmp, qualify_look_alpha(&q->o));
				compare_free(cmp);
				json_decref(judged);
				judged = cmp_doc ? qualify_judge(cmp_doc, &q->o, q->weights) : NULL;
				if (!judged)
					return 1;
				runs = qualify_runs(judged);
				total = json_integer_value(json_object_get(runs, "total")) - earlier;
				json_decref(runs);
				if (!q->budget)
					budget = fixed_protocol(judged);
				if (k > q->o.rounds) {
					stopped = "the rounds are spent (--rounds)";
					break;
				}
				r = qualify_plan_round(q, k, judged, (uint64_t)(budget > total ? budget - total : 0),
						       &none);
				if (r < 0)
					return 3;
				if (none) {
					json_t *t;
					size_t i;
					bool wants = false;

					json_array_foreach(json_object_get(judged, "tests"), i, t)
						wants |= compare_num(json_object_get(t, "want"), "baseline") ||
							 compare_num(json_object_get(t, "want"), "candidate");
					stopped = wants ? "the budget is spent (--budget)" : "every test is decided";
					break;
				}
			} else if ((r = qualify_plan_round(q, 0, NULL, 0, &none)) < 0) {
				return 3;
			}
		}
		{
			char rec[PATH_MAX];
			json_t *rj;

			if ((r = fileio_pathf(rec, "%s/round-%u/round.json", q->dir, k)) < 0)
				return 3;
			rj = json_load_file(rec, 0, NULL);
			if (!json_is_object(rj)) {
				json_decref(rj);
				log_err("%s: missing or not a round of fsagent qualify", rec);
				return 3;
			}
			json_array_append_new(q->rounds, rj);
			printf("round ");
			qualify_round_text(rj, stdout);
			putchar('\n');
			fflush(stdout);
		}
		if ((r = run_round(q, k, json_array_get(q->rounds, json_array_size(q->rounds) - 1))) < 0)
			return r == -EBADMSG ? 2 : 3;
	}
	doc = outcome(q, cmp_doc, judged, stopped, budget);
	if (doc && earlier) {
		/* the runs this qualification made; the earlier ones said apart */
		json_t *runs = json_object_get(doc, "runs");

		json_object_set_new(runs, "total",
				    json_integer(json_integer_value(json_object_get(runs, "total")) - earlier));
		json_object_set_new(runs, "baseline",
				    json_integer(json_integer_value(json_object_get(runs, "baseline")) - earlier));
		json_object_set_new(runs, "earlier", json_integer(earlier));
		/* and each test's: its baseline runs made before this qualification */
		{
			json_t *t;
			size_t i;

			json_array_foreach(json_object_get(doc, "tests"), i, t) {
				char key[512];
				json_t *e;

				snprintf(key, sizeof(key), "%s\x1f%s", compare_str(t, "config"),
					 compare_str(t, "test"));
				e = json_object_get(earlier_of, key);
				json_object_set_new(json_object_get(t, "baseline"), "earlier",
						    json_integer(e ? json_integer_value(e) : 0));
			}
		}
	}
	if (!doc || write_expunge(q, cmp_doc, judged, doc) < 0)
		return 1;
	if ((r = fileio_pathf(path, "%s/qualify.json", q->dir)) < 0 || write_output(path, doc, dump_json) < 0)
		return 1;
	if ((r = fileio_pathf(path, "%s/qualify.html", q->dir)) < 0 || write_output(path, doc, qualify_html) < 0)
		return 1;
	putchar('\n');
	print_printable(qualify_text, doc);
	printf("outcome: %s/qualify.json, %s/qualify.html", q->dir, q->dir);
	if (*compare_str(doc, "expunge_suggested"))
		printf(", expunge suggestion %s (rules: %llu)", compare_str(doc, "expunge_suggested"),
		       compare_num(doc, "expunge_rules"));
	putchar('\n');
	return compare_num(json_object_get(doc, "counts"), "regression") ? 1 : 0;
}

int qualify_loop_setup(struct qualify_run *q, const char *plan_arg, const bool given[QUALIFY_KEPT])
{
	int r = qualify_plan_setup(q, plan_arg);

	if (r == 0)
		r = setup_options(q, given);
	if (r < 0)
		return r;
	q->rounds = json_array();
	return q->rounds ? 0 : -ENOMEM;
}

void qualify_loop_release(struct qualify_run *q)
{
	json_decref(q->rounds);
	json_decref(q->weights);
	plan_release(&q->base);
	free(q->base_text);
}
