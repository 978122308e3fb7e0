// SPDX-License-Identifier: MIT
/*
 * A qualification (see qualify.h) as text for a terminal and as a
 * self-contained HTML page; guest-written names are escaped.
 */
#include "analysis/qualify.h"
#include "util/macro.h"
#include "util/markup.h"

#include <stdio.h>
#include <string.h>

static double real(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static void kernels(json_t *doc, const char *side, FILE *out)
{
	const char *k;
	json_t *v;
	bool first = true;

	json_object_foreach(json_object_get(json_object_get(doc, side), "kernels"), k, v) {
		fprintf(out, "%s%s", first ? "" : ", ", k);
		first = false;
	}
	if (first)
		fputs("no bundle", out);
}

static void evidence(json_t *t, FILE *out)
{
	json_t *b = json_object_get(t, "baseline"), *k = json_object_get(t, "candidate");

	fprintf(out, "baseline %llu/%llu failed, candidate %llu/%llu failed", compare_num(b, "failures"),
		compare_num(b, "runs"), compare_num(k, "failures"), compare_num(k, "runs"));
}

static void runs_line(json_t *doc, FILE *out)
{
	json_t *runs = json_object_get(doc, "runs");
	unsigned long long fixed = compare_num(doc, "fixed_protocol_runs");

	fprintf(out, "%llu runs (baseline %llu, candidate %llu)", compare_num(runs, "total"),
		compare_num(runs, "baseline"), compare_num(runs, "candidate"));
	if (compare_num(runs, "earlier"))
		fprintf(out, " and %llu earlier runs of the baseline's kernel", compare_num(runs, "earlier"));
	if (fixed)
		fprintf(out, ", %.0f%% of the %llu a fixed 30-runs-per-side protocol spends",
			100.0 * (double)compare_num(runs, "total") / (double)fixed, fixed);
}

/* "12 tests x 5", "3 tests x 5 to 20 (35 runs)", "the plan's tests x 21" (round 0), "none" */
static void side_round(json_t *round, json_t *side, FILE *out)
{
	unsigned long long tests = compare_num(side, "tests"), iters = compare_num(side, "iterations");
	unsigned long long runs = compare_num(side, "runs");

	if (!iters)
		fputs("none", out);
	else if (!compare_num(round, "round"))
		fprintf(out, "the plan's tests x %llu", iters);
	else if (runs && runs < tests * iters)
		fprintf(out, "%llu tests x up to %llu (%llu runs)", tests, iters, runs);
	else
		fprintf(out, "%llu tests x %llu", tests, iters);
}

void qualify_round_text(json_t *round, FILE *out)
{
	fprintf(out, "%llu: baseline ", compare_num(round, "round"));
	side_round(round, json_object_get(round, "baseline"), out);
	fputs(", candidate ", out);
	side_round(round, json_object_get(round, "candidate"), out);
}

void qualify_text(json_t *doc, FILE *out)
{
	json_t *t, *r, *cnt = json_object_get(doc, "counts");
	size_t i;

	fputs("baseline: ", out);
	kernels(doc, "baseline", out);
	fputs("; candidate: ", out);
	kernels(doc, "candidate", out);
	fprintf(out, "\nalpha %g over %llu looks, regressions of %g%% or more missed at most %g%% of the time\n",
		real(doc, "alpha"), compare_num(doc, "rounds_max") + 1, real(doc, "min_rate") * 100,
		real(doc, "miss") * 100);
	{
		char us[1024];

		if (compare_userspace_differs(doc, us, sizeof(us)))
			fprintf(out, "warning: the sides ran different userspace, which may explain a difference: %s\n",
				us);
	}
	json_array_foreach(json_object_get(doc, "rounds"), i, r) {
		fputs("round ", out);
		qualify_round_text(r, out);
		fputc('\n', out);
	}
	for (size_t c = 0; c < ARRAY_SIZE(qualify_classes) - 1; c++) {
		bool head = false;

		json_array_foreach(json_object_get(doc, "tests"), i, t) {
			if (!streq(compare_str(t, "verdict"), qualify_classes[c]))
				continue;
			if (!head)
				fprintf(out, "\n%s:\n", qualify_classes[c]);
			head = true;
			fprintf(out, "  %-12s %-16s ", compare_str(t, "config"), compare_str(t, "test"));
			evidence(t, out);
			if (streq(qualify_classes[c], "regression") || streq(qualify_classes[c], "fixed"))
				fprintf(out, ", adjusted p=%.3g", real(t, "p_adjusted"));
			if (*compare_str(t, "reason") && !streq(qualify_classes[c], "regression") &&
			    !streq(qualify_classes[c], "fixed"))
				fprintf(out, ": %s", compare_str(t, "reason"));
			if (compare_num(t, "runs_to_decide"))
				fprintf(out, "; about %llu runs a side would decide it",
					compare_num(t, "runs_to_decide"));
			fputc('\n', out);
			compare_why_text(t, "      ", out);
		}
	}
	fputs("\nverdicts: ", out);
	for (size_t c = 0; c < ARRAY_SIZE(qualify_classes); c++)
		fprintf(out, "%s%s %llu", c ? ", " : "", qualify_classes[c], compare_num(cnt, qualify_classes[c]));
	fputs("\nruns: ", out);
	runs_line(doc, out);
	fprintf(out, "\nstopped: %s\n", compare_str(doc, "stopped"));
}

/* A side's failure rate as a bar with its 0..100% scale. */
static void bar(json_t *side, const char *cls, FILE *out)
{
	unsigned long long r = compare_num(side, "runs");
	double rate = r ? (double)compare_num(side, "failures") / (double)r : 0;

	fprintf(out,
		"<svg width=\"104\" height=\"10\"><rect x=\"0\" y=\"1\" width=\"100\" height=\"8\" class=\"bg\"/>"
		"<rect x=\"0\" y=\"1\" width=\"%.0f\" height=\"8\" class=\"%s\"/></svg> %.0f%%",
		rate * 100, cls, rate * 100);
}

void qualify_html(json_t *doc, FILE *out)
{
	json_t *t, *r, *cnt = json_object_get(doc, "counts");
	size_t i;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>fsagent qualify</title>\n"
	      "<style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:2px 8px;"
	      "border-bottom:1px solid #ddd;text-align:left;vertical-align:top;white-space:nowrap}"
	      "td:last-child{white-space:normal;min-width:24em}.how{color:#444;font-size:90%;margin-top:2px}"
	      ".how code{white-space:pre-wrap}.bg{fill:#eee}.base{fill:#7a9cc6}"
	      ".cand{fill:#e08a3c}td.regression{color:#c00;font-weight:bold}td.undecided{color:#a60}"
	      "td.fixed{color:#090}</style></head><body>\n<h1>fsagent qualify</h1>\n<p>baseline: ",
	      out);
	kernels(doc, "baseline", out);
	fputs("; candidate: ", out);
	kernels(doc, "candidate", out);
	fprintf(out,
		"</p>\n<p>alpha %g over %llu looks (Holm-corrected Fisher exact tests at %g each); a regression "
		"of %g%% or more missed at most %g%% of the time.</p>\n<p>",
		real(doc, "alpha"), compare_num(doc, "rounds_max") + 1, real(doc, "look_alpha"),
		real(doc, "min_rate") * 100, real(doc, "miss") * 100);
	for (size_t c = 0; c < ARRAY_SIZE(qualify_classes); c++)
		fprintf(out, "%s%s: %llu", c ? ", " : "", qualify_classes[c], compare_num(cnt, qualify_classes[c]));
	fputs("</p>\n<p>", out);
	runs_line(doc, out);
	fputs("; stopped: ", out);
	markup_escape(out, compare_str(doc, "stopped"));
	fputs("</p>\n<h2>Rounds</h2>\n<table><tr><th>round</th><th>baseline</th><th>candidate</th></tr>\n", out);
	json_array_foreach(json_object_get(doc, "rounds"), i, r) {
		json_t *b = json_object_get(r, "baseline"), *k = json_object_get(r, "candidate");

		fprintf(out, "<tr><td>%llu</td><td>", compare_num(r, "round"));
		side_round(r, b, out);
		fputs("</td><td>", out);
		side_round(r, k, out);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n<h2>Verdicts and their evidence</h2>\n<table><tr><th>verdict</th><th>config</th><th>test</th>"
	      "<th>baseline failed</th><th>candidate failed</th><th>adjusted p</th><th>why</th></tr>\n",
	      out);
	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		json_t *b = json_object_get(t, "baseline"), *k = json_object_get(t, "candidate");

		if (streq(compare_str(t, "verdict"), "pass"))
			continue;
		fprintf(out, "<tr><td class=\"%s\">%s</td><td>", compare_str(t, "verdict"), compare_str(t, "verdict"));
		markup_escape(out, compare_str(t, "config"));
		fputs("</td><td>", out);
		markup_escape(out, compare_str(t, "test"));
		fprintf(out, "</td><td>%llu/%llu ", compare_num(b, "failures"), compare_num(b, "runs"));
		bar(b, "base", out);
		fprintf(out, "</td><td>%llu/%llu ", compare_num(k, "failures"), compare_num(k, "runs"));
		bar(k, "cand", out);
		fprintf(out, "</td><td>%.3g</td><td>", real(t, "p_adjusted"));
		markup_escape(out, compare_str(t, "reason"));
		if (compare_num(t, "runs_to_decide"))
			fprintf(out, "; about %llu runs a side would decide it", compare_num(t, "runs_to_decide"));
		compare_why_html(t, out);
		fputs("</td></tr>\n", out);
	}
	fprintf(out, "</table>\n<p>%llu tests passed on both sides.</p>\n", compare_num(cnt, "pass"));
	if (*compare_str(doc, "expunge_suggested")) {
		fputs("<h2>Expunge suggestion</h2>\n<p>The tests that failed every run on both sides: ", out);
		markup_escape(out, compare_str(doc, "expunge_suggested"));
		fputs("</p>\n", out);
	}
	fputs("</body></html>\n", out);
}
