// SPDX-License-Identifier: MIT
/*
 * Qualification's judgement (see qualify.h): verdicts and the runs each
 * undecided test wants, from compare's counts.
 */
#include "analysis/qualify.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void qualify_opts_default(struct qualify_opts *o)
{
	*o = (struct qualify_opts){
		.alpha = 0.01, .min_rate = 0.2, .miss = 0.01, .rounds = 8, .baseline_runs = 3, .max_runs = 400
	};
}

static unsigned looks(const struct qualify_opts *o)
{
	return o->rounds + 1;
}

double qualify_look_alpha(const struct qualify_opts *o)
{
	return o->alpha / looks(o);
}

unsigned qualify_clean_runs(const struct qualify_opts *o, double weight)
{
	double n = ceil(log(o->miss) / log1p(-o->min_rate) - 1e-9) * (weight > 0 ? weight : 1);

	return n < 1 ? 1 : n > 1e6 ? 1000000 : (unsigned)ceil(n - 1e-9);
}

double qualify_z(double p)
{
	double lo = -40, hi = 40;

	/* P(Z > z) = erfc(z / sqrt 2) / 2 falls as z rises: bisect */
	for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / M_SQRT2) / 2 > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void qualify_wilson(uint64_t f, uint64_t n, double z, double *lo, double *hi)
{
	double p = (double)f / (double)n, z2 = z * z, d = 1 + z2 / (double)n;
	double c = (p + z2 / (2.0 * (double)n)) / d;
	double h = z * sqrt(p * (1 - p) / (double)n + z2 / (4.0 * (double)n * (double)n)) / d;

	*lo = fmax(0, c - h);
	*hi = fmin(1, c + h);
}

void qualify_diff_interval(uint64_t fb, uint64_t rb, uint64_t fk, uint64_t rk, double z, double *lo, double *hi)
{
	double pb, pk, lb, ub, lk, uk;

	if (!rb || !rk) {
		*lo = -1;
		*hi = 1;
		return;
	}
	pb = (double)fb / (double)rb;
	pk = (double)fk / (double)rk;
	qualify_wilson(fb, rb, z, &lb, &ub);
	qualify_wilson(fk, rk, z, &lk, &uk);
	*lo = pk - pb - sqrt((pk - lk) * (pk - lk) + (ub - pb) * (ub - pb));
	*hi = pk - pb + sqrt((uk - pk) * (uk - pk) + (pb - lb) * (pb - lb));
}

/* Whether the interval puts the difference within +-min_rate (below +min_rate: regressions_only). */
static bool close_enough(const struct qualify_opts *o, uint64_t fb, uint64_t rb, uint64_t fk, uint64_t rk)
{
	double lo, hi;

	qualify_diff_interval(fb, rb, fk, rk, qualify_z(o->miss / looks(o)), &lo, &hi);
	return hi < o->min_rate && (o->regressions_only || lo > -o->min_rate);
}

/* The fewest n a side at rates pb and pk that put the interval within +-min_rate; 0 beyond COMPARE_MAX_DECIDE. */
static uint64_t runs_to_close(const struct qualify_opts *o, double pb, double pk)
{
	uint64_t lo = 1, hi = 1;

#define CLOSE(n) close_enough(o, (uint64_t)llround(pb *(double)(n)), (n), (uint64_t)llround(pk *(double)(n)), (n))
	if (pk - pb >= o->min_rate || (!o->regressions_only && pb - pk >= o->min_rate))
		return 0;
	while (!CLOSE(hi)) {
		lo = hi + 1;
		hi *= 2;
		if (hi > COMPARE_MAX_DECIDE)
			return 0;
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (CLOSE(mid))
			hi = mid;
		else
			lo = mid + 1;
	}
#undef CLOSE
	return hi;
}

/*
 * The fewest runs n of one side, at rate p, that put the interval within
 * +-min_rate with the other side's f of r as they are (baseline: the one
 * side is the baseline); 0 when none up to 4r does.
 */
static uint64_t runs_to_close_one(const struct qualify_opts *o, double p, uint64_t f, uint64_t r, bool baseline)
{
	for (uint64_t n = 1; n <= 4 * r; n += n < 16 ? 1 : n / 16) {
		uint64_t k = (uint64_t)llround(p * (double)n);

		if (baseline ? close_enough(o, k, n, f, r) : close_enough(o, f, r, k, n))
			return n;
	}
	return 0;
}

uint64_t qualify_runs_to_decide(const struct qualify_opts *o, uint64_t fb, uint64_t rb, uint64_t fk, uint64_t rk)
{
	uint64_t a, b;

	if (!rb || !rk)
		return 0;
	a = compare_runs_to_decide(fb, rb, fk, rk, qualify_look_alpha(o));
	b = runs_to_close(o, (double)fb / (double)rb, (double)fk / (double)rk);
	return !a ? b : !b ? a : a < b ? a : b;
}

const char *const qualify_classes[QUALIFY_CLASSES] = { "regression", "undecided",      "fixed", "flaky",
						       "failing",    "not-comparable", "pass" };

static int class_rank(const char *cls)
{
	for (size_t i = 0; i < ARRAY_SIZE(qualify_classes); i++)
		if (streq(cls, qualify_classes[i]))
			return (int)i;
	return (int)ARRAY_SIZE(qualify_classes);
}

static uint64_t num(json_t *side, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(side, key));
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* One test's verdict into v; *want_b and *want_k: the runs each side should get next. */
static const char *judge_one(const struct qualify_opts *o, json_t *t, double weight, char *why, size_t ws,
			     uint64_t *want_b, uint64_t *want_k)
{
	json_t *b = json_object_get(t, "baseline"), *k = json_object_get(t, "candidate");
	uint64_t rb = num(b, "runs"), fb = num(b, "failures"), rk = num(k, "runs"), fk = num(k, "failures");
	const char *cls = json_string_value(json_object_get(t, "class"));
	unsigned clean = qualify_clean_runs(o, weight);
	uint64_t m, target;

	*want_b = *want_k = 0;
	why[0] = '\0';
	if (compare_together(t)) {
		/* a crash of tests together, or of none named: no runs to ask for, compare's call stands */
		snprintf(why, ws, "%s", json_string_value(json_object_get(t, "reason")) ?: "");
		return cls ? cls : "not-comparable";
	}
	if (!rb || !rk) {
		snprintf(why, ws, "not run on the %s%s", !rb ? "baseline" : "candidate",
			 !rb && !rk ? " nor the candidate" : "");
		return "not-comparable";
	}
	if (cls && (streq(cls, "regression") || streq(cls, "fixed"))) {
		snprintf(why, ws, "%s", json_string_value(json_object_get(t, "reason")) ?: "");
		return cls;
	}
	if (!fb && !fk) {
		if (rk >= clean && rb >= 1)
			return "pass";
		*want_k = sub0(clean, rk);
		*want_b = rb ? 0 : 1;
		snprintf(why, ws, "%llu of the %u clean candidate runs that rule out a regression of %g%%",
			 (unsigned long long)rk, clean, o->min_rate * 100);
		return "undecided";
	}
	if (o->regressions_only && !fk && rk >= clean) {
		/* the clean rule on the candidate alone: its rate is below min_rate, so no regression of
		 * min_rate hides whatever the baseline's */
		snprintf(why, ws, "failed %llu of %llu runs on the baseline, none of %llu on the candidate",
			 (unsigned long long)fb, (unsigned long long)rb, (unsigned long long)rk);
		return "flaky";
	}
	if (fb == rb && fk == rk) {
		if (rb >= 3 && rk >= 3)
			return "failing";
		*want_b = sub0(3, rb);
		*want_k = sub0(3, rk);
		snprintf(why, ws, "failed every run, fewer than 3 a side");
		return "undecided";
	}
	if (close_enough(o, fb, rb, fk, rk)) {
		snprintf(why, ws, "failure rates %.0f%% and %.0f%%: the difference is %s%g%%",
			 100.0 * (double)fb / (double)rb, 100.0 * (double)fk / (double)rk,
			 o->regressions_only ? "below +" : "within +-", o->min_rate * 100);
		return "flaky";
	}
	if (rb >= o->max_runs && rk >= o->max_runs) {
		snprintf(why, ws, "%u runs a side (--max-runs) did not decide it", o->max_runs);
		return "undecided";
	}
	if (o->grow_smaller && (rb >= 2 * rk || rk >= 2 * rb)) {
		/* the side with fewer runs grows to what closes the interval at the rates seen, at most doubling
		 * (up to the other's); the other waits */
		uint64_t small = rb < rk ? rb : rk, big = rb < rk ? rk : rb, need;

		target = small + (small > 5 ? small : 5);
		need = rb < rk ? runs_to_close_one(o, (double)fb / (double)rb, fk, rk, true)
			       : runs_to_close_one(o, (double)fk / (double)rk, fb, rb, false);
		if (need && need < target)
			target = need > small + 5 ? need : small + 5;
		target = target < big ? target : big;
		target = target < o->max_runs ? target : o->max_runs;
		*want_b = rb < rk ? sub0(target, rb) : 0;
		*want_k = rk < rb ? sub0(target, rk) : 0;
	} else {
		uint64_t need = runs_to_close(o, (double)fb / (double)rb, (double)fk / (double)rk);

		/* both sides to the larger's and half again, or less when fewer close the interval at the rates
		 * seen (a quarter again at least: a round that closes nothing is a look spent) */
		m = rb > rk ? rb : rk;
		target = m + (m / 2 > 5 ? m / 2 : 5);
		if (need && need < target) {
			uint64_t least = m + (m / 4 > 5 ? m / 4 : 5);

			target = need > least ? need : least;
		}
		target = target < o->max_runs ? target : o->max_runs;
		*want_b = sub0(target, rb);
		*want_k = sub0(target, rk);
	}
	snprintf(why, ws, "failed %llu of %llu runs on the baseline, %llu of %llu on the candidate",
		 (unsigned long long)fb, (unsigned long long)rb, (unsigned long long)fk, (unsigned long long)rk);
	return "undecided";
}

static int cmp_tests(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int r = class_rank(json_string_value(json_object_get(x, "verdict"))) -
		class_rank(json_string_value(json_object_get(y, "verdict")));

	if (r)
		return r;
	r = strcmp(compare_str(x, "config"), compare_str(y, "config"));
	return r ? r : strcmp(compare_str(x, "test"), compare_str(y, "test"));
}

json_t *qualify_judge(json_t *cmp, const struct qualify_opts *o, json_t *weights)
{
	json_t *src = json_object_get(cmp, "tests"), *tests = json_array(), *counts = json_object(), *t;
	size_t n = json_array_size(src), i;
	json_t **v = calloc(n ? n : 1, sizeof(*v));

	if (!v || !tests || !counts) {
		free(v);
		json_decref(tests);
		json_decref(counts);
		return NULL;
	}
	for (i = 0; i < ARRAY_SIZE(qualify_classes); i++)
		json_object_set_new(counts, qualify_classes[i], json_integer(0));
	json_array_foreach(src, i, t) {
		json_t *w = weights ? json_object_get(weights, compare_str(t, "config")) : NULL;
		char why[256];
		uint64_t wb, wk, decide = 0;
		const char *verdict = judge_one(o, t, w ? json_number_value(w) : 1, why, sizeof(why), &wb, &wk);
		json_t *b = json_object_get(t, "baseline"), *k = json_object_get(t, "candidate");

		v[i] = json_pack("{s:s, s:s, s:s, s:O, s:O, s:O, s:O, s:O, s:{s:I, s:I}}", "config",
				 compare_str(t, "config"), "test", compare_str(t, "test"), "verdict", verdict,
				 "baseline", b, "candidate", k, "p_worse", json_object_get(t, "p_worse"), "p_better",
				 json_object_get(t, "p_better"), "p_adjusted", json_object_get(t, "p_adjusted"), "want",
				 "baseline", (json_int_t)wb, "candidate", (json_int_t)wk);
		if (!v[i])
			continue;
		if (why[0])
			json_object_set_new(v[i], "reason", json_string(why));
		if (compare_together(t))
			json_object_set_new(v[i], "together", json_true());
		if (streq(verdict, "undecided") && (num(b, "failures") || num(k, "failures")))
			decide = qualify_runs_to_decide(o, num(b, "failures"), num(b, "runs"), num(k, "failures"),
							num(k, "runs"));
		if (decide)
			json_object_set_new(v[i], "runs_to_decide", json_integer((json_int_t)decide));
		json_object_set_new(counts, verdict,
				    json_integer(json_integer_value(json_object_get(counts, verdict)) + 1));
	}
	qsort(v, n, sizeof(*v), cmp_tests);
	for (i = 0; i < n; i++)
		if (v[i])
			json_array_append_new(tests, v[i]);
	free(v);
	return json_pack("{s:o, s:o}", "counts", counts, "tests", tests);
}

json_t *qualify_runs(json_t *judged)
{
	json_int_t rb = 0, rk = 0;
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(judged, "tests"), i, t) {
		rb += (json_int_t)num(json_object_get(t, "baseline"), "runs");
		rk += (json_int_t)num(json_object_get(t, "candidate"), "runs");
	}
	return json_pack("{s:I, s:I, s:I}", "baseline", rb, "candidate", rk, "total", rb + rk);
}

int qualify_next(json_t *judged, const char *side, uint64_t share, char ***ret, unsigned **ret_runs)
{
	json_t *list = json_object_get(judged, "tests"), *t;
	uint64_t *wants = calloc(json_array_size(list) + 1, sizeof(*wants)), sum = 0, most = 0;
	char **tests = strv_split("", ","), **kept = strv_split("", ",");
	unsigned *runs = calloc(json_array_size(list) + 1, sizeof(*runs));
	size_t n = 0, k = 0, i;
	int r = 0;

	*ret = NULL;
	*ret_runs = NULL;
	if (!wants || !tests || !kept || !runs) {
		r = -ENOMEM;
		goto out;
	}
	json_array_foreach(list, i, t) {
		uint64_t w = num(json_object_get(t, "want"), side);
		char key[512];

		if (!w)
			continue;
		wants[n++] = w > 100000 ? 100000 : w;
		sum += wants[n - 1];
		snprintf(key, sizeof(key), "%s\x1f%s", compare_str(t, "config"), compare_str(t, "test"));
		if ((r = strv_push(&tests, key)) < 0)
			goto out;
	}
	/* each test its own runs, all cut in proportion when they cost more than the share */
	for (i = 0; i < n; i++) {
		uint64_t w = sum > share ? (uint64_t)((double)wants[i] * (double)share / (double)sum) : wants[i];

		if (!w)
			continue;
		if ((r = strv_push(&kept, tests[i])) < 0)
			goto out;
		runs[k++] = (unsigned)w;
		most = w > most ? w : most;
	}
	if (k) {
		/* only undecided tests want runs: in config and test order already */
		*ret = TAKE_PTR(kept);
		*ret_runs = TAKE_PTR(runs);
	}
	r = (int)most;
out:
	free(wants);
	free(runs);
	strv_free(tests);
	strv_free(kept);
	return r;
}
