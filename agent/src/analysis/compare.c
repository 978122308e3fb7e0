// SPDX-License-Identifier: MIT
/*
 * Baseline against candidate (see compare.h): per-side counts in one hash
 * table keyed by config and test, filled from bundle_scan's stream, then
 * Fisher's exact test with Holm's correction.
 */
#include "analysis/compare.h"
#include "analysis/provenance.h"
#include "model/bundle.h"
#include "model/result.h"
#include "util/macro.h"
#include "util/strmap.h"
#include "util/strv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct side_stats {
	uint64_t n[TS_MAX]; /* by status; each outcome at most BUNDLE_MAX_COUNT: sums cannot wrap */
	double dur_total, dur_max;
	char *why, *artifact; /* the first failure's, in the order the bundles were read; the artifact's full path */
};

struct entry {
	char *config, *test;
	struct side_stats s[2];
	bool together; /* a crash no test's record holds (bundle_scan_ops.crash): its runs are its crashes */
};

struct side_info {
	unsigned bundles;
	json_t *kernels;   /* release -> bundles */
	json_t *paths;	   /* the bundles read */
	json_t *userspace; /* distinct provenance summaries of its bundles */
};

struct compare {
	struct strmap keys; /* "config\x1ftest" -> index into v */
	struct entry *v;
	size_t n, cap;
	struct side_info side[2];
	enum compare_side cur;
	char bundle[PATH_MAX]; /* the directory of the bundle being read, absolute: artifact links work from anywhere */
	char *const *except;   /* "config\x1ftest" keys the add in progress leaves out */
};

int compare_new(struct compare **ret)
{
	struct compare *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	for (int s = 0; s < 2; s++) {
		c->side[s].kernels = json_object();
		c->side[s].paths = json_array();
		c->side[s].userspace = json_array();
	}
	*ret = c;
	return 0;
}

void compare_free(struct compare *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].config);
		free(c->v[i].test);
		for (int k = 0; k < 2; k++) {
			free(c->v[i].s[k].why);
			free(c->v[i].s[k].artifact);
		}
	}
	free(c->v);
	strmap_release(&c->keys);
	for (int s = 0; s < 2; s++) {
		json_decref(c->side[s].kernels);
		json_decref(c->side[s].paths);
		json_decref(c->side[s].userspace);
	}
	free(c);
}

static struct entry *lookup(struct compare *c, const char *config, const char *test)
{
	char key[512];
	bool added;
	long i;
	struct entry *e;

	snprintf(key, sizeof(key), "%s\x1f%s", config, test);
	i = strmap_put(&c->keys, key, &added);
	if (i < 0)
		return NULL;
	if (!added)
		return &c->v[i];
	if (c->n == c->cap) {
		struct entry *nv = realloc(c->v, (c->cap = c->cap ? c->cap * 2 : 1024) * sizeof(*nv));

		if (!nv)
			return NULL;
		c->v = nv;
	}
	e = &c->v[c->n++];
	memset(e, 0, sizeof(*e));
	e->config = strdup(config);
	e->test = strdup(test);
	return e->config && e->test ? e : NULL;
}

static int add_outcome(struct compare *c, const struct bundle_outcome *o, bool together)
{
	struct entry *e;
	struct side_stats *s;
	enum test_status st;

	if (c->except) {
		char key[512];

		snprintf(key, sizeof(key), "%s\x1f%s", o->config, o->test);
		if (strv_contains(c->except, key))
			return 0;
	}
	e = lookup(c, o->config, o->test);
	if (!e)
		return -ENOMEM;
	e->together |= together;
	s = &e->s[c->cur];
	st = test_status_from_string(o->status);
	if (st < TS_MAX)
		s->n[st] += o->count;
	/*
	 * Reruns are runs too: check -L K reran a failure K times at once; of
	 * the runs after the first, those that failed count as the first did,
	 * the others as passes. Assumed independent of the first; they follow
	 * it in time, so a failure that leaves state behind can be over-counted.
	 */
	if (st < TS_MAX && test_status_failed(st) && o->rerun_runs > 1 && o->rerun_fails >= 1) {
		s->n[st] += o->rerun_fails - 1;
		s->n[TS_PASS] += o->rerun_runs - o->rerun_fails;
	}
	s->dur_total += o->duration_total;
	if (o->duration_max > s->dur_max)
		s->dur_max = o->duration_max;
	if (o->why && !s->why &&
	    (!(s->why = strdup(o->why)) ||
	     (o->artifact && asprintf(&s->artifact, "%s/%s", c->bundle, o->artifact) < 0)))
		return -ENOMEM;
	return 0;
}

static int on_outcome(void *ctx, const struct bundle_outcome *o)
{
	return add_outcome(ctx, o, false);
}

static int on_crash(void *ctx, const struct bundle_outcome *o)
{
	return add_outcome(ctx, o, true);
}

static int on_bundle(void *ctx, json_t *doc)
{
	struct compare *c = ctx;
	const char *rel = json_string_value(json_object_get(json_object_get(doc, "kernel"), "release"));
	json_t *k;

	rel = rel ? rel : "unknown";
	k = json_object_get(c->side[c->cur].kernels, rel);
	json_object_set_new(c->side[c->cur].kernels, rel, json_integer(k ? json_integer_value(k) + 1 : 1));
	c->side[c->cur].bundles++;
	/* bounded: a thousand bundles of a thousand images say no more than 64 */
	if (json_is_object(json_object_get(doc, "userspace")) && json_array_size(c->side[c->cur].userspace) < 64)
		provenance_add(c->side[c->cur].userspace, provenance_summary(json_object_get(doc, "userspace")));
	return 0;
}

int compare_add_except(struct compare *c, enum compare_side side, const char *path, char *const *except, char *err,
		       size_t es)
{
	int r;

	c->except = except;
	r = compare_add(c, side, path, err, es);
	c->except = NULL;
	return r;
}

int compare_add(struct compare *c, enum compare_side side, const char *path, char *err, size_t es)
{
	static const struct bundle_scan_ops ops = { on_bundle, on_outcome, on_crash };
	char **list = NULL;
	int r = bundle_find_all(path, &list, err, es);

	if (r < 0)
		return r;
	c->cur = side;
	for (char **p = list; *p; p++) {
		size_t bl = strlen(*p);

		/* a bundle's directory, or its bundle.json */
		if (bl > 12 && streq(*p + bl - 12, "/bundle.json"))
			bl -= 12;
		snprintf(c->bundle, sizeof(c->bundle), "%.*s", (int)bl, *p);
		if (c->bundle[0] != '/') {
			char abs[PATH_MAX];

			if (realpath(c->bundle, abs))
				snprintf(c->bundle, sizeof(c->bundle), "%s", abs);
		}
		r = bundle_scan(*p, &ops, c, err, es);
		if (r < 0) {
			if (r == -ENOMEM)
				snprintf(err, es, "%s: out of memory", *p);
			else if (r != -EBADMSG && !err[0])
				snprintf(err, es, "%s: %s", *p, strerror(-r));
			strv_free(list);
			return r;
		}
		json_array_append_new(c->side[side].paths, json_string(*p));
	}
	strv_free(list);
	return 0;
}

/* ---- a side's counts ------------------------------------------------------ */

static uint64_t runs(const struct side_stats *s)
{
	uint64_t n = s->n[TS_PASS];

	for (int i = TS_PASS; i < TS_MAX; i++)
		if (test_status_failed((enum test_status)i))
			n += s->n[i];
	return n;
}

static uint64_t bad(const struct side_stats *s)
{
	return runs(s) - s->n[TS_PASS];
}

struct verdict {
	struct entry *e;
	const char *cls;
	char reason[200];
	double p_worse, p_better, adj;
	uint64_t decide; /* runs a side that would decide it at the rates seen; 0: none */
};

const char *const compare_classes[COMPARE_CLASSES] = { "regression",	 "flaky", "failing",
						       "not-comparable", "fixed", "pass" };

int compare_class_rank(const char *cls)
{
	for (size_t i = 0; i < ARRAY_SIZE(compare_classes); i++)
		if (streq(cls, compare_classes[i]))
			return (int)i;
	return (int)ARRAY_SIZE(compare_classes);
}

/* By class; within one, the strongest evidence first (of a change for the worse; for "fixed", for the better). */
static int cmp_verdict(const void *a, const void *b)
{
	const struct verdict *x = a, *y = b;
	int r = compare_class_rank(x->cls) - compare_class_rank(y->cls);
	bool fixed = streq(x->cls, "fixed");
	double px = fixed ? x->p_better : x->p_worse, py = fixed ? y->p_better : y->p_worse;

	if (r)
		return r;
	if (px != py)
		return px < py ? -1 : 1;
	r = strcmp(x->e->config, y->e->config);
	return r ? r : strcmp(x->e->test, y->e->test);
}

struct pref {
	size_t i;
	double p;
};

static int cmp_pref(const void *a, const void *b)
{
	const struct pref *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p;
}

/*
 * Holm's step-down over the verdicts that pass want: adjusted p-values of
 * p_worse (worse = true) or p_better; the others keep theirs.
 */
static void holm(struct verdict *v, size_t n, bool worse)
{
	struct pref *ps = calloc(n ? n : 1, sizeof(*ps));
	size_t m = 0;
	double run_max = 0;

	if (!ps)
		return;
	for (size_t i = 0; i < n; i++)
		if (streq(v[i].cls, "?") && (worse ? bad(&v[i].e->s[SIDE_CANDIDATE]) : bad(&v[i].e->s[SIDE_BASELINE])))
			ps[m++] = (struct pref){ i, worse ? v[i].p_worse : v[i].p_better };
	qsort(ps, m, sizeof(*ps), cmp_pref);
	for (size_t k = 0; k < m; k++) {
		double a = ps[k].p * (double)(m - k);

		run_max = a > run_max ? a : run_max;
		a = run_max > 1 ? 1 : run_max;
		if (worse)
			v[ps[k].i].adj = a;
		else if (a < v[ps[k].i].adj)
			v[ps[k].i].adj = a;
	}
	free(ps);
}

static json_t *side_json(const struct side_stats *s)
{
	uint64_t r = runs(s), nb = bad(s);
	json_t *j = json_pack("{s:I, s:I, s:I}", "runs", (json_int_t)r, "passes", (json_int_t)s->n[TS_PASS], "failures",
			      (json_int_t)nb);

	for (int i = TS_FAIL; i < TS_MAX; i++)
		if (s->n[i])
			json_object_set_new(j, test_status_to_string((enum test_status)i),
					    json_integer((json_int_t)s->n[i]));
	json_object_set_new(j, "failure_rate", r ? json_real((double)nb / r) : json_null());
	json_object_set_new(j, "duration_mean", r ? json_real(s->dur_total / r) : json_null());
	json_object_set_new(j, "duration_max", json_real(s->dur_max));
	/* how it failed, the first time: check's reason, the output's first differing line, the kernel's report */
	if (s->why)
		json_object_set_new(j, "why", json_string(s->why));
	if (s->artifact)
		json_object_set_new(j, "artifact", json_string(s->artifact));
	return j;
}

static const char *side_state(const struct side_stats *s)
{
	return !runs(s) ? "not run" : !bad(s) ? "passing" : bad(s) == runs(s) ? "failing" : "flaky";
}

struct pooled {
	const char *test;
	unsigned configs, regressions;
	uint64_t fb, rb, fk, rk;
	double p, adj;
};

static int cmp_pooled(const void *a, const void *b)
{
	const struct pooled *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p ? 1 : strcmp(x->test, y->test);
}

/*
 * Tests worse on the candidate over their configs together: each config's
 * runs summed a side, Fisher's test on the sums, Holm over the tests pooled.
 * A failure spread over five configs (7 of 10 runs on each: one called a
 * regression, four among the flaky) is one row here. Only tests run on two
 * or more configs, not already a regression on every one.
 */
static json_t *across_configs(json_t *tests, double alpha)
{
	struct strmap names = { 0 };
	struct pooled *v = calloc(json_array_size(tests) + 1, sizeof(*v));
	json_t *out = json_array(), *t;
	size_t i, n = 0, m = 0;
	double run_max = 0;

	if (!v || !out)
		goto fail;
	json_array_foreach(tests, i, t) {
		json_t *b = json_object_get(t, "baseline"), *k = json_object_get(t, "candidate");
		long at = strmap_put(&names, compare_str(t, "test"), NULL);

		if (at < 0)
			goto fail;
		if ((size_t)at == n)
			v[n++].test = compare_str(t, "test");
		if (!compare_num(b, "runs") || !compare_num(k, "runs") || compare_together(t))
			continue;
		v[at].configs++;
		v[at].regressions += streq(compare_str(t, "class"), "regression");
		v[at].fb += compare_num(b, "failures");
		v[at].rb += compare_num(b, "runs");
		v[at].fk += compare_num(k, "failures");
		v[at].rk += compare_num(k, "runs");
	}
	for (i = 0; i < n; i++)
		if (v[i].configs >= 2 && v[i].fk && v[i].regressions < v[i].configs) {
			v[i].p = compare_fisher_greater(v[i].fk, v[i].rk - v[i].fk, v[i].fb, v[i].rb - v[i].fb);
			v[m++] = v[i];
		}
	qsort(v, m, sizeof(*v), cmp_pooled);
	for (i = 0; i < m; i++) {
		double a = v[i].p * (double)(m - i);

		run_max = a > run_max ? a : run_max;
		v[i].adj = run_max > 1 ? 1 : run_max;
		if (v[i].adj >= alpha)
			continue;
		if (json_array_append_new(out, json_pack("{s:s, s:i, s:i, s:{s:I, s:I}, s:{s:I, s:I}, s:f, s:f}",
							 "test", v[i].test, "configs", (int)v[i].configs, "regressions",
							 (int)v[i].regressions, "baseline", "failures",
							 (json_int_t)v[i].fb, "runs", (json_int_t)v[i].rb, "candidate",
							 "failures", (json_int_t)v[i].fk, "runs", (json_int_t)v[i].rk,
							 "p_worse", v[i].p, "p_adjusted", v[i].adj)) < 0)
			goto fail;
	}
	strmap_release(&names);
	free(v);
	return out;
fail:
	strmap_release(&names);
	free(v);
	json_decref(out);
	return NULL;
}

json_t *compare_result(struct compare *c, double alpha)
{
	struct verdict *v = calloc(c->n ? c->n : 1, sizeof(*v));
	json_t *doc, *tests, *counts;

	if (!v)
		return NULL;
	for (size_t i = 0; i < c->n; i++) {
		struct entry *e = &c->v[i];
		const struct side_stats *b = &e->s[SIDE_BASELINE], *k = &e->s[SIDE_CANDIDATE];
		uint64_t rb = runs(b), rk = runs(k);

		v[i].e = e;
		v[i].cls = "?";
		v[i].p_worse = compare_fisher_greater(bad(k), rk - bad(k), bad(b), rb - bad(b));
		v[i].p_better = compare_fisher_greater(bad(b), rb - bad(b), bad(k), rk - bad(k));
		v[i].adj = 1;
		if (e->together) {
			/*
			 * A crash of tests together (or of none named) counts no runs, only crashes:
			 * on the candidate alone it is the candidate's, whatever the baseline's luck
			 */
			v[i].cls = rk && rb ? "failing" : rk ? "regression" : "flaky";
			snprintf(v[i].reason, sizeof(v[i].reason),
				 "crashed %llu time%s on the baseline, %llu on the candidate", (unsigned long long)rb,
				 rb == 1 ? "" : "s", (unsigned long long)rk);
		} else if (!rb || !rk) {
			v[i].cls = "not-comparable";
			snprintf(v[i].reason, sizeof(v[i].reason), "not run on the %s%s",
				 !rb ? "baseline" : "candidate", !rb && !rk ? " nor the candidate" : "");
		} else if (!bad(b) && !bad(k)) {
			v[i].cls = "pass";
		} else if (-compare_lchoose(rb + rk, rk) >= log(alpha)) {
			v[i].cls = "not-comparable";
			snprintf(v[i].reason, sizeof(v[i].reason),
				 "too few runs (%llu on the baseline, %llu on the candidate) for any p-value below %g",
				 (unsigned long long)rb, (unsigned long long)rk, alpha);
		}
	}
	holm(v, c->n, true);
	holm(v, c->n, false);
	for (size_t i = 0; i < c->n; i++) {
		const struct side_stats *b = &v[i].e->s[SIDE_BASELINE], *k = &v[i].e->s[SIDE_CANDIDATE];

		if (!streq(v[i].cls, "?"))
			continue;
		if (bad(k) && v[i].p_worse < v[i].p_better && v[i].adj < alpha) {
			v[i].cls = "regression";
			snprintf(v[i].reason, sizeof(v[i].reason), "%s on the baseline, %s on the candidate",
				 side_state(b), side_state(k));
		} else if (bad(b) && v[i].p_better < v[i].p_worse && v[i].adj < alpha) {
			v[i].cls = "fixed";
			snprintf(v[i].reason, sizeof(v[i].reason), "%s on the baseline, %s on the candidate",
				 side_state(b), side_state(k));
		} else if (bad(b) == runs(b) && bad(k) == runs(k)) {
			v[i].cls = "failing";
		} else {
			v[i].cls = "flaky";
			snprintf(v[i].reason, sizeof(v[i].reason), "%s on the baseline, %s on the candidate",
				 side_state(b), side_state(k));
		}
	}
	/* undecided with different rates: how many runs a side would decide it, if the rates held */
	for (size_t i = 0; i < c->n; i++) {
		const struct side_stats *b = &v[i].e->s[SIDE_BASELINE], *k = &v[i].e->s[SIDE_CANDIDATE];
		size_t len = strlen(v[i].reason);

		if (!streq(v[i].cls, "flaky") && !(streq(v[i].cls, "not-comparable") && runs(b) && runs(k)))
			continue;
		v[i].decide = compare_runs_to_decide(bad(b), runs(b), bad(k), runs(k), alpha);
		if (v[i].decide)
			snprintf(v[i].reason + len, sizeof(v[i].reason) - len,
				 "; about %llu runs a side would decide it if these rates held",
				 (unsigned long long)v[i].decide);
	}
	qsort(v, c->n, sizeof(*v), cmp_verdict);
	tests = json_array();
	counts = json_object();
	for (size_t i = 0; i < ARRAY_SIZE(compare_classes); i++)
		json_object_set_new(counts, compare_classes[i], json_integer(0));
	for (size_t i = 0; i < c->n; i++) {
		json_t *t = json_pack("{s:s, s:s, s:s, s:o, s:o, s:f, s:f, s:f}", "config", v[i].e->config, "test",
				      v[i].e->test, "class", v[i].cls, "baseline", side_json(&v[i].e->s[SIDE_BASELINE]),
				      "candidate", side_json(&v[i].e->s[SIDE_CANDIDATE]), "p_worse", v[i].p_worse,
				      "p_better", v[i].p_better, "p_adjusted", v[i].adj);

		if (v[i].reason[0])
			json_object_set_new(t, "reason", json_string(v[i].reason));
		if (v[i].e->together)
			json_object_set_new(t, "together", json_true());
		if (v[i].decide)
			json_object_set_new(t, "runs_to_decide", json_integer((json_int_t)v[i].decide));
		json_array_append_new(tests, t);
		json_object_set_new(counts, v[i].cls,
				    json_integer(json_integer_value(json_object_get(counts, v[i].cls)) + 1));
	}
	free(v);
	doc = json_pack("{s:s, s:f, s:{s:i, s:O, s:O}, s:{s:i, s:O, s:O}, s:o, s:o}", "schema", COMPARE_SCHEMA, "alpha",
			alpha, "baseline", "bundles", (int)c->side[0].bundles, "kernels", c->side[0].kernels, "paths",
			c->side[0].paths, "candidate", "bundles", (int)c->side[1].bundles, "kernels",
			c->side[1].kernels, "paths", c->side[1].paths, "counts", counts, "tests", tests);
	if (doc && json_object_set_new(doc, "across_configs", across_configs(tests, alpha)) < 0) {
		json_decref(doc);
		return NULL;
	}
	if (doc)
		json_object_set_new(doc, "userspace",
				    json_pack("{s:O, s:O, s:o}", "baseline", c->side[0].userspace, "candidate",
					      c->side[1].userspace, "differs",
					      provenance_diff(c->side[0].userspace, c->side[1].userspace)));
	return doc;
}

/* ---- fields of the result ------------------------------------------------ */

const char *compare_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

bool compare_together(json_t *t)
{
	return json_is_true(json_object_get(t, "together"));
}

unsigned long long compare_num(json_t *o, const char *key)
{
	return (unsigned long long)json_integer_value(json_object_get(o, key));
}
