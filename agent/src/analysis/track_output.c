// SPDX-License-Identifier: MIT
/*
 * fsagent track's status page (see track_output.h).
 */
#include "analysis/track_output.h"
#include "util/macro.h"
#include "util/markup.h"

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
	fputs("</td><td>", out);
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

void track_html(json_t *doc, FILE *out)
{
	json_t *revs = json_object_get(doc, "revisions"), *f = json_object_get(doc, "follow");

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>fsagent track</title>\n"
	      "<style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:2px 8px;"
	      "border-bottom:1px solid #ddd;text-align:left;vertical-align:top}td.v-regression,.regression,.new"
	      "{color:#c00;font-weight:bold}.how,.step{color:#444;font-weight:normal;font-size:90%}td.v-cannot-build{"
	      "color:#"
	      "a60}</style></head><body>\n"
	      "<h1>fsagent track</h1>\n<p>",
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
	fprintf(out, "; %zu revisions, %lld with a regression.</p>\n", json_array_size(revs), n_of(doc, "regressions"));
	fputs("<table><tr><th>revision</th><th>seen</th><th>build</th><th>verdict</th><th>against</th>"
	      "<th>regressions and culprits</th><th>qualification</th><th>soak</th><th>soak findings</th></tr>\n",
	      out);
	for (size_t i = json_array_size(revs); i-- > 0;)
		row(out, json_array_get(revs, i));
	fputs("</table>\n</body></html>\n", out);
}
