// SPDX-License-Identifier: MIT
/*
 * fsagent qualify: a candidate kernel against its baseline in rounds until
 * every test is decided (analysis/qualify.h judges). Each round's plans are
 * written into DIR before any of it runs, and a side's round is done once
 * its runner has left its bundles; so stopping it anywhere and starting it
 * again with the same DIR goes on where it stopped: rounds done are read
 * back from their bundles, an interrupted side is run again (its partial
 * results kept aside), and the plans still to come follow from the same
 * evidence.
 *
 * DIR/plan/               the plan everything starts from, with its files
 * DIR/options.json        the options decisions depend on, fixed at the start
 * DIR/round-K/SIDE/       plan/plan.conf (and its files), results/, log, done
 * DIR/qualify.json, qualify.html, expunge-suggested.txt   the outcome
 */
#include "cmd/cmd.h"
#include "analysis/compare.h"
#include "analysis/qualify.h"
#include "analysis/upkeep.h"
#include "model/plan.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/proc.h"
#include "util/strv.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const sides[2] = { "baseline", "candidate" };

struct qualify_run {
	const char *dir;
	char *const *runner;
	struct qualify_opts o;
	unsigned long long budget; /* 0: a fixed 30-runs-per-side protocol's */
	unsigned jobs;
	char *base_text; /* DIR/plan/plan.conf */
	struct plan base;
	json_t *weights; /* config -> iterations.<config> / iterations */
	json_t *rounds;	 /* what each round ran, for the outcome */
};

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* path = printf(fmt, ...) into buf[PATH_MAX]; -ENAMETOOLONG when it does not fit. */
static int pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

static int copy_file(const char *from, const char *to)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = fileio_read_regular(from, 64 << 20, &buf, &len);

	if (r < 0) {
		log_err("read '%s' failed: %s", from, strerror(-r));
		return r;
	}
	r = fileio_write_atomic(to, buf, len);
	if (r < 0)
		log_err("write '%s' failed: %s", to, strerror(-r));
	return r;
}

/* The files plan names (expunge files, durations), copied from one plan directory into another. */
static int copy_plan_files(const struct plan *p, const char *from, const char *to)
{
	char a[PATH_MAX], b[PATH_MAX];
	int r = 0;

	for (char **f = p->expunge_files; r == 0 && f && *f; f++)
		if ((r = pathf(a, "%s/%s", from, *f)) == 0 && (r = pathf(b, "%s/%s", to, *f)) == 0)
			r = copy_file(a, b);
	if (r == 0 && p->durations && (r = pathf(a, "%s/%s", from, p->durations)) == 0 &&
	    (r = pathf(b, "%s/%s", to, p->durations)) == 0)
		r = copy_file(a, b);
	return r;
}

static int parse_plan(struct plan *p, const char *path, const char *text)
{
	char err[512] = "";
	int r;

	plan_init(p);
	r = plan_apply_file(p, path, text, err, sizeof(err));
	if (r < 0)
		log_err("%s", err);
	return r;
}

/* DIR/plan: made from --plan at the start; the same plan, or none, when going on. */
static int setup_plan(struct qualify_run *q, const char *plan_arg)
{
	char path[PATH_MAX], pdir[PATH_MAX];
	_cleanup_free_ char *given = NULL;
	int r;

	if ((r = pathf(pdir, "%s/plan", q->dir)) < 0 || (r = pathf(path, "%s/plan.conf", pdir)) < 0)
		return r;
	if (plan_arg && (r = fileio_read_regular(plan_arg, 1 << 20, &given, NULL)) < 0) {
		log_err("read plan '%s' failed: %s", plan_arg, strerror(-r));
		return r;
	}
	if (exists(path)) {
		if ((r = fileio_read_regular(path, 1 << 20, &q->base_text, NULL)) < 0) {
			log_err("read '%s' failed: %s", path, strerror(-r));
			return r;
		}
		if (given && !streq(given, q->base_text)) {
			log_err("%s was begun with another plan (%s): give the same --plan, none, or a new --dir",
				q->dir, path);
			return -EEXIST;
		}
		return parse_plan(&q->base, path, q->base_text);
	}
	if (!given) {
		log_err("%s holds no qualification yet: --plan PLAN begins one", q->dir);
		return -ENOENT;
	}
	if ((r = parse_plan(&q->base, plan_arg, given)) < 0)
		return r;
	if ((r = fileio_mkdir_p(pdir)) < 0) {
		log_err("mkdir '%s' failed: %s", pdir, strerror(-r));
		return r;
	}
	if (strrchr(plan_arg, '/')) {
		_cleanup_free_ char *from = strndup(plan_arg, (size_t)(strrchr(plan_arg, '/') - plan_arg));

		r = from ? copy_plan_files(&q->base, from, pdir) : -ENOMEM;
	} else {
		r = copy_plan_files(&q->base, ".", pdir);
	}
	if (r < 0)
		return r;
	if ((r = fileio_write_atomic(path, given, strlen(given))) < 0) {
		log_err("write '%s' failed: %s", path, strerror(-r));
		return r;
	}
	q->base_text = TAKE_PTR(given);
	return 0;
}

/* DIR/options.json: the options that decide verdicts are those of the start; going on with others is refused. */
static int setup_options(struct qualify_run *q, const bool given[5])
{
	static const char *const keys[5] = { "alpha", "min_rate", "miss", "rounds", "baseline_runs" };
	double vals[5] = { q->o.alpha, q->o.min_rate, q->o.miss, q->o.rounds, q->o.baseline_runs };
	char path[PATH_MAX];
	json_auto_t *doc = NULL;
	int r;

	if ((r = pathf(path, "%s/options.json", q->dir)) < 0)
		return r;
	if (!exists(path)) {
		doc = json_pack("{s:f, s:f, s:f, s:i, s:i}", keys[0], vals[0], keys[1], vals[1], keys[2], vals[2],
				keys[3], (int)vals[3], keys[4], (int)vals[4]);
		return doc ? write_output(path, doc, dump_json) : -ENOMEM;
	}
	doc = json_load_file(path, 0, NULL);
	if (!json_is_object(doc)) {
		log_err("%s: not the options of fsagent qualify", path);
		return -EBADMSG;
	}
	for (int i = 0; i < 5; i++) {
		json_t *v = json_object_get(doc, keys[i]);

		if (!json_is_number(v) || json_number_value(v) <= 0) {
			log_err("%s: key '%s': missing or not a positive number", path, keys[i]);
			return -EBADMSG;
		}
		if (given[i] && fabs(json_number_value(v) - vals[i]) > 1e-12) {
			log_err("%s was begun with %s %g, not %g: the verdicts so far depend on it", q->dir, keys[i],
				json_number_value(v), vals[i]);
			return -EEXIST;
		}
		vals[i] = json_number_value(v);
	}
	q->o.alpha = vals[0];
	q->o.min_rate = vals[1];
	q->o.miss = vals[2];
	q->o.rounds = (unsigned)vals[3];
	q->o.baseline_runs = (unsigned)vals[4];
	return 0;
}

static void set_weights(struct qualify_run *q)
{
	const char *c;
	json_t *v;

	q->weights = json_object();
	json_object_foreach(q->base.config_iterations, c, v)
		json_object_set_new(q->weights, c,
				    json_real((double)json_integer_value(v) / (double)q->base.iterations));
}

/* ---- writing a round ----------------------------------------------------- */

static double weight_of(struct qualify_run *q, const char *config)
{
	json_t *w = json_object_get(q->weights, config);

	return w ? json_number_value(w) : 1;
}

/*
 * One side's plan of a round into dir/plan: the base plan, then round 0's
 * iterations (weighted per config) or a later round's tests (each config
 * kept to its own by an expunge file).
 */
static int write_side_plan(struct qualify_run *q, const char *dir, unsigned k, unsigned side, unsigned iters,
			   char *const *wanted)
{
	char pdir[PATH_MAX], path[PATH_MAX];
	_cleanup_free_ char *text = NULL, *exp = NULL;
	size_t tlen = 0, elen = 0;
	char **configs = NULL, **tests = NULL;
	FILE *f = NULL, *e = NULL;
	const char *c;
	json_t *v;
	int r;

	if ((r = pathf(pdir, "%s/plan", dir)) < 0 || (r = fileio_mkdir_p(pdir)) < 0)
		return r;
	{
		char from[PATH_MAX];

		if ((r = pathf(from, "%s/plan", q->dir)) < 0 || (r = copy_plan_files(&q->base, from, pdir)) < 0)
			return r;
	}
	f = open_memstream(&text, &tlen);
	e = open_memstream(&exp, &elen);
	configs = strv_split("", ",");
	tests = strv_split("", ",");
	if (!f || !e || !configs || !tests) {
		r = -ENOMEM;
		goto out;
	}
	fprintf(f, "%s\n# fsagent qualify: round %u, %s\n", q->base_text, k, sides[side]);
	if (k == 0) {
		fprintf(f, "iterations = %u\n", iters);
		json_object_foreach(q->base.config_iterations, c, v) {
			unsigned n = side ? qualify_clean_runs(&q->o, weight_of(q, c))
					  : (unsigned)ceil(iters * weight_of(q, c) - 1e-9);

			fprintf(f, "iterations.%s = %u\n", c, n ? n : 1);
		}
	} else {
		for (char *const *w = wanted; *w; w++) {
			char *sep = strchr(*w, '\x1f');

			*sep = '\0';
			r = strv_contains(configs, *w) ? 0 : strv_push(&configs, *w);
			if (r == 0 && !strv_contains(tests, sep + 1))
				r = strv_push(&tests, sep + 1);
			*sep = '\x1f';
			if (r < 0)
				goto out;
		}
		/* each config runs only the tests it wants: the others are expunged there */
		for (char **cf = configs; *cf; cf++)
			for (char **t = tests; *t; t++) {
				char key[512];

				snprintf(key, sizeof(key), "%s\x1f%s", *cf, *t);
				if (!strv_contains(wanted, key))
					fprintf(e, "%s config=%s # fsagent qualify: decided on this config\n", *t, *cf);
			}
		fflush(e);
		fputs("groups =\nexclude_groups =\nconfigs =", f);
		for (char **cf = configs; *cf; cf++)
			fprintf(f, " %s", *cf);
		fputs("\ntests =", f);
		for (char **t = tests; *t; t++)
			fprintf(f, " %s", *t);
		fprintf(f, "\niterations = %u\n", iters);
		json_object_foreach(q->base.config_iterations, c, v)
			fprintf(f, "iterations.%s = %u\n", c, iters);
		if (elen) {
			fputs("expunge_files =", f);
			for (char **x = q->base.expunge_files; x && *x; x++)
				fprintf(f, " %s", *x);
			fputs(" qualify-round.expunge\n", f);
			if ((r = pathf(path, "%s/qualify-round.expunge", pdir)) < 0 ||
			    (r = fileio_write_atomic(path, exp, elen)) < 0)
				goto out;
		}
	}
	fclose(f);
	f = NULL;
	if ((r = pathf(path, "%s/plan.conf", pdir)) == 0)
		r = fileio_write_atomic(path, text, tlen);
out:
	if (f)
		fclose(f);
	if (e)
		fclose(e);
	strv_free(configs);
	strv_free(tests);
	if (r < 0)
		log_err("writing the plan of round %u's %s into %s failed: %s", k, sides[side], pdir, strerror(-r));
	return r;
}

/* A round's record: tests and iterations of each side (0 tests: that side does not run). */
static json_t *round_record(unsigned k, const unsigned tests[2], const unsigned iters[2])
{
	return json_pack("{s:i, s:{s:i, s:i}, s:{s:i, s:i}}", "round", (int)k, "baseline", "tests", (int)tests[0],
			 "iterations", (int)iters[0], "candidate", "tests", (int)tests[1], "iterations", (int)iters[1]);
}

/*
 * Round k's plans, both sides written into DIR/round-k.new, then renamed
 * to DIR/round-k: a round is there whole or not at all.
 */
static int write_round(struct qualify_run *q, unsigned k, json_t *judged, uint64_t left, bool *none)
{
	char tmp[PATH_MAX], fin[PATH_MAX], sdir[PATH_MAX], rec[PATH_MAX];
	char **wanted[2] = { NULL, NULL };
	unsigned iters[2] = { 0, 0 }, ntests[2] = { 0, 0 };
	json_auto_t *record = NULL;
	int r = 0;

	*none = false;
	if ((r = pathf(tmp, "%s/round-%u.new", q->dir, k)) < 0 || (r = pathf(fin, "%s/round-%u", q->dir, k)) < 0)
		return r;
	if (k == 0) {
		iters[0] = q->o.baseline_runs;
		iters[1] = qualify_clean_runs(&q->o, 1);
	} else {
		bool both;
		int n[2];

		for (unsigned s = 0; s < 2; s++) {
			n[s] = qualify_next(judged, sides[s], UINT64_MAX, &wanted[s]);
			if (n[s] < 0) {
				r = n[s];
				goto out;
			}
		}
		/* the budget left, halved when both sides want runs */
		both = n[0] > 0 && n[1] > 0;
		for (unsigned s = 0; s < 2; s++) {
			strv_free(wanted[s]);
			wanted[s] = NULL;
			if (n[s] == 0)
				continue;
			n[s] = qualify_next(judged, sides[s], both ? (s ? left - left / 2 : left / 2) : left,
					    &wanted[s]);
			if (n[s] < 0) {
				r = n[s];
				goto out;
			}
			iters[s] = (unsigned)n[s];
			ntests[s] = (unsigned)strv_length(wanted[s]);
		}
		if (!iters[0] && !iters[1]) {
			*none = true;
			goto out;
		}
	}
	(void)fileio_mkdir_p(tmp);
	for (unsigned s = 0; s < 2 && r == 0; s++) {
		if (!iters[s])
			continue;
		if ((r = pathf(sdir, "%s/%s", tmp, sides[s])) < 0 || (r = fileio_mkdir_p(sdir)) < 0)
			goto out;
		r = write_side_plan(q, sdir, k, s, iters[s], wanted[s]);
	}
	if (r < 0)
		goto out;
	record = round_record(k, ntests, iters);
	if ((r = pathf(rec, "%s/round.json", tmp)) < 0 || (r = write_output(rec, record, dump_json)) < 0)
		goto out;
	if (rename(tmp, fin) < 0) {
		r = -errno;
		log_err("rename '%s' to '%s' failed: %m", tmp, fin);
	}
out:
	strv_free(wanted[0]);
	strv_free(wanted[1]);
	return r;
}

/* ---- running a round ----------------------------------------------------- */

/*
 * The runners run in their own sessions (util/proc.h), out of reach of the
 * terminal's ^C: a signal that stops fsagent qualify stops them too, so that
 * no runner goes on writing into what the next start runs again.
 */
static volatile pid_t running[2];

static void stop_runners(int sig)
{
	for (int i = 0; i < 2; i++)
		if (running[i] > 0)
			kill(-running[i], SIGTERM);
	signal(sig, SIG_DFL);
	raise(sig);
}

struct side_job {
	char dir[PATH_MAX];
	struct proc p;
	int log_fd;
	bool started;
};

static int start_side(struct qualify_run *q, unsigned k, unsigned s, struct side_job *j)
{
	char path[PATH_MAX], res[PATH_MAX], kbuf[16];
	int r;

	if ((r = pathf(res, "%s/results", j->dir)) < 0)
		return r;
	/* what an interrupted runner left is kept aside, not read */
	if (exists(res)) {
		if ((r = pathf(path, "%s/results.interrupted-%lld", j->dir, (long long)time(NULL))) < 0)
			return r;
		if (rename(res, path) < 0) {
			r = -errno;
			log_err("rename '%s' failed: %m", res);
			return r;
		}
	}
	if ((r = fileio_mkdir_p(res)) < 0 || (r = pathf(path, "%s/log", j->dir)) < 0)
		return r;
	j->log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (j->log_fd < 0) {
		r = -errno;
		log_err("open '%s' failed: %m", path);
		return r;
	}
	snprintf(kbuf, sizeof(kbuf), "%u", k);
	if ((r = pathf(path, "%s/plan/plan.conf", j->dir)) < 0)
		return r;
	/* the child inherits the environment as it is at fork */
	if (setenv("FSAGENT_QUALIFY_SIDE", sides[s], 1) < 0 || setenv("FSAGENT_QUALIFY_ROUND", kbuf, 1) < 0 ||
	    setenv("FSAGENT_QUALIFY_PLAN", path, 1) < 0 || setenv("FSAGENT_QUALIFY_RESULTS", res, 1) < 0)
		return -errno;
	j->p = (struct proc)PROC_INIT;
	j->p.argv = (const char *const *)q->runner;
	j->p.stdout_fd = j->log_fd;
	j->p.stderr_fd = j->log_fd;
	r = proc_start(&j->p);
	if (r < 0) {
		log_err("runner '%s' failed to start: %s", q->runner[0], strerror(-r));
		return r;
	}
	j->started = true;
	running[s] = j->p.pid;
	return 0;
}

/* Wait for a side's runner; 0 and its round marked done, or -ECHILD (logged) when it failed. */
static int finish_side(unsigned k, unsigned s, struct side_job *j)
{
	char path[PATH_MAX];
	int r = proc_wait(&j->p, -1);

	running[s] = 0;
	proc_release(&j->p);
	close(j->log_fd);
	j->log_fd = -1;
	if (r < 0)
		return r;
	/* 0: passed, 1: tests failed, 4: nothing ran (every test not run or expunged): all are answers */
	if (j->p.status != 0 && j->p.status != 1 && j->p.status != 4) {
		log_err("round %u: the %s's runner exited %d; its log: %s/log. Run fsagent qualify again to go on", k,
			sides[s], j->p.status, j->dir);
		return -ECHILD;
	}
	printf("round %u: %s done (runner exit %d)\n", k, sides[s], j->p.status);
	fflush(stdout);
	if ((r = pathf(path, "%s/done", j->dir)) < 0)
		return r;
	return fileio_write_atomic(path, "", 0);
}

/* Run the sides of round k that are not done, side by side with jobs 2. */
static int run_round(struct qualify_run *q, unsigned k)
{
	struct side_job j[2] = { { .log_fd = -1 }, { .log_fd = -1 } };
	int r = 0, r2;

	for (unsigned s = 0; s < 2; s++) {
		char plan[PATH_MAX], done[PATH_MAX];

		if ((r = pathf(j[s].dir, "%s/round-%u/%s", q->dir, k, sides[s])) < 0 ||
		    (r = pathf(plan, "%s/plan/plan.conf", j[s].dir)) < 0 || (r = pathf(done, "%s/done", j[s].dir)) < 0)
			break;
		if (!exists(plan) || exists(done))
			continue;
		printf("round %u: running the %s (log: %s/log)\n", k, sides[s], j[s].dir);
		fflush(stdout);
		r = start_side(q, k, s, &j[s]);
		if (r < 0)
			break;
		if (q->jobs < 2 && (r = finish_side(k, s, &j[s])) < 0)
			break;
	}
	for (unsigned s = 0; s < 2; s++)
		if (j[s].started && j[s].log_fd >= 0) {
			r2 = finish_side(k, s, &j[s]);
			r = r < 0 ? r : r2;
		}
	for (unsigned s = 0; s < 2; s++)
		if (j[s].log_fd >= 0)
			close(j[s].log_fd);
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
	for (unsigned k = 0; k < upto; k++)
		for (unsigned s = 0; s < 2; s++) {
			if ((r = pathf(path, "%s/round-%u/%s/results", q->dir, k, sides[s])) < 0 ||
			    (r = pathf(done, "%s/round-%u/%s/done", q->dir, k, sides[s])) < 0)
				goto fail;
			if (!exists(done))
				continue;
			err[0] = '\0';
			r = compare_add(cmp, s ? SIDE_CANDIDATE : SIDE_BASELINE, path, err, sizeof(err));
			if (r < 0) {
				log_err("round %u's %s: %s", k, sides[s],
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
		if (!streq(compare_str(t, "verdict"), "failing"))
			continue;
		for (unsigned s = 0; s < 2 && r == 0; s++) {
			json_t *side = json_object_get(t, sides[s]);

			r = upkeep_add(u, compare_str(t, "config"), compare_str(t, "test"), first_kernel(cmp, sides[s]),
				       compare_num(side, "runs"), compare_num(side, "failures"));
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
		if ((r = pathf(path, "%s/expunge-suggested.txt", q->dir)) < 0 ||
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

/* The loop: rounds until every test is decided, the rounds or the budget spent. Returns the exit status. */
static int qualify(struct qualify_run *q)
{
	json_auto_t *cmp_doc = NULL, *judged = NULL, *doc = NULL;
	struct compare *cmp = NULL;
	const char *stopped = NULL;
	json_int_t budget = (json_int_t)q->budget, total;
	char path[PATH_MAX];
	unsigned k;
	int r;

	for (k = 0;; k++) {
		bool none = false;

		if ((r = pathf(path, "%s/round-%u", q->dir, k)) < 0)
			return 1;
		if (!exists(path)) {
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
				total = json_integer_value(json_object_get(runs, "total"));
				json_decref(runs);
				if (!q->budget)
					budget = fixed_protocol(judged);
				if (k > q->o.rounds) {
					stopped = "the rounds are spent (--rounds)";
					break;
				}
				r = write_round(q, k, judged, (uint64_t)(budget > total ? budget - total : 0), &none);
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
			} else if ((r = write_round(q, 0, NULL, 0, &none)) < 0) {
				return 3;
			}
		}
		{
			char rec[PATH_MAX];
			json_t *rj;

			if ((r = pathf(rec, "%s/round-%u/round.json", q->dir, k)) < 0)
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
		if (run_round(q, k) < 0)
			return 3;
	}
	doc = outcome(q, cmp_doc, judged, stopped, budget);
	if (!doc || write_expunge(q, cmp_doc, judged, doc) < 0)
		return 1;
	if ((r = pathf(path, "%s/qualify.json", q->dir)) < 0 || write_output(path, doc, dump_json) < 0)
		return 1;
	if ((r = pathf(path, "%s/qualify.html", q->dir)) < 0 || write_output(path, doc, qualify_html) < 0)
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

static int parse_real(const char *opt, const char *s, double lo, double hi, double *ret)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || end == s || !(v > lo && v < hi)) {
		log_err("%s: '%s' is not a number between %g and %g", opt, s, lo, hi);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int parse_count(const char *opt, const char *s, unsigned long long lo, unsigned long long hi,
		       unsigned long long *ret)
{
	if (fileio_parse_u64(s, ret) < 0 || *ret < lo || *ret > hi) {
		log_err("%s: '%s' is not a number from %llu to %llu", opt, s, lo, hi);
		return -EINVAL;
	}
	return 0;
}

int cmd_qualify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "plan", required_argument, NULL, 'p' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "min-rate", required_argument, NULL, 'R' },
		{ "miss", required_argument, NULL, 'm' },
		{ "rounds", required_argument, NULL, 'k' },
		{ "baseline-runs", required_argument, NULL, 'B' },
		{ "max-runs", required_argument, NULL, 'M' },
		{ "budget", required_argument, NULL, 'b' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct qualify_run q = { .jobs = 1 };
	const char *plan_arg = NULL;
	bool given[5] = { false };
	unsigned long long n;
	int c, rc;

	qualify_opts_default(&q.o);
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': q.dir = optarg; break;
		case 'p': plan_arg = optarg; break;
		case 'a':
			if (parse_real("--alpha", optarg, 0, 1, &q.o.alpha) < 0)
				return 2;
			given[0] = true;
			break;
		case 'R':
			if (parse_real("--min-rate", optarg, 0, 1, &q.o.min_rate) < 0)
				return 2;
			given[1] = true;
			break;
		case 'm':
			if (parse_real("--miss", optarg, 0, 1, &q.o.miss) < 0)
				return 2;
			given[2] = true;
			break;
		case 'k':
			if (parse_count("--rounds", optarg, 1, 100, &n) < 0)
				return 2;
			q.o.rounds = (unsigned)n;
			given[3] = true;
			break;
		case 'B':
			if (parse_count("--baseline-runs", optarg, 1, 10000, &n) < 0)
				return 2;
			q.o.baseline_runs = (unsigned)n;
			given[4] = true;
			break;
		case 'M':
			if (parse_count("--max-runs", optarg, 3, 100000, &n) < 0)
				return 2;
			q.o.max_runs = (unsigned)n;
			break;
		case 'b':
			if (parse_count("--budget", optarg, 1, 1000000000, &q.budget) < 0)
				return 2;
			break;
		case 'j':
			if (parse_count("--jobs", optarg, 1, 2, &n) < 0)
				return 2;
			q.jobs = (unsigned)n;
			break;
		case 'h':
			printf("usage: fsagent qualify --dir DIR [--plan PLAN] [--alpha P] [--min-rate R] [--miss P]\n"
			       "                       [--rounds N] [--baseline-runs N] [--max-runs N] [--budget "
			       "RUNS]\n"
			       "                       [--jobs 1|2] -- RUNNER [ARG...]\n"
			       "A candidate kernel against its baseline, in rounds until every test is decided.\n"
			       "Round 0 runs PLAN's tests on the candidate often enough to catch a regression\n"
			       "failing --min-rate of its runs (default 0.2) but for a chance of --miss (0.01),\n"
			       "and --baseline-runs times (3) on the baseline; each later round reruns only the\n"
			       "undecided tests, on the side that needs it, until each is a regression, fixed,\n"
			       "flaky, failing, pass or not-comparable at --alpha (0.01, shared by the --rounds\n"
			       "+ 1 looks, default 8 rounds), or --budget test runs are spent (default: what a\n"
			       "fixed 30-runs-per-side protocol spends). RUNNER runs one side's round: it gets\n"
			       "FSAGENT_QUALIFY_SIDE (baseline or candidate), FSAGENT_QUALIFY_PLAN (a plan\n"
			       "file), FSAGENT_QUALIFY_RESULTS (a directory for its bundles) and\n"
			       "FSAGENT_QUALIFY_ROUND, and exits 0, 1 (tests failed) or 4 (nothing ran).\n"
			       "With --jobs 2 both sides run at once. Started again with the same DIR, it goes\n"
			       "on from the bundles there. Writes DIR/qualify.json, DIR/qualify.html and, for\n"
			       "the tests failing every run on both sides, DIR/expunge-suggested.txt.\n"
			       "Exit status: 0 no regression, 1 a regression, 2 bad usage, 3 a runner failed\n"
			       "(run it again to go on).\n");
			return 0;
		default: return 2;
		}
	}
	if (!q.dir || optind >= argc) {
		log_err("usage: fsagent qualify --dir DIR [--plan PLAN] ... -- RUNNER [ARG...] (see --help)");
		return 2;
	}
	q.runner = argv + optind;
	if (fileio_mkdir_p(q.dir) < 0) {
		log_err("mkdir '%s' failed: %m", q.dir);
		return 2;
	}
	{
		char lock[PATH_MAX];
		int fd;

		if (pathf(lock, "%s/.lock", q.dir) < 0 || (fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
			log_err("open '%s/.lock' failed: %m", q.dir);
			return 2;
		}
		/* held until exit: one fsagent qualify a directory */
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			log_err("%s is in use by another fsagent qualify", q.dir);
			close(fd);
			return 2;
		}
	}
	signal(SIGINT, stop_runners);
	signal(SIGTERM, stop_runners);
	signal(SIGHUP, stop_runners);
	if (setup_plan(&q, plan_arg) < 0 || setup_options(&q, given) < 0) {
		free(q.base_text);
		return 2;
	}
	set_weights(&q);
	q.rounds = json_array();
	rc = qualify(&q);
	json_decref(q.rounds);
	json_decref(q.weights);
	plan_release(&q.base);
	free(q.base_text);
	return rc;
}
