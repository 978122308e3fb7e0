// SPDX-License-Identifier: MIT
/*
 * A bisection's outcome as JSON, text and HTML (see bisect_output.h).
 */
#include "analysis/bisect_output.h"
#include "util/macro.h"
#include "util/markup.h"

#include <math.h>
#include <string.h>

static json_t *commit_at(json_t *line, size_t i)
{
	return json_array_get(json_object_get(line, "commits"), i);
}

json_t *bisect_output_doc(json_t *line, const struct bisect *b, const struct bisect_step *st, const char *verdict,
			  json_t *log, unsigned long runs, unsigned long kernels, double seconds)
{
	size_t n = bisect_size(b);
	double good, bad;
	json_t *doc, *commits = json_array(), *group = json_array();

	bisect_rates(b, &good, &bad);
	for (size_t i = 0; commits && i < n; i++) {
		json_t *c = commit_at(line, i);
		double post = i ? bisect_posterior(b, i) : 0;

		if (!bisect_runs(b, i) && !bisect_skipped(b, i) && post < 0.001)
			continue;
		json_array_append_new(commits,
				      json_pack("{s:I, s:O, s:O, s:i, s:i, s:b, s:f}", "index", (json_int_t)i, "sha",
						json_object_get(c, "sha"), "subject", json_object_get(c, "subject"),
						"runs", (int)bisect_runs(b, i), "fails", (int)bisect_fails(b, i),
						"skipped", bisect_skipped(b, i), "posterior", post));
	}
	/* forward: the engine's first bad commit is the last that fails; the fix is the one after it, its parent in
	 * the line turned round */
	bool fw = json_is_true(json_object_get(line, "forward"));

	if (streq(verdict, "found"))
		for (size_t i = st->first - fw; group && i <= st->commit - fw; i++)
			json_array_append_new(group, json_pack("{s:I, s:O, s:O}", "index", (json_int_t)i, "sha",
							       json_object_get(commit_at(line, i), "sha"), "subject",
							       json_object_get(commit_at(line, i), "subject")));
	doc = json_pack("{s:s, s:s, s:O, s:O, s:O, s:O, s:O, s:i, s:s, s:s, s:o, s:f, s:f, s:{s:f, s:f}, s:I, s:I, "
			"s:f, s:o, s:O, s:O?}",
			"schema", BISECT_SCHEMA, "verdict", verdict, "tree", json_object_get(line, "tree"), "config",
			json_object_get(line, "config"), "tests", json_object_get(line, "tests"), "good",
			json_object_get(line, "good"), "bad", json_object_get(line, "bad"), "line_commits",
			(int)(n - 1), "why", st->why ? st->why : "", "confirmed",
			!streq(verdict, "found") ? ""
			: fw ? "the commit before the fix failed, the fix passed as often as the old rate needs to show"
			     : "the culprit failed, its parent passed as often as the rates say",
			fw ? "fixes" : "culprits", group, "confidence", st->confidence, "no_change",
			bisect_posterior(b, 0), "rates", "good", good, "bad", bad, "runs", (json_int_t)runs, "kernels",
			(json_int_t)kernels, "seconds", seconds, "commits", commits, "decisions", log, "ends",
			json_object_get(line, "ends"));
	if (doc && fw &&
	    (json_object_set_new(doc, "forward", json_true()) < 0 ||
	     json_object_set_new(doc, "culprits", json_array()) < 0)) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

static const char *s_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)) ?: "";
}

/* The ends' runs taken from a qualification, in words ("" when none). */
static void ends_text(json_t *doc, FILE *out)
{
	json_t *e = json_object_get(doc, "ends"), *g = json_object_get(e, "good"), *b = json_object_get(e, "bad");

	if (!json_is_object(e))
		return;
	fprintf(out,
		"the ends' runs from the qualification %s (not counted above): the good end failed %lld of %lld, "
		"the bad end %lld of %lld",
		s_of(e, "from"), (long long)json_integer_value(json_object_get(g, "fails")),
		(long long)json_integer_value(json_object_get(g, "runs")),
		(long long)json_integer_value(json_object_get(b, "fails")),
		(long long)json_integer_value(json_object_get(b, "runs")));
}

/* The line searched: its good end(s), its bad end, the commits between, the tree. */
static void line_text(json_t *doc, FILE *out)
{
	json_t *g = json_object_get(doc, "good"), *x;
	size_t i;

	if (json_is_true(json_object_get(doc, "forward"))) {
		fprintf(out, "fails at %.12s, passes at %.12s, %lld commits from one to the other, in %s",
			json_string_value(json_array_get(g, 0)) ?: "", s_of(doc, "bad"),
			(long long)json_integer_value(json_object_get(doc, "line_commits")), s_of(doc, "tree"));
		return;
	}
	fputs("good end ", out);
	if (json_is_array(g))
		json_array_foreach(g, i, x)
			fprintf(out, "%s%.12s", i ? ", " : "", json_string_value(x) ?: "");
	else
		fprintf(out, "%.12s", s_of(doc, "good"));
	fprintf(out, ", bad end %.12s, %lld commits from one to the other, in %s", s_of(doc, "bad"),
		(long long)json_integer_value(json_object_get(doc, "line_commits")), s_of(doc, "tree"));
}

/* The entry of the line's commit at index, or NULL (no runs there). */
static json_t *commit_of(json_t *doc, json_int_t index)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(doc, "commits"), i, c)
		if (json_integer_value(json_object_get(c, "index")) == index)
			return c;
	return NULL;
}

static void verdict_text(json_t *doc, FILE *out)
{
	const char *v = s_of(doc, "verdict");
	bool fw = json_is_true(json_object_get(doc, "forward"));
	json_t *g = json_object_get(doc, fw ? "fixes" : "culprits"), *c;
	const char *what = fw ? "first commit it passes from" : "first bad commit";
	size_t i;

	fprintf(out, "bisect %s", s_of(doc, "config"));
	json_array_foreach(json_object_get(doc, "tests"), i, c)
		fprintf(out, " %s", json_string_value(c));
	fputs(": ", out);
	if (streq(v, "found") && json_array_size(g) == 1) {
		c = json_array_get(g, 0);
		fprintf(out, "%s %.12s \"%s\"", what, s_of(c, "sha"), s_of(c, "subject"));
	} else if (streq(v, "found")) {
		fprintf(out, "%s one of", what);
		json_array_foreach(g, i, c)
			fprintf(out, "%s %.12s \"%s\"", i ? "," : "", s_of(c, "sha"), s_of(c, "subject"));
		fputs(" (the others could not be built or tested)", out);
	} else if (streq(v, "no-difference")) {
		/* no culprit: what was measured at the ends, no confidence in a commit that is not named */
		json_t *good = commit_of(doc, 0),
		       *bad = commit_of(doc, json_integer_value(json_object_get(doc, "line_commits")));

		fprintf(out,
			fw ? "the ends do not differ: the newer failed %lld of %lld, the older %lld of %lld"
			   : "the ends do not differ: the good end failed %lld of %lld, the bad end %lld of %lld",
			(long long)json_integer_value(json_object_get(good, "fails")),
			(long long)json_integer_value(json_object_get(good, "runs")),
			(long long)json_integer_value(json_object_get(bad, "fails")),
			(long long)json_integer_value(json_object_get(bad, "runs")));
		return;
	} else {
		fprintf(out, "undecided: %s", s_of(doc, "why"));
		return;
	}
	fprintf(out, " (confidence %.4f)", json_number_value(json_object_get(doc, "confidence")));
}

/* The rates on either side of a culprit (only when one is named), then what was spent. */
static void spent_text(json_t *doc, FILE *out)
{
	json_t *rates = json_object_get(doc, "rates");

	if (streq(s_of(doc, "verdict"), "found")) {
		/* forward: the engine's good side is from the fix on */
		bool fw = json_is_true(json_object_get(doc, "forward"));

		fprintf(out, "failure rate %.3f before it, %.3f from it on; ",
			json_number_value(json_object_get(rates, fw ? "bad" : "good")),
			json_number_value(json_object_get(rates, fw ? "good" : "bad")));
	}
	fprintf(out, "%lld runs, %lld kernels built, %.0f s",
		(long long)json_integer_value(json_object_get(doc, "runs")),
		(long long)json_integer_value(json_object_get(doc, "kernels")),
		json_number_value(json_object_get(doc, "seconds")));
}

static bool not_run(json_t *c)
{
	return !json_is_true(json_object_get(c, "skipped")) && !json_integer_value(json_object_get(c, "runs"));
}

/*
 * Where a stretch of commits starting at i that were not run, one after
 * the other with the same posterior, ends (one past); i + 1 when there is
 * none of 3 or more: 40 rows of nothing become one.
 */
static size_t not_run_until(json_t *commits, size_t i)
{
	json_t *c = json_array_get(commits, i), *e;
	size_t k = i + 1;

	if (!not_run(c))
		return k;
	while ((e = json_array_get(commits, k)) && not_run(e) &&
	       json_integer_value(json_object_get(e, "index")) ==
		       json_integer_value(json_object_get(c, "index")) + (json_int_t)(k - i) &&
	       fabs(json_number_value(json_object_get(e, "posterior")) -
		    json_number_value(json_object_get(c, "posterior"))) < 1e-9)
		k++;
	return k - i >= 3 ? k : i + 1;
}

void bisect_output_text(json_t *doc, FILE *out)
{
	json_t *c;
	size_t i;

	verdict_text(doc, out);
	fputs("\n  ", out);
	line_text(doc, out);
	fputs("\n  ", out);
	spent_text(doc, out);
	putc('\n', out);
	if (json_is_object(json_object_get(doc, "ends"))) {
		fputs("  ", out);
		ends_text(doc, out);
		putc('\n', out);
	}
	fprintf(out, "  %-5s %-12s %6s %6s %9s  %s\n", "at", "commit", "runs", "fails", "posterior", "subject");
	json_array_foreach(json_object_get(doc, "commits"), i, c) {
		size_t end = not_run_until(json_object_get(doc, "commits"), i);

		if (end > i + 1) {
			fprintf(out, "  %lld-%lld: %zu commits not run, %.4f each\n",
				(long long)json_integer_value(json_object_get(c, "index")),
				(long long)json_integer_value(json_object_get(c, "index")) + (long long)(end - i - 1),
				end - i, json_number_value(json_object_get(c, "posterior")));
			i = end - 1;
			continue;
		}
		fprintf(out, "  %-5lld %-12.12s ", (long long)json_integer_value(json_object_get(c, "index")),
			s_of(c, "sha"));
		if (json_is_true(json_object_get(c, "skipped")))
			fprintf(out, "%13s", "skipped");
		else if (!json_integer_value(json_object_get(c, "runs")))
			fprintf(out, "%13s", "not run");
		else
			fprintf(out, "%6lld %6lld", (long long)json_integer_value(json_object_get(c, "runs")),
				(long long)json_integer_value(json_object_get(c, "fails")));
		fprintf(out, " %9.4f  %s\n", json_number_value(json_object_get(c, "posterior")), s_of(c, "subject"));
	}
}

/*
 * The posterior over the commits as bars, the oldest at the left: the
 * culprits' bars red, each commit that ran marked under the axis (red when
 * a run failed there, green when all passed, grey when skipped).
 */
static void html_posterior(json_t *doc, FILE *out)
{
	json_t *commits = json_object_get(doc, "commits"), *c, *d;
	size_t n = json_array_size(commits), i, k;
	const int w = 800, h = 160, left = 40, top = 10;
	/* forward: the line turned round, newest first; the fix marked, which follows the last that fails */
	bool fw = json_is_true(json_object_get(doc, "forward"));
	const char *marked = fw ? "fixes" : "culprits";
	long long first, last;
	double bw;

	if (!n)
		return;
	/* the list holds the commits that matter (the ends, those run, those likely): placed by their index */
	first = json_integer_value(json_object_get(json_array_get(commits, 0), "index"));
	last = json_integer_value(json_object_get(json_array_get(commits, n - 1), "index"));
	if (last < first)
		return;
	bw = (double)w / (double)(last - first + 1);
	fprintf(out,
		"<h2>Where the %s is</h2>\n<p class=\"key\"><span style=\"background:#7a9cc6\"></span>the "
		"probability that the commit is %s <span style=\"background:#c00\"></span>the "
		"%s%s; under the axis, each commit that ran: <span style=\"background:#c00\"></span>a run "
		"failed <span style=\"background:#090\"></span>every run passed <span "
		"style=\"background:#aaa\"></span>skipped</p>\n<svg id=\"posterior\" width=\"%d\" height=\"%d\" "
		"role=\"img\" aria-label=\"posterior over the commits\">\n",
		fw ? "fix" : "culprit", fw ? "the last that fails (the fix is the one after it)" : "the first bad one",
		fw ? "fix" : "culprit", json_array_size(json_object_get(doc, marked)) > 1 ? "s" : "", w + left + 20,
		h + top + 50);
	for (int p = 0; p <= 4; p++) {
		int y = top + h - p * h / 4;

		fprintf(out,
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"grid\"/><text x=\"0\" y=\"%d\" "
			"class=\"ax\">%.2f</text>\n",
			left, y, left + w, y, y + 4, p / 4.0);
	}
	json_array_foreach(commits, i, c) {
		double post = json_number_value(json_object_get(c, "posterior"));
		double x = left + bw * (double)(json_integer_value(json_object_get(c, "index")) - first);
		bool culprit = false;
		long long runs = json_integer_value(json_object_get(c, "runs"));

		json_array_foreach(json_object_get(doc, marked), k, d)
			culprit |= streq(s_of(d, "sha"), s_of(c, "sha"));
		if (post > 0 || culprit)
			fprintf(out,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" class=\"%s\"><title>%lld "
				"%.12s: %.4f</title></rect>\n",
				x, top + h - post * h, bw > 2 ? bw - 1 : bw, post * h, culprit ? "pc" : "pp",
				(long long)json_integer_value(json_object_get(c, "index")), s_of(c, "sha"), post);
		if (json_is_true(json_object_get(c, "skipped")) || runs > 0)
			fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"6\" class=\"%s\"/>\n", x,
				top + h + 3, bw > 2 ? bw - 1 : bw,
				json_is_true(json_object_get(c, "skipped"))	  ? "ms"
				: json_integer_value(json_object_get(c, "fails")) ? "mf"
										  : "mp");
	}
	fprintf(out,
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n<text x=\"%d\" y=\"%d\" "
		"class=\"ax\">%lld (%s)</text><text x=\"%d\" y=\"%d\" class=\"ax\" "
		"text-anchor=\"end\">%lld (%s)</text>\n<text x=\"%d\" y=\"%d\" class=\"ax\" "
		"text-anchor=\"middle\">the commits by their place in the line, %s first</text>\n</svg>\n",
		left, top + h, left + w, top + h, left, top + h + 24, first, fw ? "where it passes" : "the good end",
		left + w, top + h + 24, last, fw ? "where it fails" : "the bad end", left + w / 2, top + h + 42,
		fw ? "newest" : "oldest");
}

void bisect_output_html(json_t *doc, FILE *out)
{
	json_t *c, *d;
	size_t i;

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fsagent bisect</title>\n<style>"
	      "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
	      "padding:2px 6px;text-align:left}.culprit{background:#fdd}.skipped{color:#888}.grid{stroke:#ddd}"
	      ".axis{stroke:#444}.ax{font-size:10px;fill:#666}.pp{fill:#7a9cc6}.pc{fill:#c00}.mf{fill:#c00}"
	      ".mp{fill:#090}.ms{fill:#aaa}.key span{display:inline-block;width:12px;height:8px;margin:0 4px}"
	      "</style></head><body>\n",
	      out);
	markup_escape_printed(out, "<h1 id=\"verdict\">", verdict_text, doc, "</h1>\n");
	markup_escape_printed(out, "<p id=\"line\">", line_text, doc, "</p>\n");
	markup_escape_printed(out, "<p id=\"spent\">", spent_text, doc, "</p>\n");
	if (json_is_object(json_object_get(doc, "ends")))
		markup_escape_printed(out, "<p id=\"ends\">", ends_text, doc, "</p>\n");
	html_posterior(doc, out);
	fputs("<h2>Commits</h2>\n<table id=\"commits\"><tr><th>at</th><th>commit</th><th>runs</th><th>failed</th>"
	      "<th>posterior</th><th>subject</th></tr>\n",
	      out);
	json_array_foreach(json_object_get(doc, "commits"), i, c) {
		size_t end = not_run_until(json_object_get(doc, "commits"), i);
		bool culprit = false;
		size_t k;

		if (end > i + 1) {
			fprintf(out,
				"<tr class=\"skipped\"><td>%lld-%lld</td><td colspan=\"3\">%zu commits not run</td>"
				"<td>%.4f each</td><td></td></tr>\n",
				(long long)json_integer_value(json_object_get(c, "index")),
				(long long)json_integer_value(json_object_get(c, "index")) + (long long)(end - i - 1),
				end - i, json_number_value(json_object_get(c, "posterior")));
			i = end - 1;
			continue;
		}

		json_array_foreach(
			json_object_get(doc, json_is_true(json_object_get(doc, "forward")) ? "fixes" : "culprits"), k,
			d)
			culprit |= streq(s_of(d, "sha"), s_of(c, "sha"));
		fprintf(out, "<tr class=\"%s\"><td>%lld</td><td>%.12s</td>",
			culprit					      ? "culprit"
			: json_is_true(json_object_get(c, "skipped")) ? "skipped"
								      : "",
			(long long)json_integer_value(json_object_get(c, "index")), s_of(c, "sha"));
		if (json_is_true(json_object_get(c, "skipped")))
			fputs("<td colspan=\"2\">skipped</td>", out);
		else if (!json_integer_value(json_object_get(c, "runs")))
			fputs("<td colspan=\"2\">not run</td>", out);
		else
			fprintf(out, "<td>%lld</td><td>%lld</td>",
				(long long)json_integer_value(json_object_get(c, "runs")),
				(long long)json_integer_value(json_object_get(c, "fails")));
		fprintf(out, "<td>%.4f</td><td>", json_number_value(json_object_get(c, "posterior")));
		markup_escape(out, s_of(c, "subject"));
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n<h2>Decisions, in order</h2>\n<ol id=\"decisions\">\n", out);
	json_array_foreach(json_object_get(doc, "decisions"), i, d) {
		fprintf(out, "<li>%.12s: ", s_of(d, "commit"));
		if (json_is_true(json_object_get(d, "built")))
			fputs("built", out);
		else if (json_object_get(d, "skip"))
			markup_escape(out, s_of(d, "skip"));
		else
			fprintf(out, "%s, %lld of %lld runs failed", s_of(d, "phase"),
				(long long)json_integer_value(json_object_get(d, "fails")),
				(long long)json_integer_value(json_object_get(d, "runs")));
		fprintf(out, " (%.0f s)", json_number_value(json_object_get(d, "seconds")));
		/* how its first failure went, and the file that shows it */
		if (*s_of(d, "why")) {
			fputs(": <code>", out);
			markup_escape(out, s_of(d, "why"));
			fputs("</code>", out);
			if (*s_of(d, "artifact")) {
				fputs(" <a href=\"", out);
				markup_escape(out, s_of(d, "artifact"));
				fputs("\">", out);
				markup_escape(out, strrchr(s_of(d, "artifact"), '/')
							   ? strrchr(s_of(d, "artifact"), '/') + 1
							   : s_of(d, "artifact"));
				fputs("</a>", out);
			}
		}
		/* the probe's own files, beside this page: what it printed, the bundles of its runs */
		if (json_is_integer(json_object_get(d, "probe")) && !json_is_true(json_object_get(d, "built")))
			fprintf(out,
				": <a href=\"probes/%lld/log\">log</a>, <a href=\"probes/%lld/results\">results</a>",
				(long long)json_integer_value(json_object_get(d, "probe")),
				(long long)json_integer_value(json_object_get(d, "probe")));
		fputs("</li>\n", out);
	}
	fputs("</ol>\n</body></html>\n", out);
}
