// SPDX-License-Identifier: MIT
/*
 * What each round of a qualification runs (see qualify_plan.h).
 */
#include "engine/qualify_plan.h"
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

const char *const qualify_sides[2] = { "baseline", "candidate" };

/* from's bytes into to, the failure named */
static int copy_file(const char *from, const char *to)
{
	int r = fileio_copy(from, to);

	if (r < 0)
		log_err("copy '%s' to '%s' failed: %s", from, to, strerror(-r));
	return r;
}

/* The files plan names (expunge files, durations), copied from one plan directory into another. */
static int copy_plan_files(const struct plan *p, const char *from, const char *to)
{
	char a[PATH_MAX], b[PATH_MAX];
	int r = 0;

	for (char **f = p->expunge_files; r == 0 && f && *f; f++)
		if ((r = fileio_pathf(a, "%s/%s", from, *f)) == 0 && (r = fileio_pathf(b, "%s/%s", to, *f)) == 0)
			r = copy_file(a, b);
	if (r == 0 && p->durations && (r = fileio_pathf(a, "%s/%s", from, p->durations)) == 0 &&
	    (r = fileio_pathf(b, "%s/%s", to, p->durations)) == 0)
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

	if ((r = fileio_pathf(pdir, "%s/plan", q->dir)) < 0 || (r = fileio_pathf(path, "%s/plan.conf", pdir)) < 0)
		return r;
	if (plan_arg && (r = fileio_read_regular(plan_arg, 1 << 20, &given, NULL)) < 0) {
		log_err("read plan '%s' failed: %s", plan_arg, strerror(-r));
		return r;
	}
	if (fileio_exists(path)) {
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
 * kept to its own by an expunge file), each its runs (runs, as many as
 * wanted) by an iterations.<config>/<test> key where fewer than iters.
 */
static int write_side_plan(struct qualify_run *q, const char *dir, unsigned k, unsigned side, unsigned iters,
			   char *const *wanted, const unsigned *runs)
{
	char pdir[PATH_MAX], path[PATH_MAX];
	_cleanup_free_ char *text = NULL, *exp = NULL;
	size_t tlen = 0, elen = 0;
	char **configs = NULL, **tests = NULL;
	FILE *f = NULL, *e = NULL;
	const char *c;
	json_t *v;
	int r;

	if ((r = fileio_pathf(pdir, "%s/plan", dir)) < 0 || (r = fileio_mkdir_p(pdir)) < 0)
		return r;
	{
		char from[PATH_MAX];

		if ((r = fileio_pathf(from, "%s/plan", q->dir)) < 0 || (r = copy_plan_files(&q->base, from, pdir)) < 0)
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
	fprintf(f, "%s\n# fsagent qualify: round %u, %s\n", q->base_text, k, qualify_sides[side]);
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
		for (size_t i = 0; wanted[i]; i++)
			if (runs[i] < iters) {
				char *sep = strchr(wanted[i], '\x1f');

				fprintf(f, "iterations.%.*s/%s = %u\n", (int)(sep - wanted[i]), wanted[i], sep + 1,
					runs[i]);
			}
		if (elen) {
			fputs("expunge_files =", f);
			for (char **x = q->base.expunge_files; x && *x; x++)
				fprintf(f, " %s", *x);
			fputs(" qualify-round.expunge\n", f);
			if ((r = fileio_pathf(path, "%s/qualify-round.expunge", pdir)) < 0 ||
			    (r = fileio_write_atomic(path, exp, elen)) < 0)
				goto out;
		}
	}
	fclose(f);
	f = NULL;
	if ((r = fileio_pathf(path, "%s/plan.conf", pdir)) == 0)
		r = fileio_write_atomic(path, text, tlen);
out:
	if (f)
		fclose(f);
	if (e)
		fclose(e);
	strv_free(configs);
	strv_free(tests);
	if (r < 0)
		log_err("writing the plan of round %u's %s into %s failed: %s", k, qualify_sides[side], pdir,
			strerror(-r));
	return r;
}

/* A round's record: tests, iterations (the most a test runs) and runs of each side (0 tests: that side does not
 * run). */
static json_t *round_record(unsigned k, const unsigned tests[2], const unsigned iters[2], const unsigned long runs[2])
{
	return json_pack("{s:i, s:{s:i, s:i, s:I}, s:{s:i, s:i, s:I}}", "round", (int)k, "baseline", "tests",
			 (int)tests[0], "iterations", (int)iters[0], "runs", (json_int_t)runs[0], "candidate", "tests",
			 (int)tests[1], "iterations", (int)iters[1], "runs", (json_int_t)runs[1]);
}

/*
 * Round k's plans, both sides written into DIR/round-k.new, then renamed
 * to DIR/round-k: a round is there whole or not at all.
 */
int qualify_plan_round(struct qualify_run *q, unsigned k, json_t *judged, uint64_t left, bool *none)
{
	char tmp[PATH_MAX], fin[PATH_MAX], sdir[PATH_MAX], rec[PATH_MAX];
	char **wanted[2] = { NULL, NULL };
	unsigned iters[2] = { 0, 0 }, ntests[2] = { 0, 0 }, *runs[2] = { NULL, NULL };
	unsigned long total[2] = { 0, 0 }; /* round 0: the plan's tests, not counted here */
	json_auto_t *record = NULL;
	int r = 0;

	*none = false;
	if ((r = fileio_pathf(tmp, "%s/round-%u.new", q->dir, k)) < 0 ||
	    (r = fileio_pathf(fin, "%s/round-%u", q->dir, k)) < 0)
		return r;
	if (k == 0) {
		/* with the baseline's earlier runs, round 0 is the candidate's alone */
		iters[0] = q->nprior ? 0 : q->o.baseline_runs;
		iters[1] = qualify_clean_runs(&q->o, 1);
	} else {
		bool both;
		int n[2];

		for (unsigned s = 0; s < 2; s++) {
			n[s] = qualify_next(judged, qualify_sides[s], UINT64_MAX, &wanted[s], &runs[s]);
			if (n[s] < 0) {
				r = n[s];
				goto out;
			}
		}
		/* the budget left, halved when both sides want runs */
		both = n[0] > 0 && n[1] > 0;
		for (unsigned s = 0; s < 2; s++) {
			strv_free(wanted[s]);
			free(runs[s]);
			wanted[s] = NULL;
			runs[s] = NULL;
			if (n[s] == 0)
				continue;
			n[s] = qualify_next(judged, qualify_sides[s], both ? (s ? left - left / 2 : left / 2) : left,
					    &wanted[s], &runs[s]);
			if (n[s] < 0) {
				r = n[s];
				goto out;
			}
			iters[s] = (unsigned)n[s];
			ntests[s] = (unsigned)strv_length(wanted[s]);
			for (unsigned i = 0; i < ntests[s]; i++)
				total[s] += runs[s][i];
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
		if ((r = fileio_pathf(sdir, "%s/%s", tmp, qualify_sides[s])) < 0 || (r = fileio_mkdir_p(sdir)) < 0)
			goto out;
		r = write_side_plan(q, sdir, k, s, iters[s], wanted[s], runs[s]);
	}
	if (r < 0)
		goto out;
	record = round_record(k, ntests, iters, total);
	if ((r = fileio_pathf(rec, "%s/round.json", tmp)) < 0 || (r = write_output(rec, record, dump_json)) < 0)
		goto out;
	if (rename(tmp, fin) < 0) {
		r = -errno;
		log_err("rename '%s' to '%s' failed: %m", tmp, fin);
	}
out:
	strv_free(wanted[0]);
	strv_free(wanted[1]);
	free(runs[0]);
	free(runs[1]);
	return r;
}

int qualify_plan_setup(struct qualify_run *q, const char *plan_arg)
{
	int r = setup_plan(q, plan_arg);

	if (r == 0)
		set_weights(q);
	return r;
}

int qualify_plan_copy_files(const char *dir, const char *to)
{
	char from[PATH_MAX], path[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	struct plan p;
	int r;

	if ((r = fileio_pathf(from, "%s/plan", dir)) < 0 || (r = fileio_pathf(path, "%s/plan.conf", from)) < 0)
		return r;
	if ((r = fileio_read_regular(path, 1 << 20, &text, NULL)) < 0) {
		log_err("read '%s' failed: %s", path, strerror(-r));
		return r;
	}
	if ((r = parse_plan(&p, path, text)) < 0)
		return r;
	r = copy_plan_files(&p, from, to);
	plan_release(&p);
	return r;
}
