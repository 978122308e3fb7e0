// SPDX-License-Identifier: MIT
/*
 * A compare result (see compare.h) as text for a terminal and as a
 * self-contained HTML page; guest-written names are escaped.
 */
#include "analysis/compare.h"
#include "util/macro.h"
#include "util/markup.h"
#include "util/strv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void side_text(json_t *side, FILE *out)
{
	fprintf(out, "%llu/%llu failed", compare_num(side, "failures"), compare_num(side, "runs"));
}

static void join_values(json_t *vals, char *buf, size_t size, size_t *n)
{
	json_t *v;
	size_t i;

	json_array_foreach(vals, i, v)
		if (*n < size)
			*n += (size_t)snprintf(buf + *n, size - *n, "%s%s", i ? ", " : "", json_string_value(v));
}

bool compare_userspace_differs(json_t *res, char *buf, size_t size)
{
	json_t *d = json_object_get(json_object_get(res, "userspace"), "differs"), *x;
	size_t i, n = 0;

	buf[0] = '\0';
	json_array_foreach(d, i, x) {
		if (n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s: baseline ", i ? "; " : "",
					      compare_str(x, "what"));
		join_values(json_object_get(x, "baseline"), buf, size, &n);
		if (n < size)
			n += (size_t)snprintf(buf + n, size - n, ", candidate ");
		join_values(json_object_get(x, "candidate"), buf, size, &n);
	}
	return json_array_size(d) > 0;
}

void compare_text(json_t *res, FILE *out)
{
	char us[1024];
	json_t *t, *cnt = json_object_get(res, "counts");
	size_t i;

	fprintf(out, "baseline: %llu bundles; candidate: %llu bundles; alpha %g (Holm-corrected)\n",
		compare_num(json_object_get(res, "baseline"), "bundles"),
		compare_num(json_object_get(res, "candidate"), "bundles"),
		json_real_value(json_object_get(res, "alpha")));
	if (compare_userspace_differs(res, us, sizeof(us)))
		fprintf(out, "warning: the sides ran different userspace, which may explain a difference: %s\n", us);
	for (size_t k = 0; k < ARRAY_SIZE(compare_classes); k++)
		fprintf(out, "%s%s %llu", k ? ", " : "", compare_classes[k], compare_num(cnt, compare_classes[k]));
	fputc('\n', out);
	compare_across_text(res, out);
	for (size_t k = 0; k < ARRAY_SIZE(compare_classes) - 1; k++) {
		bool head = false;

		json_array_foreach(json_object_get(res, "tests"), i, t) {
			if (!streq(compare_str(t, "class"), compare_classes[k]))
				continue;
			if (!head)
				fprintf(out, "\n%s:\n", compare_classes[k]);
			head = true;
			if (compare_together(t)) {
				/* crashes of tests together: counted, not runs to weigh with a p-value */
				fprintf(out, "  %-12s %s: %s\n", compare_str(t, "config"), compare_str(t, "test"),
					compare_str(t, "reason"));
				compare_why_text(t, "      ", out);
				continue;
			}
			fprintf(out, "  %-12s %-16s baseline ", compare_str(t, "config"), compare_str(t, "test"));
			side_text(json_object_get(t, "baseline"), out);
			fprintf(out, ", candidate ");
			side_text(json_object_get(t, "candidate"), out);
			if (streq(compare_classes[k], "regression") || streq(compare_classes[k], "fixed") ||
			    streq(compare_classes[k], "flaky"))
				fprintf(out, ", p=%.3g (adjusted %.3g)",
					json_real_value(json_object_get(
						t, streq(compare_classes[k], "fixed") ? "p_better" : "p_worse")),
					json_real_value(json_object_get(t, "p_adjusted")));
			if (*compare_str(t, "reason") && !streq(compare_classes[k], "regression") &&
			    !streq(compare_classes[k], "fixed"))
				fprintf(out, ": %s", compare_str(t, "reason"));
			fputc('\n', out);
			compare_why_text(t, "      ", out);
		}
	}
}

/* One test worse on the candidate over its configs together: "on 5 configs (1 a regression): ..." */
static void across_line(json_t *a, FILE *out)
{
	json_t *b = json_object_get(a, "baseline"), *k = json_object_get(a, "candidate");

	fprintf(out,
		"on %llu configs (%llu a regression): baseline %llu/%llu failed, candidate %llu/%llu, p=%.3g "
		"(adjusted %.3g)",
		compare_num(a, "configs"), compare_num(a, "regressions"), compare_num(b, "failures"),
		compare_num(b, "runs"), compare_num(k, "failures"), compare_num(k, "runs"),
		json_real_value(json_object_get(a, "p_worse")), json_real_value(json_object_get(a, "p_adjusted")));
}

void compare_across_text(json_t *res, FILE *out)
{
	json_t *a;
	size_t i;

	if (!json_array_size(json_object_get(res, "across_configs")))
		return;
	fputs("\nworse on the candidate over its configs together (runs pooled):\n", out);
	json_array_foreach(json_object_get(res, "across_configs"), i, a) {
		fprintf(out, "  %-16s ", compare_str(a, "test"));
		across_line(a, out);
		fputc('\n', out);
	}
}

/* The side whose failure says why: the candidate's, else the baseline's; NULL when neither failed. */
static const char *why_side(json_t *test, json_t **side)
{
	static const char *const names[] = { "candidate", "baseline" };

	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		*side = json_object_get(test, names[k]);
		if (*compare_str(*side, "why") || *compare_str(*side, "artifact"))
			return names[k];
	}
	return NULL;
}

void compare_why_text(json_t *test, const char *indent, FILE *out)
{
	json_t *side;
	const char *name = why_side(test, &side);

	if (!name)
		return;
	fprintf(out, "%s%s: %s", indent, name, *compare_str(side, "why") ? compare_str(side, "why") : "failed");
	if (*compare_str(side, "artifact"))
		fprintf(out, " (%s)", compare_str(side, "artifact"));
	fputc('\n', out);
}

void compare_why_html(json_t *test, FILE *out)
{
	json_t *side;
	const char *name = why_side(test, &side), *a;

	if (!name)
		return;
	fprintf(out, "<div class=\"how\">%s: <code>", name);
	markup_escape(out, *compare_str(side, "why") ? compare_str(side, "why") : "failed");
	fputs("</code>", out);
	if (*(a = compare_str(side, "artifact"))) {
		fputc(' ', out);
		markup_file_link(out, a);
	}
	fputs("</div>", out);
}

static double rate(json_t *side)
{
	unsigned long long r = compare_num(side, "runs");

	return r ? (double)compare_num(side, "passes") / (double)r : -1;
}

static double fail_rate(json_t *side)
{
	unsigned long long r = compare_num(side, "runs");

	return r ? (double)compare_num(side, "failures") / (double)r : -1;
}

struct grid_row {
	const char *test;
	int rank;     /* its most serious class on any config */
	double worst; /* its largest rise in failure rate */
};

static int cmp_grid_row(const void *a, const void *b)
{
	const struct grid_row *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->worst != y->worst)
		return x->worst > y->worst ? -1 : 1;
	return strcmp(x->test, y->test);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Tests x configs: each test that failed anywhere a row, the most serious
 * first, each cell its change of failure rate (candidate less baseline) in
 * its class's colour, the counts in its title. Returns 0 or -ENOMEM.
 */
static int grid(json_t *res, FILE *out, char ***cfgs)
{
	json_auto_t *cells = json_object(), *tests = json_object();
	char **configs;
	struct grid_row *rows = NULL;
	size_t i, k, n = 0;
	json_t *t;

	if (!cells || !*cfgs || !tests)
		return -ENOMEM;
	json_array_foreach(json_object_get(res, "tests"), i, t) {
		char key[512];

		if (!strv_contains(*cfgs, compare_str(t, "config")) && strv_push(cfgs, compare_str(t, "config")) < 0)
			return -ENOMEM;
		snprintf(key, sizeof(key), "%s\x1f%s", compare_str(t, "config"), compare_str(t, "test"));
		if (json_object_set(cells, key, t) < 0)
			return -ENOMEM;
		if (!streq(compare_str(t, "class"), "pass") &&
		    json_object_set_new(tests, compare_str(t, "test"), json_true()) < 0)
			return -ENOMEM;
	}
	if (!json_object_size(tests))
		return 0;
	configs = *cfgs;
	qsort(configs, strv_length(configs), sizeof(*configs), cmp_name);
	if (!(rows = calloc(json_object_size(tests), sizeof(*rows))))
		return -ENOMEM;
	{
		const char *name;
		json_t *v;

		json_object_foreach(tests, name, v) {
			rows[n] = (struct grid_row){ name, (int)ARRAY_SIZE(compare_classes), -2 };
			for (k = 0; configs[k]; k++) {
				char key[512];
				json_t *x;
				double rb, rc;

				snprintf(key, sizeof(key), "%s\x1f%s", configs[k], name);
				if (!(x = json_object_get(cells, key)) || streq(compare_str(x, "class"), "pass"))
					continue;
				if (compare_class_rank(compare_str(x, "class")) < rows[n].rank)
					rows[n].rank = compare_class_rank(compare_str(x, "class"));
				rb = fail_rate(json_object_get(x, "baseline"));
				rc = fail_rate(json_object_get(x, "candidate"));
				if (rb >= 0 && rc >= 0 && rc - rb > rows[n].worst)
					rows[n].worst = rc - rb;
			}
			n++;
		}
	}
	qsort(rows, n, sizeof(*rows), cmp_grid_row);
	fputs("<h2>Failure rate by test and config</h2>\n<p>Each cell: the candidate's failure rate less the "
	      "baseline's, coloured by the verdict (<span class=\"c regression\">regression</span> <span "
	      "class=\"c flaky\">flaky</span> <span class=\"c failing\">failing on both</span> <span class=\"c "
	      "fixed\">fixed</span> <span class=\"c not-comparable\">not comparable</span>); a blank cell: "
	      "passed every run on both sides; \"not run\": on one side or neither.</p>\n<table "
	      "id=\"grid\"><tr><th>test</th>",
	      out);
	for (k = 0; configs[k]; k++) {
		fputs("<th>", out);
		markup_escape(out, configs[k]);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (i = 0; i < n; i++) {
		fputs("<tr><td>", out);
		markup_escape(out, rows[i].test);
		fputs("</td>", out);
		for (k = 0; configs[k]; k++) {
			char key[512];
			json_t *x, *b, *kd;
			double rb, rc;

			snprintf(key, sizeof(key), "%s\x1f%s", configs[k], rows[i].test);
			x = json_object_get(cells, key);
			if (!x || streq(compare_str(x, "class"), "pass")) {
				fputs(x ? "<td></td>" : "<td class=\"c\">not run</td>", out);
				continue;
			}
			b = json_object_get(x, "baseline");
			kd = json_object_get(x, "candidate");
			if (compare_together(x)) {
				/* crashes no test's record holds: counted, no rate */
				fprintf(out,
					"<td class=\"c %s\" title=\"%s: crashed %llu times on the baseline, %llu on "
					"the "
					"candidate\">crashed %llu / %llu</td>",
					compare_str(x, "class"), compare_str(x, "class"), compare_num(b, "failures"),
					compare_num(kd, "failures"), compare_num(b, "failures"),
					compare_num(kd, "failures"));
				continue;
			}
			rb = fail_rate(b);
			rc = fail_rate(kd);
			fprintf(out, "<td class=\"c %s\" title=\"%s: baseline %llu/%llu failed, candidate %llu/%llu\">",
				compare_str(x, "class"), compare_str(x, "class"), compare_num(b, "failures"),
				compare_num(b, "runs"), compare_num(kd, "failures"), compare_num(kd, "runs"));
			if (rb < 0 || rc < 0)
				fputs("not run", out);
			else if (streq(compare_str(x, "class"), "failing"))
				fputs("all failed", out);
			else
				fprintf(out, "%+.0f%%", (rc - rb) * 100);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	free(rows);
	return 0;
}

static int html_grid(json_t *res, FILE *out)
{
	char **configs = strv_split("", ",");
	int r = grid(res, out, &configs);

	strv_free(configs);
	return r;
}

#define RATE_ROWS 60 /* a plot taller than that hides its point: the tables hold them all */

/* Pass rate on both sides for the tests that failed anywhere, one row each (the first RATE_ROWS). */
static void html_rates(json_t *res, FILE *out)
{
	json_t *t;
	size_t i, rows = 0, total;
	const int w = 640, row = 18, left = 260;

	/* a crash of tests together has crashes, not a pass rate */
	json_array_foreach(json_object_get(res, "tests"), i, t)
		rows += !streq(compare_str(t, "class"), "pass") && !compare_together(t);
	if (!rows) {
		bool crashes = false;

		json_array_foreach(json_object_get(res, "tests"), i, t)
			crashes |= compare_together(t) && !streq(compare_str(t, "class"), "pass");
		fputs(crashes ? "<p>No test's own runs failed on either side: the failures are crashes no test's "
				"record "
				"holds, counted in the tables above.</p>\n"
			      : "<p>No test failed on either side.</p>\n",
		      out);
		return;
	}
	if (rows > RATE_ROWS) {
		fprintf(out, "<p>The first %d of %zu, the most serious first; every one is in the tables above.</p>\n",
			RATE_ROWS, rows);
		rows = RATE_ROWS;
	}
	total = rows;
	fprintf(out, "<svg width=\"%d\" height=\"%zu\" role=\"img\" aria-label=\"pass rates\">\n", w + 130,
		rows * row + 30);
	for (int p = 0; p <= 100; p += 25)
		fprintf(out,
			"<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%zu\" class=\"grid\"/><text x=\"%d\" y=\"%zu\" "
			"class=\"ax\">%d%%</text>\n",
			left + p * (w - left - 20) / 100, left + p * (w - left - 20) / 100, rows * row,
			left + p * (w - left - 20) / 100 - 8, rows * row + 14, p);
	rows = 0;
	json_array_foreach(json_object_get(res, "tests"), i, t) {
		double rb = rate(json_object_get(t, "baseline")), rc = rate(json_object_get(t, "candidate"));
		int y = (int)rows * row;

		if (streq(compare_str(t, "class"), "pass") || compare_together(t))
			continue;
		if (rows == total)
			break;
		fprintf(out, "<text x=\"0\" y=\"%d\" class=\"lbl %s\">", y + 13, compare_str(t, "class"));
		markup_escape(out, compare_str(t, "config"));
		fputc(' ', out);
		markup_escape(out, compare_str(t, "test"));
		fputs("</text>\n", out);
		if (rb >= 0)
			fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"7\" class=\"base\"/>\n", left,
				y + 2, (int)(rb * (w - left - 20)));
		if (rc >= 0)
			fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"7\" class=\"cand\"/>\n", left,
				y + 9, (int)(rc * (w - left - 20)));
		/* the numbers too: a bar of 0% (failing every run) or none (not run) is no bar at all */
		fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"ax\">", w + 4, y + 13);
		if (rb >= 0)
			fprintf(out, "%.0f%%", rb * 100);
		else
			fputs("not run", out);
		fputs(" / ", out);
		if (rc >= 0)
			fprintf(out, "%.0f%%", rc * 100);
		else
			fputs("not run", out);
		fputs("</text>\n", out);
		rows++;
	}
	fputs("</svg>\n", out);
}

/* The 1, 2 or 5 times a power of ten nearest v at or above it (up) or at or below it. */
static double nice_step(double v, bool up)
{
	double d = pow(10, floor(log10(v))), best = up ? 10 * d : d;

	for (int k = 0; k < 3; k++) {
		double c = (k == 0 ? 1 : k == 1 ? 2 : 5) * d;

		if (up ? c >= v * (1 - 1e-12) && c < best : c <= v * (1 + 1e-12) && c > best)
			best = c;
	}
	return best;
}

/* Mean durations, baseline (x) against candidate (y), log scales: every test a dot. */
static void html_durations(json_t *res, FILE *out)
{
	const int size = 420, pad = 40;
	double lo = 1e9, hi = 0;
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(res, "tests"), i, t) {
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
	/* from the 1, 2 or 5 of a decade at or below the fastest to the one at or above the slowest: ticks at both ends
	 */
	lo = log10(nice_step(lo, false));
	hi = log10(nice_step(hi, true));
	if (hi - lo < 0.3)
		hi = lo + log10(2.5);
	fprintf(out,
		"<svg width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"durations\"><g "
		"transform=\"translate(0,10)\">\n",
		size + pad + 10, size + pad + 30);
	/* the axes, the diagonal (the same on both), a tick at 1, 2 and 5 of each decade, the axes' names */
	fprintf(out,
		"<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" class=\"axis\"/><line x1=\"%d\" y1=\"%d\" "
		"x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		pad, pad, size, pad, size, size + pad, size);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"0\" class=\"grid\"/>\n", pad, size, size + pad);
	for (int e = (int)floor(lo); e <= (int)ceil(hi); e++)
		for (int k = 0; k < 3; k++) {
			double v = (k == 0 ? 1 : k == 1 ? 2 : 5) * pow(10, e), l = log10(v);
			int x = pad + (int)((l - lo) / (hi - lo) * size), y = size - (int)((l - lo) / (hi - lo) * size);

			if (l < lo || l > hi)
				continue;
			fprintf(out,
				"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/><line x1=\"%d\" "
				"y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>",
				x, size, x, size + 4, pad - 4, y, pad, y);
			fprintf(out,
				"<text x=\"%d\" y=\"%d\" class=\"ax\">%gs</text><text x=\"0\" y=\"%d\" "
				"class=\"ax\">%gs</text>",
				x - 8, size + 14, v, y + 4, v);
			fputc('\n', out);
		}
	fprintf(out,
		"<text x=\"%d\" y=\"%d\" class=\"lbl\">baseline mean duration (s, log)</text>"
		"<text x=\"%d\" y=\"12\" class=\"lbl\">candidate mean duration (s, log)</text>\n",
		pad + size / 2 - 90, size + 32, pad + 6);
	json_array_foreach(json_object_get(res, "tests"), i, t) {
		double a = json_real_value(json_object_get(json_object_get(t, "baseline"), "duration_mean"));
		double b = json_real_value(json_object_get(json_object_get(t, "candidate"), "duration_mean"));

		if (a <= 0 || b <= 0)
			continue;
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" class=\"%s\"><title>",
			pad + (log10(a) - lo) / (hi - lo) * size, size - (log10(b) - lo) / (hi - lo) * size,
			compare_str(t, "class"));
		markup_escape(out, compare_str(t, "config"));
		fputc(' ', out);
		markup_escape(out, compare_str(t, "test"));
		fprintf(out, ": %.2fs / %.2fs</title></circle>\n", a, b);
	}
	fputs("</g></svg>\n", out);
}

void compare_html(json_t *res, FILE *out)
{
	json_t *t, *cnt = json_object_get(res, "counts");
	size_t i;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>fsagent compare</title>\n"
	      "<style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:2px 8px;"
	      "border-bottom:1px solid #ddd;text-align:left;vertical-align:top;white-space:nowrap}"
	      "td:last-child{white-space:normal;min-width:24em}.grid{stroke:#ddd}.ax{font-size:10px;fill:#666}"
	      ".lbl{font-size:12px}.base{fill:#7a9cc6}.cand{fill:#e08a3c}circle{fill:#999}circle.regression,"
	      "td.regression{fill:#c00;color:#c00;font-weight:bold}circle.flaky{fill:#e0a000}circle.fixed{fill:#090}"
	      "circle.failing{fill:#600}.axis{stroke:#444}.lbl.flaky,td.flaky{fill:#a06d00;color:#a06d00}"
	      ".lbl.fixed,td.fixed{fill:#090;color:#090}.lbl.failing,td.failing{fill:#600;color:#600}.how{color:#444;"
	      "font-size:90%;margin-top:2px}.how "
	      "code{white-space:pre-wrap}.key span{display:inline-block;width:12px;height:8px;margin:0 4px}"
	      "#grid td{text-align:right;min-width:0;white-space:nowrap}#grid td:first-child{text-align:left}"
	      ".c.regression{background:#f6c9c4}.c.flaky{background:#fbe5b0}.c.failing{background:#e2cccc}"
	      ".c.fixed{background:#cbe8cc}.c.not-comparable{background:#e4e4e4}span.c{padding:0 4px}</style>"
	      "</head><body>\n<h1>fsagent compare</h1>\n",
	      out);
	fprintf(out,
		"<p>baseline: %llu bundles; candidate: %llu bundles; alpha %g, Holm-corrected Fisher exact "
		"tests.</p>\n<p>",
		compare_num(json_object_get(res, "baseline"), "bundles"),
		compare_num(json_object_get(res, "candidate"), "bundles"),
		json_real_value(json_object_get(res, "alpha")));
	for (size_t k = 0; k < ARRAY_SIZE(compare_classes); k++)
		fprintf(out, "%s%s: %llu", k ? ", " : "", compare_classes[k], compare_num(cnt, compare_classes[k]));
	fputs("</p>\n", out);
	{
		char us[1024];

		if (compare_userspace_differs(res, us, sizeof(us))) {
			fputs("<p><b>The sides ran different userspace</b>, which may explain a difference: ", out);
			markup_escape(out, us);
			fputs("</p>\n", out);
		}
	}
	if (html_grid(res, out) < 0)
		fputs("<p>The grid of failure rates: out of memory.</p>\n", out);
	if (json_array_size(json_object_get(res, "across_configs"))) {
		json_t *a;

		fputs("<h2>Worse on the candidate over its configs together</h2>\n<p>Each config's runs pooled a "
		      "side: a failure spread over configs, flaky on each alone.</p>\n<table id=\"across\">",
		      out);
		json_array_foreach(json_object_get(res, "across_configs"), i, a) {
			fputs("<tr><td class=\"regression\">", out);
			markup_escape(out, compare_str(a, "test"));
			fputs("</td><td>", out);
			across_line(a, out);
			fputs("</td></tr>\n", out);
		}
		fputs("</table>\n", out);
	}
	fputs("<h2>Tests</h2>\n<table id=\"tests\"><tr><th>class</th><th>config</th><th>test</th><th>baseline "
	      "failed</th>"
	      "<th>candidate failed</th><th>p</th><th>adjusted p</th><th>why</th></tr>\n",
	      out);
	json_array_foreach(json_object_get(res, "tests"), i, t) {
		json_t *b = json_object_get(t, "baseline"), *c = json_object_get(t, "candidate");

		if (streq(compare_str(t, "class"), "pass"))
			continue;
		fprintf(out, "<tr><td class=\"%s\">%s</td><td>", compare_str(t, "class"), compare_str(t, "class"));
		markup_escape(out, compare_str(t, "config"));
		fputs("</td><td>", out);
		markup_escape(out, compare_str(t, "test"));
		fprintf(out, "</td><td>%llu/%llu</td><td>%llu/%llu</td>", compare_num(b, "failures"),
			compare_num(b, "runs"), compare_num(c, "failures"), compare_num(c, "runs"));
		if (compare_together(t))
			fputs("<td>-</td><td>-</td><td>", out);
		else
			fprintf(out, "<td>%.3g</td><td>%.3g</td><td>",
				json_real_value(json_object_get(
					t, streq(compare_str(t, "class"), "fixed") ? "p_better" : "p_worse")),
				json_real_value(json_object_get(t, "p_adjusted")));
		markup_escape(out, compare_str(t, "reason"));
		compare_why_html(t, out);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n<h2>Pass rate per test</h2>\n<p class=\"key\"><span class=\"base\" "
	      "style=\"background:#7a9cc6\">"
	      "</span>baseline <span style=\"background:#e08a3c\"></span>candidate (tests that failed anywhere; the "
	      "numbers at the right: baseline / candidate)</p>\n",
	      out);
	html_rates(res, out);
	fputs("<h2>Mean duration per test</h2>\n<p>baseline across, candidate up; above the diagonal is slower on the "
	      "candidate.</p>\n<p class=\"key\"><svg width=\"10\" height=\"10\"><circle cx=\"5\" cy=\"5\" r=\"3\" "
	      "class=\"regression\"/></svg> regression <svg width=\"10\" height=\"10\"><circle cx=\"5\" cy=\"5\" "
	      "r=\"3\" class=\"flaky\"/></svg> flaky <svg width=\"10\" height=\"10\"><circle cx=\"5\" cy=\"5\" "
	      "r=\"3\" class=\"fixed\"/></svg> fixed <svg width=\"10\" height=\"10\"><circle cx=\"5\" cy=\"5\" "
	      "r=\"3\" class=\"failing\"/></svg> failing <svg width=\"10\" height=\"10\"><circle cx=\"5\" "
	      "cy=\"5\" r=\"3\"/></svg> pass or not comparable</p>\n",
	      out);
	html_durations(res, out);
	fputs("</body></html>\n", out);
}
