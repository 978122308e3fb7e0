// SPDX-License-Identifier: MIT
/*
 * Lines reached per file and directory (see coverage_report.h).
 */
#include "analysis/coverage_report.h"
#include "analysis/coverage_internal.h"
#include "util/macro.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct tally {
	struct strmap names;
	unsigned *code, *reached;
	size_t cap;
};

static int count(struct tally *t, const char *name, bool reached)
{
	long id = strmap_put(&t->names, name, NULL);

	if (id < 0)
		return -ENOMEM;
	if ((size_t)id >= t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		unsigned *c = realloc(t->code, cap * sizeof(*c)), *r;

		if (!c)
			return -ENOMEM;
		t->code = c;
		r = realloc(t->reached, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		t->reached = r;
		memset(t->code + t->cap, 0, (cap - t->cap) * sizeof(*c));
		memset(t->reached + t->cap, 0, (cap - t->cap) * sizeof(*r));
		t->cap = cap;
	}
	t->code[id]++;
	t->reached[id] += reached;
	return 0;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "path")),
		      json_string_value(json_object_get(*(json_t *const *)b, "path")));
}

/* The tally as a JSON array sorted by path. */
static json_t *rows(const struct tally *t)
{
	json_t **v = calloc(t->names.n ? t->names.n : 1, sizeof(*v)), *a = json_array();

	if (!v || !a) {
		free(v);
		json_decref(a);
		return NULL;
	}
	for (size_t i = 0; i < t->names.n; i++)
		v[i] = json_pack("{s:s, s:i, s:i}", "path", t->names.keys[i], "lines_code", (int)t->code[i],
				 "lines_reached", (int)t->reached[i]);
	qsort(v, t->names.n, sizeof(*v), cmp_path);
	for (size_t i = 0; i < t->names.n; i++)
		json_array_append_new(a, v[i]);
	free(v);
	return a;
}

static void release(struct tally *t)
{
	strmap_release(&t->names);
	free(t->code);
	free(t->reached);
}

json_t *coverage_report(struct coverage *c)
{
	struct tally files = { 0 }, dirs = { 0 };
	unsigned code = 0, reached = 0;
	json_t *res = NULL;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < c->code.n; i++) {
		const char *key = c->code.keys[i], *rel = coverage_rel(c, key), *colon = strrchr(rel, ':');
		char file[PATH_MAX], *slash;
		bool hit = strmap_get(&c->lines, key) >= 0;

		snprintf(file, sizeof(file), "%.*s", colon ? (int)(colon - rel) : (int)strlen(rel), rel);
		r = count(&files, file, hit);
		slash = strrchr(file, '/');
		if (slash)
			*slash = '\0';
		if (r >= 0)
			r = count(&dirs, slash ? file : ".", hit);
		code++;
		reached += hit;
	}
	if (r >= 0)
		res = json_pack("{s:s, s:s, s:i, s:i, s:o*, s:o*}", "schema", COVERAGE_REPORT_SCHEMA, "root", c->root,
				"lines_code", (int)code, "lines_reached", (int)reached, "dirs", rows(&dirs), "files",
				rows(&files));
	release(&files);
	release(&dirs);
	return res;
}

static double pct(json_t *o)
{
	json_int_t code = json_integer_value(json_object_get(o, "lines_code"));

	return code ? 100.0 * (double)json_integer_value(json_object_get(o, "lines_reached")) / (double)code : 0;
}

void coverage_report_text(json_t *res, FILE *out)
{
	json_t *e;
	size_t i;

	fprintf(out, "coverage: %lld of %lld lines of code reached (%.1f%%)\n",
		(long long)json_integer_value(json_object_get(res, "lines_reached")),
		(long long)json_integer_value(json_object_get(res, "lines_code")), pct(res));
	json_array_foreach(json_object_get(res, "dirs"), i, e)
		fprintf(out, "  %-40s %6lld of %6lld  %5.1f%%\n", json_string_value(json_object_get(e, "path")),
			(long long)json_integer_value(json_object_get(e, "lines_reached")),
			(long long)json_integer_value(json_object_get(e, "lines_code")), pct(e));
}
