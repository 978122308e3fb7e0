// SPDX-License-Identifier: MIT
/*
 * coverage --diff's result as text, as a plan and as a self-contained
 * HTML page (see coverage_diff.h).
 */
#include "analysis/coverage_diff.h"
#include "analysis/coverage_internal.h"
#include "util/macro.h"
#include "util/markup.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* "12-14, 20" from a sorted array of line numbers */
static void print_ranges(json_t *lines, FILE *out)
{
	size_t n = json_array_size(lines);

	for (size_t i = 0; i < n;) {
		json_int_t a = json_integer_value(json_array_get(lines, i)), b = a;
		size_t k = i + 1;

		while (k < n && json_integer_value(json_array_get(lines, k)) == b + 1)
			b = json_integer_value(json_array_get(lines, k++));
		fprintf(out, "%s%lld", i ? ", " : "", (long long)a);
		if (b > a)
			fprintf(out, "-%lld", (long long)b);
		i = k;
	}
}

void coverage_diff_text(json_t *summary, FILE *out)
{
	json_t *e;
	size_t i;
	json_int_t code = json_integer_value(json_object_get(summary, "lines_code")),
		   hit = json_integer_value(json_object_get(summary, "lines_reached"));

	fprintf(out,
		"coverage of %s (the coverage kernel as its %s): %lld changed lines of code, %lld reached by %zu "
		"tests, %lld by none",
		json_string_value(json_object_get(summary, "diff")),
		json_string_value(json_object_get(summary, "side")), (long long)code, (long long)hit,
		json_array_size(json_object_get(summary, "tests")), (long long)(code - hit));
	if (json_integer_value(json_object_get(summary, "lines_unmapped")))
		fprintf(out, ", %lld not in the coverage kernel's source",
			(long long)json_integer_value(json_object_get(summary, "lines_unmapped")));
	fputc('\n', out);
	if (json_array_size(json_object_get(summary, "tests")))
		fputs("tests reaching the change (changed lines of code reached, seconds):\n", out);
	json_array_foreach(json_object_get(summary, "tests"), i, e)
		fprintf(out, "  %-18s %5lld  %6.1f s\n", json_string_value(json_object_get(e, "test")),
			(long long)json_integer_value(json_object_get(e, "lines")),
			json_real_value(json_object_get(e, "seconds")));
	if (json_array_size(json_object_get(summary, "group"))) {
		fputs("the group reaching every reached line:", out);
		json_array_foreach(json_object_get(summary, "group"), i, e)
			fprintf(out, " %s", json_string_value(e));
		fprintf(out, " (%.1f s)\n", json_real_value(json_object_get(summary, "group_seconds")));
	}
	if (json_array_size(json_object_get(summary, "unreached")))
		fputs("changed lines of code no test reaches (new tests needed):\n", out);
	json_array_foreach(json_object_get(summary, "unreached"), i, e) {
		fprintf(out, "  %s %s(): line%s ", json_string_value(json_object_get(e, "file")),
			json_string_value(json_object_get(e, "function")),
			json_array_size(json_object_get(e, "lines")) > 1 ? "s" : "");
		print_ranges(json_object_get(e, "lines"), out);
		fputc('\n', out);
	}
	json_array_foreach(json_object_get(summary, "not_covered_files"), i, e)
		fprintf(out, "  %s: %s\n", json_string_value(json_object_get(e, "path")),
			json_string_value(json_object_get(e, "why")));
}

static bool in_group(json_t *res, const char *test)
{
	json_t *g;
	size_t i;

	json_array_foreach(json_object_get(res, "group"), i, g)
		if (streq(json_string_value(g), test))
			return true;
	return false;
}

/* The tests reaching the change, the group first, each once: fn(test, data). */
static void each_test(json_t *res, void (*fn)(const char *test, void *data), void *data)
{
	json_t *e, *group = json_object_get(res, "group");
	size_t i;

	json_array_foreach(group, i, e)
		fn(json_string_value(e), data);
	json_array_foreach(json_object_get(res, "tests"), i, e) {
		const char *t = json_string_value(json_object_get(e, "test"));

		if (!in_group(res, t))
			fn(t, data);
	}
}

/* s on one line of a plan or a list: control characters written as C escapes (a newline would start a key) */
static void put_escaped(const char *s, FILE *out)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			fputs("\\n", out);
		else if (c == '\\')
			fputs("\\\\", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

static void diff_header(json_t *res, FILE *out)
{
	fputs("# fsagent coverage --diff ", out);
	put_escaped(json_string_value(json_object_get(res, "diff")) ?: "", out);
	fprintf(out, ": %zu tests reach %lld of %lld changed lines of code\n",
		json_array_size(json_object_get(res, "tests")),
		(long long)json_integer_value(json_object_get(res, "lines_reached")),
		(long long)json_integer_value(json_object_get(res, "lines_code")));
}

static void put_word(const char *test, void *data)
{
	fprintf(data, " %s", test);
}

static void put_line(const char *test, void *data)
{
	fprintf(data, "%s\n", test);
}

void coverage_diff_plan(json_t *summary, FILE *out)
{
	diff_header(summary, out);
	fputs("tests =", out);
	each_test(summary, put_word, out);
	fputc('\n', out);
}

void coverage_diff_list(json_t *summary, FILE *out)
{
	diff_header(summary, out);
	each_test(summary, put_line, out);
}

static const char *s_of(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k)) ?: "";
}

/* One line of a hunk: its numbers, whether reached, by whom, its text. */
static void html_line(json_t *l, FILE *out)
{
	const char *kind = s_of(l, "kind");
	json_t *tests = json_object_get(l, "tests"), *t;
	bool code = json_is_true(json_object_get(l, "code"));
	const char *cls = !code ? (*kind == ' ' ? "ctx" : "plain") : json_array_size(tests) ? "hit" : "miss";
	json_int_t o = json_integer_value(json_object_get(l, "old")), n = json_integer_value(json_object_get(l, "new"));
	size_t i;

	fprintf(out, "<tr class=\"%s\"><td>", cls);
	if (o)
		fprintf(out, "%lld", (long long)o);
	fputs("</td><td>", out);
	if (n)
		fprintf(out, "%lld", (long long)n);
	fprintf(out, "</td><td>%s</td><td>", *kind == ' ' ? "" : kind);
	if (json_is_true(json_object_get(l, "unmapped")))
		fputs("not in the kernel's source", out);
	else if (code)
		fputs(json_array_size(tests) ? "reached" : "not reached", out);
	if (json_object_get(l, "judged_by"))
		fprintf(out, " (by line %lld)", (long long)json_integer_value(json_object_get(l, "judged_by")));
	fputs("</td><td>", out);
	json_array_foreach(tests, i, t) {
		fputs(i ? " " : "", out);
		markup_escape(out, json_string_value(t));
	}
	fputs("</td><td class=\"src\">", out);
	markup_escape(out, s_of(l, "text"));
	fputs("</td></tr>\n", out);
}

/* A hunk's entry without its lines. */
static json_t *hunk_json(const struct patch_hunk *h)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:o}", "old_start", (json_int_t)h->old_start, "old_len",
			 (json_int_t)h->old_len, "new_start", (json_int_t)h->new_start, "new_len",
			 (json_int_t)h->new_len, "section", coverage_text_json(h->section, strlen(h->section)));
}

/* The names of the tests that reached a judged line. */
static json_t *line_tests(const struct coverage *c, const struct coverage_diff_line *dl)
{
	json_t *tests = json_array();

	for (size_t i = 0; tests && dl->id >= 0 && i < c->nt; i++)
		if (coverage_test_reached(&c->t[i], (uint32_t)dl->id) &&
		    json_array_append_new(tests, coverage_text_json(c->t[i].name, strlen(c->t[i].name))) < 0) {
			json_decref(tests);
			return NULL;
		}
	return tests;
}

/* Line i of a file's hunks, with how it was judged: {kind, old, new, text, at | judged_by, code, function, tests,
 * unmapped}. */
static json_t *line_json(const struct coverage_diff *cd, const struct coverage_diff_file *df, size_t i)
{
	const struct patch_line *l = &df->f->lines[i];
	const struct coverage_diff_line *dl = &df->lines[i];
	const char *fn = coverage_diff_function(cd->c, dl);
	json_t *jl = json_pack("{s:s#, s:I, s:I, s:o}", "kind", &l->kind, 1, "old", (json_int_t)l->old_no, "new",
			       (json_int_t)l->new_no, "text", coverage_text_json(l->text, l->len));

	if (jl && dl->at &&
	    (json_object_set_new(jl, dl->judged_by ? "judged_by" : "at", json_integer(dl->at)) < 0 ||
	     json_object_set_new(jl, "code", json_boolean(dl->code >= 0)) < 0 ||
	     (dl->code >= 0 && (json_object_set_new(jl, "function", coverage_text_json(fn, strlen(fn))) < 0 ||
				json_object_set_new(jl, "tests", line_tests(cd->c, dl)) < 0))))
		goto fail;
	if (jl && dl->unmapped && json_object_set_new(jl, "unmapped", json_true()) < 0)
		goto fail;
	return jl;
fail:
	json_decref(jl);
	return NULL;
}

/* j as compact JSON; open: without its closing brace (members follow). 0 or -ENOMEM. */
static int put_json(json_t *j, bool open, FILE *out)
{
	_cleanup_free_ char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
	size_t n = s ? strlen(s) : 0;

	json_decref(j);
	if (!n)
		return -ENOMEM;
	fwrite(s, 1, open ? n - 1 : n, out);
	return 0;
}

/* A file's entry, its hunks and their lines one by one. */
static int file_json(const struct coverage_diff *cd, const struct coverage_diff_file *df, FILE *out)
{
	json_t *jf =
		json_pack("{s:o, s:s}", "path", coverage_text_json(df->path, strlen(df->path)), "status", df->status);
	int r = 0;

	if (!df->lines)
		return put_json(jf, false, out);
	if (jf && (json_object_set_new(jf, "lines_code", json_integer(df->code)) < 0 ||
		   json_object_set_new(jf, "lines_reached", json_integer(df->hit)) < 0 ||
		   json_object_set_new(jf, "lines_unmapped", json_integer(df->unmapped)) < 0)) {
		json_decref(jf);
		jf = NULL;
	}
	if (put_json(jf, true, out) < 0)
		return -ENOMEM;
	fputs(",\"hunks\":[", out);
	for (size_t k = 0; r >= 0 && k < df->f->nhunks; k++) {
		const struct patch_hunk *h = &df->f->hunks[k];

		fputs(k ? ",\n   " : "\n   ", out);
		if (put_json(hunk_json(h), true, out) < 0)
			return -ENOMEM;
		fputs(",\"lines\":[", out);
		for (size_t i = h->first; r >= 0 && i < h->first + h->n; i++) {
			fputs(i > h->first ? ",\n    " : "\n    ", out);
			r = put_json(line_json(cd, df, i), false, out);
		}
		fputs("]}", out);
	}
	fputs("]}", out);
	return r;
}

int coverage_diff_json(const struct coverage_diff *cd, FILE *out)
{
	_cleanup_free_ char *head = json_dumps(cd->summary, JSON_INDENT(1));
	size_t n = head ? strlen(head) : 0;
	int r = 0;

	if (n < 2 || head[n - 1] != '}')
		return -ENOMEM;
	head[n - 1] = '\0'; /* its members go on: the files */
	fprintf(out, "%s%s\"files\": [", head, n > 2 ? ",\n " : "");
	for (size_t i = 0; r >= 0 && i < cd->nfiles; i++) {
		fputs(i ? ",\n  " : "\n  ", out);
		r = file_json(cd, &cd->files[i], out);
	}
	fputs("\n ]\n}\n", out);
	return r;
}

int coverage_diff_html(const struct coverage_diff *cd, FILE *out)
{
	json_t *res = cd->summary;
	_cleanup_free_ char *summary = NULL;
	size_t len = 0, i, k, m;
	FILE *mem = open_memstream(&summary, &len);
	json_t *e;

	if (mem) {
		coverage_diff_text(res, mem);
		fclose(mem);
	}
	if (summary)
		summary[strcspn(summary, "\n")] = '\0';
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fsagent coverage --diff</title>\n<style>"
	      "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
	      "padding:1px 6px;text-align:left;vertical-align:top}.src{font-family:monospace;white-space:pre}"
	      ".hit{background:#dfd}.miss{background:#fdd}.plain{color:#666}#summary{font-size:110%;overflow-wrap:"
	      "anywhere}"
	      "</style></head><body>\n<h1>fsagent coverage --diff</h1>\n<p id=\"summary\">",
	      out);
	markup_escape(out, summary ? summary : "");
	fputs("</p>\n<h2>Tests reaching the change</h2>\n<table id=\"tests\"><tr><th>test</th><th>changed lines "
	      "reached</th><th>seconds</th><th>in the group</th></tr>\n",
	      out);
	json_array_foreach(json_object_get(res, "tests"), i, e) {
		fputs("<tr><td>", out);
		markup_escape(out, s_of(e, "test"));
		fprintf(out, "</td><td>%lld</td><td>%.1f</td><td>%s</td></tr>\n",
			(long long)json_integer_value(json_object_get(e, "lines")),
			json_real_value(json_object_get(e, "seconds")), in_group(res, s_of(e, "test")) ? "yes" : "");
	}
	fputs("</table>\n<h2>Changed lines no test reaches</h2>\n<ul id=\"unreached\">\n", out);
	json_array_foreach(json_object_get(res, "unreached"), i, e) {
		fputs("<li>", out);
		markup_escape(out, s_of(e, "file"));
		fputs(" ", out);
		markup_escape(out, s_of(e, "function"));
		fputs("(): ", out);
		print_ranges(json_object_get(e, "lines"), out);
		fputs("</li>\n", out);
	}
	json_array_foreach(json_object_get(res, "not_covered_files"), i, e) {
		fputs("<li>", out);
		markup_escape(out, s_of(e, "path"));
		fputs(": ", out);
		markup_escape(out, s_of(e, "why"));
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
	for (i = 0; i < cd->nfiles; i++) {
		const struct coverage_diff_file *df = &cd->files[i];

		if (!df->lines || !df->f->nhunks)
			continue;
		fputs("<h2>", out);
		markup_escape(out, df->path);
		fprintf(out, "</h2>\n<p>changed lines of code: %u, reached: %u</p>\n", df->code, df->hit);
		for (k = 0; k < df->f->nhunks; k++) {
			const struct patch_hunk *h = &df->f->hunks[k];
			json_t *section = coverage_text_json(h->section, strlen(h->section));

			fprintf(out,
				"<table class=\"hunk\"><tr><th>old</th><th>new</th><th></th><th>coverage</th>"
				"<th>reached by</th><th>@@ -%u +%u @@ ",
				h->old_start, h->new_start);
			markup_escape(out, json_string_value(section) ?: "");
			json_decref(section);
			fputs("</th></tr>\n", out);
			for (m = h->first; m < h->first + h->n; m++) {
				json_t *l = line_json(cd, df, m);

				if (!l)
					return -ENOMEM;
				html_line(l, out);
				json_decref(l);
			}
			fputs("</table>\n", out);
		}
	}
	fputs("</body></html>\n", out);
	return 0;
}
