// SPDX-License-Identifier: MIT
/*
 * Baseline against candidate (see compare.h): per-side counts in one hash
 * table keyed by config and test, filled from bundle_scan's stream, then
 * Fisher's exact test with Holm's correction.
 */
#include "analysis/compare.h"
#include "model/bundle.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strmap.h"
#include "util/strv.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ST_PASS, ST_FAIL, ST_TIMEOUT, ST_CRASH, ST_ERROR, ST_NOTRUN, ST_EXPUNGED, ST_MAX };
static const char *const st_names[ST_MAX] = { "pass", "fail", "timeout", "crash", "error", "notrun", "expunged" };

struct side_stats {
	uint64_t n[ST_MAX]; /* each outcome at most BUNDLE_MAX_COUNT: sums cannot wrap */
	double dur_total, dur_max;
};

struct entry {
	char *config, *test;
	struct side_stats s[2];
};

struct side_info {
	unsigned bundles;
	json_t *kernels; /* release -> bundles */
	json_t *paths;	 /* the bundles read */
};

struct compare {
	struct strmap keys; /* "config\x1ftest" -> index into v */
	struct entry *v;
	size_t n, cap;
	struct side_info side[2];
	enum compare_side cur;
};

int compare_new(struct compare **ret)
{
	struct compare *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	for (int s = 0; s < 2; s++) {
		c->side[s].kernels = json_object();
		c->side[s].paths = json_array();
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
	}
	free(c->v);
	strmap_release(&c->keys);
	for (int s = 0; s < 2; s++) {
		json_decref(c->side[s].kernels);
		json_decref(c->side[s].paths);
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

static int on_outcome(void *ctx, const struct bundle_outcome *o)
{
	struct compare *c = ctx;
	struct entry *e = lookup(c, o->config, o->test);
	struct side_stats *s;

	if (!e)
		return -ENOMEM;
	s = &e->s[c->cur];
	for (int i = 0; i < ST_MAX; i++)
		if (streq(o->status, st_names[i]))
			s->n[i] += o->count;
	s->dur_total += o->duration_total;
	if (o->duration_max > s->dur_max)
		s->dur_max = o->duration_max;
	return 0;
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
	return 0;
}

int compare_add(struct compare *c, enum compare_side side, const char *path, char *err, size_t es)
{
	static const struct bundle_scan_ops ops = { on_bundle, on_outcome };
	char **list = NULL;
	int r = bundle_find_all(path, &list, err, es);

	if (r < 0)
		return r;
	c->cur = side;
	for (char **p = list; *p; p++) {
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

/* ---- statistics ---------------------------------------------------------- */

static double lchoose(uint64_t n, uint64_t k)
{
	return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
}

double compare_fisher_greater(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	/* X ~ hypergeometric: N = a+b+c+d, K = a+c failures, n = a+b drawn */
	uint64_t n = a + b, K = a + c, N = a + b + c + d, hi = n < K ? n : K;
	double p = 0, base = lchoose(N, n);

	/* the terms rise to the mode and then fall: stop once they no longer count */
	double mode = ((double)n + 1) * ((double)K + 1) / ((double)N + 2);

	for (uint64_t x = a; x <= hi; x++) {
		double t;

		if (K - x > N - n)
			continue;
		t = exp(lchoose(K, x) + lchoose(N - K, n - x) - base);
		p += t;
		if ((double)x > mode && t < p * 1e-17)
			break;
	}
	return p > 1 ? 1 : p;
}

static uint64_t runs(const struct side_stats *s)
{
	return s->n[ST_PASS] + s->n[ST_FAIL] + s->n[ST_TIMEOUT] + s->n[ST_CRASH] + s->n[ST_ERROR];
}

static uint64_t bad(const struct side_stats *s)
{
	return runs(s) - s->n[ST_PASS];
}

struct verdict {
	struct entry *e;
	const char *cls;
	char reason[160];
	double p_worse, p_better, adj;
};

static const char *const class_order[] = { "regression", "flaky", "failing", "not-comparable", "fixed", "pass" };

static int class_rank(const char *cls)
{
	for (size_t i = 0; i < ARRAY_SIZE(class_order); i++)
		if (streq(cls, class_order[i]))
			return (int)i;
	return (int)ARRAY_SIZE(class_order);
}

static int cmp_verdict(const void *a, const void *b)
{
	const struct verdict *x = a, *y = b;
	int r = class_rank(x->cls) - class_rank(y->cls);

	if (r)
		return r;
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
	json_t *j = json_pack("{s:I, s:I, s:I}", "runs", (json_int_t)r, "passes", (json_int_t)s->n[ST_PASS],
			      "failures", (json_int_t)nb);

	for (int i = ST_FAIL; i < ST_MAX; i++)
		if (s->n[i])
			json_object_set_new(j, st_names[i], json_integer((json_int_t)s->n[i]));
	json_object_set_new(j, "failure_rate", r ? json_real((double)nb / r) : json_null());
	json_object_set_new(j, "duration_mean", r ? json_real(s->dur_total / r) : json_null());
	json_object_set_new(j, "duration_max", json_real(s->dur_max));
	return j;
}

static const char *side_state(const struct side_stats *s)
{
	return !runs(s) ? "not run" : !bad(s) ? "passing" : bad(s) == runs(s) ? "failing" : "flaky";
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
		if (!rb || !rk) {
			v[i].cls = "not-comparable";
			snprintf(v[i].reason, sizeof(v[i].reason), "not run on the %s%s",
				 !rb ? "baseline" : "candidate", !rb && !rk ? " nor the candidate" : "");
		} else if (!bad(b) && !bad(k)) {
			v[i].cls = "pass";
		} else if (-lchoose(rb + rk, rk) >= log(alpha)) {
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
			snprintf(v[i].reason, sizeof(v[i].reason), "%s on the baseline, %s on the candidate", side_state(b),
				 side_state(k));
		} else if (bad(b) && v[i].p_better < v[i].p_worse && v[i].adj < alpha) {
			v[i].cls = "fixed";
			snprintf(v[i].reason, sizeof(v[i].reason), "%s on the baseline, %s on the candidate", side_state(b),
				 side_state(k));
		} else if (bad(b) == runs(b) && bad(k) == runs(k)) {
			v[i].cls = "failing";
		} else {
			v[i].cls = "flaky";
			snprintf(v[i].reason, sizeof(v[i].reason), "%s on the baseline, %s on the candidate", side_state(b),
				 side_state(k));
		}
	}
	qsort(v, c->n, sizeof(*v), cmp_verdict);
	tests = json_array();
	counts = json_object();
	for (size_t i = 0; i < ARRAY_SIZE(class_order); i++)
		json_object_set_new(counts, class_order[i], json_integer(0));
	for (size_t i = 0; i < c->n; i++) {
		json_t *t = json_pack("{s:s, s:s, s:s, s:o, s:o, s:f, s:f, s:f}", "config", v[i].e->config, "test",
				      v[i].e->test, "class", v[i].cls, "baseline", side_json(&v[i].e->s[SIDE_BASELINE]),
				      "candidate", side_json(&v[i].e->s[SIDE_CANDIDATE]), "p_worse", v[i].p_worse,
				      "p_better", v[i].p_better, "p_adjusted", v[i].adj);

		if (v[i].reason[0])
			json_object_set_new(t, "reason", json_string(v[i].reason));
		json_array_append_new(tests, t);
		json_object_set_new(counts, v[i].cls,
				    json_integer(json_integer_value(json_object_get(counts, v[i].cls)) + 1));
	}
	free(v);
	doc = json_pack("{s:s, s:f, s:{s:i, s:O, s:O}, s:{s:i, s:O, s:O}, s:o, s:o}", "schema", COMPARE_SCHEMA,
			"alpha", alpha, "baseline", "bundles", (int)c->side[0].bundles, "kernels", c->side[0].kernels,
			"paths", c->side[0].paths, "candidate", "bundles", (int)c->side[1].bundles, "kernels",
			c->side[1].kernels, "paths", c->side[1].paths, "counts", counts, "tests", tests);
	return doc;
}

/* ---- output -------------------------------------------------------------- */

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static unsigned long long num(json_t *side, const char *key)
{
	return (unsigned long long)json_integer_value(json_object_get(side, key));
}

static void side_text(json_t *side, FILE *out)
{
	fprintf(out, "%llu/%llu failed", num(side, "failures"), num(side, "runs"));
}

void compare_text(json_t *res, FILE *out)
{
	json_t *t, *cnt = json_object_get(res, "counts");
	size_t i;

	fprintf(out, "baseline: %llu bundles; candidate: %llu bundles; alpha %g (Holm-corrected)\n",
		num(json_object_get(res, "baseline"), "bundles"), num(json_object_get(res, "candidate"), "bundles"),
		json_real_value(json_object_get(res, "alpha")));
	for (size_t k = 0; k < ARRAY_SIZE(class_order); k++)
		fprintf(out, "%s%s %llu", k ? ", " : "", class_order[k], num(cnt, class_order[k]));
	fputc('\n', out);
	for (size_t k = 0; k < ARRAY_SIZE(class_order) - 1; k++) {
		bool head = false;

		json_array_foreach(json_object_get(res, "tests"), i, t)
		{
			if (!streq(str(t, "class"), class_order[k]))
				continue;
			if (!head)
				fprintf(out, "\n%s:\n", class_order[k]);
			head = true;
			fprintf(out, "  %-12s %-16s baseline ", str(t, "config"), str(t, "test"));
			side_text(json_object_get(t, "baseline"), out);
			fprintf(out, ", candidate ");
			side_text(json_object_get(t, "candidate"), out);
			if (streq(class_order[k], "regression") || streq(class_order[k], "fixed") ||
			    streq(class_order[k], "flaky"))
				fprintf(out, ", p=%.3g (adjusted %.3g)",
					json_real_value(json_object_get(t, streq(class_order[k], "fixed") ? "p_better" : "p_worse")),
					json_real_value(json_object_get(t, "p_adjusted")));
			if (*str(t, "reason") && !streq(class_order[k], "regression") && !streq(class_order[k], "fixed"))
				fprintf(out, ": %s", str(t, "reason"));
			fputc('\n', out);
		}
	}
}

static void html_escape(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
}

static double rate(json_t *side)
{
	unsigned long long r = num(side, "runs");

	return r ? (double)num(side, "passes") / (double)r : -1;
}

/* Pass rate on both sides for the tests that failed anywhere, one row each. */
static void html_rates(json_t *res, FILE *out)
{
	json_t *t;
	size_t i, rows = 0;
	const int w = 640, row = 18, left = 260;

	json_array_foreach(json_object_get(res, "tests"), i, t)
		rows += !streq(str(t, "class"), "pass");
	if (!rows) {
		fputs("<p>No test failed on either side.</p>\n", out);
		return;
	}
	fprintf(out, "<svg width=\"%d\" height=\"%zu\" role=\"img\" aria-label=\"pass rates\">\n", w,
		rows * row + 30);
	for (int p = 0; p <= 100; p += 25)
		fprintf(out, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%zu\" class=\"grid\"/><text x=\"%d\" y=\"%zu\" class=\"ax\">%d%%</text>\n",
			left + p * (w - left - 20) / 100, left + p * (w - left - 20) / 100, rows * row,
			left + p * (w - left - 20) / 100 - 8, rows * row + 14, p);
	rows = 0;
	json_array_foreach(json_object_get(res, "tests"), i, t)
	{
		double rb = rate(json_object_get(t, "baseline")), rc = rate(json_object_get(t, "candidate"));
		int y = (int)rows * row;

		if (streq(str(t, "class"), "pass"))
			continue;
		fprintf(out, "<text x=\"0\" y=\"%d\" class=\"lbl %s\">", y + 13, str(t, "class"));
		html_escape(out, str(t, "config"));
		fputc(' ', out);
		html_escape(out, str(t, "test"));
		fputs("</text>\n", out);
		if (rb >= 0)
			fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"7\" class=\"base\"/>\n", left, y + 2,
				(int)(rb * (w - left - 20)));
		if (rc >= 0)
			fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"7\" class=\"cand\"/>\n", left, y + 9,
				(int)(rc * (w - left - 20)));
		rows++;
	}
	fputs("</svg>\n", out);
}

/* Mean durations, baseline (x) against candidate (y), log scales: every test a dot. */
static void html_durations(json_t *res, FILE *out)
{
	const int size = 420, pad = 40;
	double lo = 1e9, hi = 0;
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(res, "tests"), i, t)
	{
		double a = json_real_value(json_object_get(json_object_get(t, "baseline"), "duration_mean"));
		double b = json_real_value(json_object_get(json_object_get(t, "candidate"), "duration_mean"));

		if (a > 0 && b > 0) {
			lo = fmin(lo, fmin(a, b));
			hi = fmax(hi, fmax(a, b));
		}
	}
	if (hi <= 0) {
		fputs("<p>No test ran on both sides.</p>\n", out);
		return;
	}
	lo = log10(lo) - 0.1;
	hi = log10(hi) + 0.1;
	fprintf(out, "<svg width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"durations\">\n", size + pad, size + pad);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"0\" class=\"grid\"/>\n", pad, size, size + pad);
	for (int e = (int)ceil(lo); e <= (int)floor(hi); e++) {
		int x = pad + (int)((e - lo) / (hi - lo) * size), y = size - (int)((e - lo) / (hi - lo) * size);

		fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"ax\">%gs</text><text x=\"0\" y=\"%d\" class=\"ax\">%gs</text>\n",
			x - 8, size + 14, pow(10, e), y + 4, pow(10, e));
	}
	json_array_foreach(json_object_get(res, "tests"), i, t)
	{
		double a = json_real_value(json_object_get(json_object_get(t, "baseline"), "duration_mean"));
		double b = json_real_value(json_object_get(json_object_get(t, "candidate"), "duration_mean"));

		if (a <= 0 || b <= 0)
			continue;
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" class=\"%s\"><title>", pad + (log10(a) - lo) / (hi - lo) * size,
			size - (log10(b) - lo) / (hi - lo) * size, str(t, "class"));
		html_escape(out, str(t, "config"));
		fputc(' ', out);
		html_escape(out, str(t, "test"));
		fprintf(out, ": %.2fs / %.2fs</title></circle>\n", a, b);
	}
	fputs("</svg>\n", out);
}

void compare_html(json_t *res, FILE *out)
{
	json_t *t, *cnt = json_object_get(res, "counts");
	size_t i;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>fsagent compare</title>\n"
	      "<style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:2px 8px;"
	      "border-bottom:1px solid #ddd;text-align:left}.grid{stroke:#ddd}.ax{font-size:10px;fill:#666}"
	      ".lbl{font-size:12px}.base{fill:#7a9cc6}.cand{fill:#e08a3c}circle{fill:#999}circle.regression,"
	      "td.regression{fill:#c00;color:#c00;font-weight:bold}circle.flaky{fill:#e0a000}circle.fixed{fill:#090}"
	      "circle.failing{fill:#600}.key span{display:inline-block;width:12px;height:8px;margin:0 4px}</style>"
	      "</head><body>\n<h1>fsagent compare</h1>\n", out);
	fprintf(out, "<p>baseline: %llu bundles; candidate: %llu bundles; alpha %g, Holm-corrected Fisher exact tests.</p>\n<p>",
		num(json_object_get(res, "baseline"), "bundles"), num(json_object_get(res, "candidate"), "bundles"),
		json_real_value(json_object_get(res, "alpha")));
	for (size_t k = 0; k < ARRAY_SIZE(class_order); k++)
		fprintf(out, "%s%s: %llu", k ? ", " : "", class_order[k], num(cnt, class_order[k]));
	fputs("</p>\n<table><tr><th>class</th><th>config</th><th>test</th><th>baseline failed</th>"
	      "<th>candidate failed</th><th>p</th><th>adjusted p</th><th>why</th></tr>\n", out);
	json_array_foreach(json_object_get(res, "tests"), i, t)
	{
		json_t *b = json_object_get(t, "baseline"), *c = json_object_get(t, "candidate");

		if (streq(str(t, "class"), "pass"))
			continue;
		fprintf(out, "<tr><td class=\"%s\">%s</td><td>", str(t, "class"), str(t, "class"));
		html_escape(out, str(t, "config"));
		fputs("</td><td>", out);
		html_escape(out, str(t, "test"));
		fprintf(out, "</td><td>%llu/%llu</td><td>%llu/%llu</td><td>%.3g</td><td>%.3g</td><td>", num(b, "failures"),
			num(b, "runs"), num(c, "failures"), num(c, "runs"),
			json_real_value(json_object_get(t, streq(str(t, "class"), "fixed") ? "p_better" : "p_worse")),
			json_real_value(json_object_get(t, "p_adjusted")));
		html_escape(out, str(t, "reason"));
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n<h2>Pass rate per test</h2>\n<p class=\"key\"><span class=\"base\" style=\"background:#7a9cc6\">"
	      "</span>baseline <span style=\"background:#e08a3c\"></span>candidate (tests that failed anywhere)</p>\n",
	      out);
	html_rates(res, out);
	fputs("<h2>Mean duration per test</h2>\n<p>baseline across, candidate up; above the diagonal is slower on the "
	      "candidate.</p>\n",
	      out);
	html_durations(res, out);
	fputs("</body></html>\n", out);
}

/* ---- the rerun plan ------------------------------------------------------ */

int compare_rerun_plan(json_t *res, const char *path, unsigned iterations, char *err, size_t es)
{
	char **configs = strv_split("", ","), **tests = strv_split("", ",");
	_cleanup_free_ char *plan = NULL, *exp = NULL;
	char exp_path[PATH_MAX], *slash;
	size_t plen = 0, elen = 0, n = 0, i;
	FILE *pf = NULL, *ef = NULL;
	json_t *t;
	int r = 0;

	if (!configs || !tests) {
		r = -ENOMEM;
		goto out;
	}
	json_array_foreach(json_object_get(res, "tests"), i, t)
		if (num(json_object_get(t, "candidate"), "failures") && !streq(str(t, "class"), "failing")) {
			if (!strv_contains(configs, str(t, "config")))
				r = r < 0 ? r : strv_push(&configs, str(t, "config"));
			if (!strv_contains(tests, str(t, "test")))
				r = r < 0 ? r : strv_push(&tests, str(t, "test"));
			n++;
		}
	if (r < 0 || n == 0)
		goto out;
	if (snprintf(exp_path, sizeof(exp_path), "%s.expunge", path) >= (int)sizeof(exp_path)) {
		r = -ENAMETOOLONG;
		goto out;
	}
	pf = open_memstream(&plan, &plen);
	ef = open_memstream(&exp, &elen);
	if (!pf || !ef) {
		r = -ENOMEM;
		goto out;
	}
	/* each config gets only its own suspects: the others are expunged there */
	for (char **c = configs; *c; c++)
		for (char **x = tests; *x; x++) {
			bool suspect = false;

			json_array_foreach(json_object_get(res, "tests"), i, t)
				suspect |= streq(str(t, "config"), *c) && streq(str(t, "test"), *x) &&
					   num(json_object_get(t, "candidate"), "failures") &&
					   !streq(str(t, "class"), "failing");
			if (!suspect)
				fprintf(ef, "%s config=%s # not a suspect on this config\n", *x, *c);
		}
	fflush(ef);
	slash = strrchr(exp_path, '/');
	fprintf(pf, "# fsagent compare: the candidate's failures and flakes, to run on the baseline\n");
	fprintf(pf, "configs =");
	for (char **c = configs; *c; c++)
		fprintf(pf, " %s", *c);
	fprintf(pf, "\ntests =");
	for (char **x = tests; *x; x++)
		fprintf(pf, " %s", *x);
	fprintf(pf, "\niterations = %u\norder = random\n", iterations);
	if (elen)
		fprintf(pf, "expunge_files = %s\n", slash ? slash + 1 : exp_path);
	fclose(pf);
	pf = NULL;
	fclose(ef);
	ef = NULL;
	if (elen && (r = fileio_write_atomic(exp_path, exp, elen)) < 0) {
		snprintf(err, es, "write '%s' failed: %s", exp_path, strerror(-r));
		goto out;
	}
	r = fileio_write_atomic(path, plan, plen);
	if (r < 0)
		snprintf(err, es, "write '%s' failed: %s", path, strerror(-r));
out:
	if (pf)
		fclose(pf);
	if (ef)
		fclose(ef);
	strv_free(configs);
	strv_free(tests);
	if (r == -ENOMEM)
		snprintf(err, es, "out of memory");
	return r < 0 ? r : (int)n;
}
