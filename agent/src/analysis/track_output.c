// SPDX-License-Identifier: MIT
/*
 * The branch watch's status page (scripts/fsagent-watch, fsagent track; see
 * track_output.h).
 */
#include "analysis/track_output.h"
#include "analysis/fixes_output.h"
#include "util/macro.h"
#include "util/markup.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *s_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)) ?: "";
}

static long long n_of(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static void esc(FILE *out, const char *s)
{
	markup_escape(out, s);
}

static void page_link(FILE *out, json_t *rv, const char *rel, const char *text);

/* Bisection i's upstream fix (fsagent track --upstream), when it was looked for, linking the page of its candidates. */
static void fix_html(FILE *out, json_t *rv, size_t i, json_t *fx)
{
	char rel[64];

	json_t *fix = json_object_get(fx, "fix"), *a = json_object_get(fix, "apply"),
	       *pr = json_object_get(fix, "proof");

	if (!fx)
		return;
	fputs("<div class=\"fix\">", out);
	if (json_is_object(fix)) {
		bool fixes = !pr || streq(s_of(pr, "verdict"), "fixes");

		fprintf(out, "%s <code>%.12s</code> ",
			fixes ? "fixed upstream by" : "no upstream fix proven:", s_of(fix, "id"));
		esc(out, s_of(fix, "subject"));
		fputs(streq(s_of(a, "verdict"), "applies")	   ? ", applies cleanly"
		      : streq(s_of(a, "verdict"), "applies after") ? ", applies after other candidates"
								   : ", does not apply",
		      out);
		if (pr && !fixes) {
			fputs(", ", out);
			esc(out, s_of(pr, "verdict"));
		}
		if (json_integer_value(json_object_get(json_object_get(pr, "patched"), "runs"))) {
			fputs(", ", out);
			fixes_proof_runs(pr, out);
		}
		snprintf(rel, sizeof(rel), "/fixes-%zu/fixes.html", i);
		fputs(" (", out);
		page_link(out, rv, rel, "the candidates");
		fputc(')', out);
	} else {
		fputs("no upstream fix: ", out);
		esc(out, s_of(fx, "why"));
	}
	fputs("</div>", out);
}

/* A link to the page at rv's path + rel, its text escaped. */
static void page_link(FILE *out, json_t *rv, const char *rel, const char *text)
{
	fputs("<a href=\"", out);
	esc(out, s_of(rv, "path"));
	esc(out, rel);
	fputs("\">", out);
	esc(out, text);
	fputs("</a>", out);
}

static void regressions(FILE *out, json_t *rv)
{
	json_t *b, *g;
	size_t i;

	json_array_foreach(json_object_get(rv, "regressions"), i, g) {
		char rel[64];

		b = json_array_get(json_object_get(rv, "bisections"), i);
		fputs("<div class=\"regression\">", out);
		esc(out, s_of(g, "config"));
		fputc(' ', out);
		esc(out, s_of(g, "test"));
		fputs(": ", out);
		if (!b) {
			fputs("bisecting", out);
		} else if (streq(s_of(b, "verdict"), "found")) {
			json_t *c, *cs = json_object_get(b, "culprits");
			size_t k;

			fputs(json_array_size(cs) > 1 ? "one of " : "", out);
			json_array_foreach(cs, k, c) {
				fprintf(out, "%s<code>%.12s</code> ", k ? ", " : "", s_of(c, "sha"));
				esc(out, s_of(c, "subject"));
			}
		} else {
			esc(out, s_of(b, "verdict"));
			if (*s_of(b, "why")) {
				fputs(" (", out);
				esc(out, s_of(b, "why"));
				fputc(')', out);
			}
		}
		if (b && *s_of(b, "bisect")) {
			snprintf(rel, sizeof(rel), "/bisect-%zu/bisect.html", i);
			fputs(" (", out);
			page_link(out, rv, rel, "bisection");
			fputc(')', out);
		}
		/* its upstream fix under the culprit, in the words of a note, not the regression's red */
		if (b)
			fix_html(out, rv, i, json_object_get(b, "fixes"));
		/* how it failed on the candidate, first, and the file to read */
		if (*s_of(g, "why")) {
			const char *a = s_of(g, "artifact");

			fputs("<div class=\"how\">", out);
			esc(out, s_of(g, "why"));
			if (*a) {
				fputc(' ', out);
				markup_file_link(out, a);
			}
			fputs("</div>", out);
		}
		fputs("</div>", out);
	}
}

static void soak(FILE *out, json_t *rv)
{
	json_t *sk = json_object_get(rv, "soak"), *f;
	size_t i;

	if (!sk) {
		fputs("</td><td>", out);
		return;
	}
	fprintf(out, "%.1f h, %zu boots, %lld runs</td><td>", json_number_value(json_object_get(sk, "seconds")) / 3600,
		json_array_size(json_object_get(sk, "boots")), n_of(sk, "runs"));
	json_array_foreach(json_object_get(sk, "findings"), i, f) {
		if (!json_is_true(json_object_get(f, "first")))
			continue;
		fprintf(out, "<div class=\"%s\">",
			json_is_true(json_object_get(f, "in_qualification")) ? "seen" : "new");
		esc(out, s_of(f, "config"));
		fputc(' ', out);
		esc(out, s_of(f, "test"));
		fprintf(out, " failed %lld/%lld, boot %lld, seed %lld%s</div>", n_of(f, "failures"), n_of(f, "runs"),
			n_of(f, "boot"), n_of(f, "seed"),
			json_is_true(json_object_get(f, "in_qualification")) ? "" : " (not in its qualification)");
	}
}

static void row(FILE *out, json_t *rv)
{
	json_t *c = json_object_get(rv, "counts");
	const char *v = s_of(rv, "verdict");

	fputs("<tr><td>", out);
	esc(out, s_of(rv, "name"));
	fprintf(out, "<br><code>%.12s</code>", s_of(rv, "sha"));
	if (*s_of(rv, "moved_to"))
		fprintf(out,
			"<div class=\"moved\">tag moved to <code>%.12s</code> after it was taken: the verdicts "
			"are for <code>%.12s</code></div>",
			s_of(rv, "moved_to"), s_of(rv, "sha"));
	fputs("</td><td class=\"t\">", out);
	esc(out, s_of(rv, "seen"));
	fputs("</td><td>", out);
	if (json_object_get(rv, "why"))
		esc(out, s_of(rv, "why"));
	else if (json_object_get(rv, "build_seconds"))
		fprintf(out, "built in %.0f s", json_number_value(json_object_get(rv, "build_seconds")));
	else
		fputs("waiting", out);
	/* the verdict as a class name: words joined by '-' */
	fputs("</td><td class=\"v-", out);
	for (const char *p = *v ? v : "waiting"; *p; p++)
		fputc(*p == ' ' ? '-' : *p, out);
	fputs("\">", out);
	esc(out, *v ? v : s_of(rv, "state"));
	/* the step under way, with when it began */
	if (*s_of(rv, "step")) {
		fputs("<div class=\"step\">", out);
		esc(out, s_of(rv, "step"));
		fputs("</div>", out);
	}
	fputs("</td><td>", out);
	esc(out, s_of(rv, "baseline"));
	fputs("</td><td>", out);
	regressions(out, rv);
	fputs("</td><td>", out);
	if (c)
		fprintf(out, "%lld flaky, %lld failing, %lld pass, %lld undecided; %lld runs", n_of(c, "flaky"),
			n_of(c, "failing"), n_of(c, "pass"), n_of(c, "undecided"), n_of(rv, "runs"));
	if (*s_of(rv, "qualify")) {
		fputs(" (", out);
		page_link(out, rv, "/qualify/qualify.html", "qualification");
		fputc(')', out);
	}
	fputs("</td><td>", out);
	soak(out, rv);
	fputs("</td></tr>\n", out);
}

/* The entry of list (an array of {config, test, ...}) for config and test, or NULL. */
static json_t *entry_of(json_t *list, const char *config, const char *test)
{
	json_t *e;
	size_t i;

	json_array_foreach(list, i, e)
		if (streq(s_of(e, "config"), config) && streq(s_of(e, "test"), test))
			return e;
	return NULL;
}

/* "config\x1ftest" of each test that failed in a revision's qualification or soak, in the order first seen. */
static int failed_anywhere(json_t *revs, json_t *keys)
{
	json_t *rv, *e;
	size_t i, k;

	json_array_foreach(revs, i, rv) {
		json_t *lists[] = { json_object_get(rv, "failed"),
				    json_object_get(json_object_get(rv, "soak"), "findings") };

		for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
			json_array_foreach(lists[l], k, e) {
				char key[512];

				snprintf(key, sizeof(key), "%s\x1f%s", s_of(e, "config"), s_of(e, "test"));
				if (!json_object_get(keys, key) &&
				    json_object_set_new(keys, key, json_integer((json_int_t)json_object_size(keys))) <
					    0)
					return -ENOMEM;
			}
	}
	return 0;
}

/* One cell of the history: the test on rv, its qualification's outcome and its soak's. */
static void history_cell(FILE *out, json_t *rv, const char *config, const char *test)
{
	json_t *f = entry_of(json_object_get(rv, "failed"), config, test), *sk, *e;
	bool reg = entry_of(json_object_get(rv, "regressions"), config, test) != NULL;
	size_t i;

	if (!json_object_get(rv, "failed")) {
		/* not qualified (the start, a build that failed, not yet) */
		fputs("<td class=\"h-none\">", out);
	} else {
		fprintf(out, "<td class=\"h-%s\">", reg ? "regression" : f ? "failed" : "pass");
		fputs(reg ? "regression" : f ? "failed" : "pass", out);
		if (f && json_object_get(f, "runs"))
			fprintf(out, " %lld/%lld", n_of(f, "failures"), n_of(f, "runs"));
	}
	sk = json_object_get(rv, "soak");
	json_array_foreach(json_object_get(sk, "findings"), i, e) {
		char rel[96];

		if (!streq(s_of(e, "config"), config) || !streq(s_of(e, "test"), test))
			continue;
		snprintf(rel, sizeof(rel), "/soak/%lld/results/", n_of(e, "boot"));
		fputs("<div class=\"h-soak\">", out);
		page_link(out, rv, rel, "soak");
		fprintf(out, " %lld/%lld, boot %lld</div>", n_of(e, "failures"), n_of(e, "runs"), n_of(e, "boot"));
	}
	fputs("</td>", out);
}

/*
 * Tests by revisions, the oldest first (as KernelCI shows a tree's history):
 * each test that failed in a qualification or a soak a row, each cell what
 * the revision's candidate runs and soak boots made of it, a soak finding
 * linking to its boot's results.
 */
static void history(FILE *out, json_t *revs)
{
	json_auto_t *keys = json_object();
	const char **order;
	const char *key;
	json_t *v, *rv;
	size_t i, n;

	if (!keys || failed_anywhere(revs, keys) < 0 || !(n = json_object_size(keys)))
		return;
	if (!(order = calloc(n, sizeof(*order))))
		return;
	json_object_foreach(keys, key, v)
		order[json_integer_value(v)] = key;
	fputs("<h2>History by test</h2>\n<p>Each test that failed in a qualification or a soak, the oldest "
	      "revision first: <span class=\"h-regression\">regression</span> <span class=\"h-failed\">failed "
	      "F of N runs</span> (not a regression) <span class=\"h-pass\">pass</span>; a blank cell: the "
	      "revision was not qualified; \"soak\" links to the boot's results.</p>\n<table id=\"history\"><tr>"
	      "<th>test</th>",
	      out);
	json_array_foreach(revs, i, rv) {
		fputs("<th>", out);
		esc(out, s_of(rv, "name"));
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (size_t k = 0; k < n; k++) {
		const char *sep = strchr(order[k], '\x1f');
		_cleanup_free_ char *config = strndup(order[k], (size_t)(sep - order[k]));

		if (!config)
			break;
		fputs("<tr><td>", out);
		esc(out, config);
		fputc(' ', out);
		esc(out, sep + 1);
		fputs("</td>", out);
		json_array_foreach(revs, i, rv)
			history_cell(out, rv, config, sep + 1);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	free(order);
}

/* What the watch is at: each step under way, with the revision it is for. */
static void now(FILE *out, json_t *revs)
{
	json_t *rv;
	size_t i;
	bool any = false;

	fputs("<p class=\"now\">Now: ", out);
	json_array_foreach(revs, i, rv) {
		if (!*s_of(rv, "step"))
			continue;
		fputs(any ? "; " : "", out);
		esc(out, s_of(rv, "name"));
		fputs(": ", out);
		esc(out, s_of(rv, "step"));
		any = true;
	}
	fputs(any ? ".</p>\n" : "nothing under way.</p>\n", out);
}

void track_html(json_t *doc, FILE *out)
{
	json_t *revs = json_object_get(doc, "revisions"), *f = json_object_get(doc, "follow");

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>fsagent-watch</title>\n"
	      "<style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:2px 8px;"
	      "border-bottom:1px solid #ddd;text-align:left;vertical-align:top}td.v-regression,.regression,.new"
	      "{color:#c00;font-weight:bold}.how,.step,.fix{color:#444;font-weight:normal;font-size:90%}td.v-cannot-"
	      "build{"
	      "color:#"
	      "a60}.h-regression{background:#f6c9c4}.h-failed{background:#fbe5b0}.h-pass{background:#d8eed9}"
	      ".h-none{background:#f4f4f4}.h-soak{font-size:90%}#history td,.t{white-space:nowrap}</style></head>"
	      "<body>\n"
	      "<h1>fsagent-watch</h1>\n<p>",
	      out);
	esc(out, s_of(doc, "tree"));
	fputs(": ", out);
	if (*s_of(f, "tags")) {
		fputs("tags ", out);
		esc(out, s_of(f, "tags"));
	} else {
		fputs("branch ", out);
		esc(out, s_of(f, "branch"));
	}
	fputs("; baseline now ", out);
	esc(out, *s_of(doc, "baseline") ? s_of(doc, "baseline") : "none");
	fprintf(out, "; %zu revisions, %lld with a regression. ", json_array_size(revs), n_of(doc, "regressions"));
	/* a time is never cut in two by the line's end */
	fputs("<span class=\"t\">Updated ", out);
	esc(out, *s_of(doc, "updated") ? s_of(doc, "updated") : "(unknown)");
	fputs("</span>.</p>\n", out);
	now(out, revs);
	fputs("<table><tr><th>revision</th><th>seen</th><th>build</th><th>verdict</th><th>against</th>"
	      "<th>regressions and culprits</th><th>qualification</th><th>soak</th><th>soak findings</th></tr>\n",
	      out);
	for (size_t i = json_array_size(revs); i-- > 0;)
		row(out, json_array_get(revs, i));
	fputs("</table>\n", out);
	history(out, revs);
	fputs("</body></html>\n", out);
}
