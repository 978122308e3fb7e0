// SPDX-License-Identifier: MIT
/*
 * fsagent fixes' answer in words (see fixes_output.h).
 */
#include "analysis/fixes_output.h"
#include "util/macro.h"
#include "util/markup.h"

#include <stdlib.h>
#include <string.h>

static const char *s_of(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k)) ?: "";
}

/* How a candidate applied to the failing revision (engine/fixes_apply.h), when it was tried. */
static void apply_text(json_t *a, const char *head, FILE *out)
{
	const char *v = s_of(a, "verdict");
	json_t *x;
	size_t i;

	if (!a)
		return;
	if (streq(v, "cannot apply")) {
		fprintf(out, "      cannot apply to %.12s: %s\n", head, s_of(a, "reason"));
		return;
	}
	fprintf(out, "      applies to %.12s", head);
	if (json_array_size(json_object_get(a, "after"))) {
		fputs(" after", out);
		json_array_foreach(json_object_get(a, "after"), i, x)
			fprintf(out, "%s %.12s", i ? "," : "", json_string_value(x) ?: "");
		fprintf(out, " (alone: %s)", s_of(a, "reason"));
	} else {
		fputs(" cleanly", out);
	}
	fprintf(out, ", as %.12s\n", s_of(a, "commit"));
}

void fixes_proof_runs(json_t *p, FILE *out)
{
	json_t *h = json_object_get(p, "head"), *k = json_object_get(p, "patched");

	fprintf(out, "%lld of %lld runs fail with it (was %lld of %lld)",
		json_integer_value(json_object_get(k, "fails")), json_integer_value(json_object_get(k, "runs")),
		json_integer_value(json_object_get(h, "fails")), json_integer_value(json_object_get(h, "runs")));
}

/* What a candidate's runs said (engine/fixes_prove.h), when it was proven. */
static void proof_text(json_t *p, FILE *out)
{
	json_t *k = json_object_get(p, "patched");
	const char *v = s_of(p, "verdict");

	if (!p)
		return;
	if (streq(v, "cannot build")) {
		fprintf(out, "      cannot build: %s\n", s_of(p, "why"));
		return;
	}
	fprintf(out, "      %s: ", v);
	fixes_proof_runs(p, out);
	if (*s_of(p, "why"))
		fprintf(out, "; %s", s_of(p, "why"));
	fputc('\n', out);
	if (*s_of(k, "why"))
		fprintf(out, "        with it: %s (%s)\n", s_of(k, "why"), s_of(k, "artifact"));
}

/* The proof's conclusion: the first candidate proven to fix the test, or that none was. */
static void proof_summary(json_t *res, FILE *out)
{
	json_t *pr = json_object_get(res, "proof"), *f;
	size_t i;

	if (!pr)
		return;
	json_array_foreach(json_object_get(res, "fixes"), i, f) {
		json_t *p = json_object_get(f, "proof");

		if (streq(s_of(p, "verdict"), "fixes")) {
			fprintf(out, "%s %s: fixed by %.12s \"%s\", %s, ", s_of(pr, "config"), s_of(pr, "test"),
				s_of(f, "id"), s_of(f, "subject"),
				json_array_size(json_object_get(json_object_get(f, "apply"), "after"))
					? "applies after the candidates before it"
					: "applies cleanly");
			fixes_proof_runs(p, out);
			fputc('\n', out);
			return;
		}
	}
	fprintf(out, "%s %s: no candidate is shown to fix it\n", s_of(pr, "config"), s_of(pr, "test"));
}

void fixes_text(json_t *res, FILE *out)
{
	json_t *c = json_object_get(res, "culprit"), *u = json_object_get(res, "upstream"), *f;
	size_t i, n = json_array_size(json_object_get(res, "fixes"));

	if (!c) {
		/* an mbox's patches: no culprit, every patch a candidate */
		fprintf(out, "%zu patch%s of %s, in its order:\n", n, n == 1 ? "" : "es", s_of(res, "mbox"));
		json_array_foreach(json_object_get(res, "fixes"), i, f) {
			fprintf(out, "  %.12s \"%s\"\n", s_of(f, "id"), s_of(f, "subject"));
			apply_text(json_object_get(f, "apply"), s_of(res, "head"), out);
			proof_text(json_object_get(f, "proof"), out);
		}
		proof_summary(res, out);
		return;
	}
	fprintf(out, "culprit %.12s \"%s\": upstream %.12s \"%s\" (%s)\n", s_of(c, "sha"), s_of(c, "subject"),
		s_of(u, "id"), s_of(u, "subject"), s_of(u, "how"));
	if (!n) {
		fprintf(out, "no commit in %s says it fixes it (Fixes: %.12s)\n", s_of(res, "range"), s_of(u, "id"));
		return;
	}
	if (json_is_true(json_object_get(res, "ranked")))
		fprintf(out,
			"candidates from %s: those naming it in Fixes:, then those touching its files, then the "
			"rest, oldest first in each:\n",
			s_of(res, "range"));
	else
		fprintf(out, "fixed upstream in %s, oldest first (Fixes: naming it, then those fixing them):\n",
			s_of(res, "range"));
	json_array_foreach(json_object_get(res, "fixes"), i, f) {
		/* two lines a fix: a kernel subject is up to 75 columns, the terminal 100 */
		if (json_object_get(f, "rank"))
			fprintf(out, "  %.12s \"%s\"\n      %s; ", s_of(f, "id"), s_of(f, "subject"), s_of(f, "rank"));
		else
			fprintf(out, "  %.12s \"%s\"\n      Fixes: %.12s; ", s_of(f, "id"), s_of(f, "subject"),
				s_of(f, "of"));
		if (json_is_string(json_object_get(f, "in_stable")))
			fprintf(out, "in the stable tree already, as %.12s\n", s_of(f, "in_stable"));
		else
			fputs("not in the stable tree: a candidate\n", out);
		apply_text(json_object_get(f, "apply"), s_of(res, "head"), out);
		proof_text(json_object_get(f, "proof"), out);
	}
	fprintf(out, "%lld candidate%s to backport\n",
		(long long)json_integer_value(json_object_get(res, "candidates")),
		json_integer_value(json_object_get(res, "candidates")) == 1 ? "" : "s");
	proof_summary(res, out);
}

/* The page's heading: the proof's conclusion, else how many candidates there are. */
static void conclusion_text(json_t *res, FILE *out)
{
	long long n = json_integer_value(json_object_get(res, "candidates"));

	if (json_object_get(res, "proof"))
		proof_summary(res, out);
	else
		fprintf(out, "%lld candidate%s to backport\n", n, n == 1 ? "" : "s");
}

static void culprit_text(json_t *res, FILE *out)
{
	json_t *c = json_object_get(res, "culprit"), *u = json_object_get(res, "upstream");

	if (c)
		fprintf(out, "culprit %.12s \"%s\": upstream %.12s \"%s\" (%s); the failing revision %.12s",
			s_of(c, "sha"), s_of(c, "subject"), s_of(u, "id"), s_of(u, "subject"), s_of(u, "how"),
			s_of(res, "head"));
	else
		fprintf(out, "the patches of %s; the failing revision %.12s", s_of(res, "mbox"), s_of(res, "head"));
}

/* A cell of words, escaped. */
static void cell(FILE *out, const char *s)
{
	fputs("<td>", out);
	markup_escape(out, s);
	fputs("</td>", out);
}

void fixes_html(json_t *res, FILE *out)
{
	json_t *f;
	size_t i;

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fsagent fixes</title>\n<style>"
	      "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
	      "padding:2px 6px;text-align:left;vertical-align:top}tr.fixes{background:#dfd}.why{color:#444;"
	      "font-size:90%}</style></head><body>\n",
	      out);
	markup_escape_printed(out, "<h1 id=\"verdict\">", conclusion_text, res, "</h1>\n");
	markup_escape_printed(out, "<p id=\"culprit\">", culprit_text, res, "</p>\n");
	fputs("<table id=\"candidates\"><tr><th>candidate</th><th>subject</th><th>why</th><th>applies</th>"
	      "<th>proof</th></tr>\n",
	      out);
	json_array_foreach(json_object_get(res, "fixes"), i, f) {
		json_t *a = json_object_get(f, "apply"), *p = json_object_get(f, "proof");
		char why[160];

		if (json_object_get(f, "rank"))
			snprintf(why, sizeof(why), "%s", s_of(f, "rank"));
		else if (json_object_get(f, "of"))
			snprintf(why, sizeof(why), "Fixes: %.12s", s_of(f, "of"));
		else
			snprintf(why, sizeof(why), "in the mbox");
		fprintf(out, "<tr class=\"%s\"><td><code>%.12s</code></td>",
			streq(s_of(p, "verdict"), "fixes") ? "fixes" : "", s_of(f, "id"));
		cell(out, s_of(f, "subject"));
		cell(out, why);
		if (json_is_string(json_object_get(f, "in_stable"))) {
			fprintf(out, "<td colspan=\"2\">in the stable tree already, as <code>%.12s</code></td></tr>\n",
				s_of(f, "in_stable"));
			continue;
		}
		fputs("<td>", out);
		markup_escape(out, a ? s_of(a, "verdict") : "not tried");
		if (*s_of(a, "reason")) {
			fputs("<div class=\"why\">", out);
			markup_escape(out, s_of(a, "reason"));
			fputs("</div>", out);
		}
		fputs("</td><td>", out);
		if (p) {
			markup_escape(out, s_of(p, "verdict"));
			if (json_integer_value(json_object_get(json_object_get(p, "patched"), "runs"))) {
				fputs(": ", out);
				fixes_proof_runs(p, out);
			}
			if (*s_of(p, "why")) {
				fputs("<div class=\"why\">", out);
				markup_escape(out, s_of(p, "why"));
				fputs("</div>", out);
			}
			/* how it failed with the patch, first */
			if (*s_of(json_object_get(p, "patched"), "why")) {
				fputs("<div class=\"why\">with it: ", out);
				markup_escape(out, s_of(json_object_get(p, "patched"), "why"));
				fputs("</div>", out);
			}
		} else {
			fputs(a && !json_object_get(a, "commit") ? "" : "not proven", out);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n</body></html>\n", out);
}
