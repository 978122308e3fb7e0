// SPDX-License-Identifier: MIT
/*
 * Coverage-driven test selection (see coverage.h): lines interned as
 * integers, one sorted array of them per test, and a lazy greedy cover.
 */
#include "analysis/coverage_internal.h"
#include "model/bundle.h"
#include "model/result.h"
#include "util/macro.h"
#include "util/strmap.h"
#include "util/strv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- lines and tests ----------------------------------------------------- */

int coverage_new(struct coverage **ret)
{
	*ret = calloc(1, sizeof(**ret));
	if (*ret && !((*ret)->lost = json_array())) {
		free(*ret);
		*ret = NULL;
	}
	return *ret ? 0 : -ENOMEM;
}

json_t *coverage_lost(const struct coverage *c)
{
	return c->lost;
}

void coverage_free(struct coverage *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nt; i++) {
		free(c->t[i].name);
		free(c->t[i].ids);
		strv_free(c->t[i].configs);
	}
	strmap_release(&c->lines);
	strmap_release(&c->code);
	strmap_release(&c->fns);
	strmap_release(&c->files);
	free(c->code_fn);
	free(c->t);
	json_decref(c->lost);
	free(c);
}

static struct coverage_test *find_test(struct coverage *c, const char *name, bool add)
{
	for (size_t i = 0; i < c->nt; i++)
		if (streq(c->t[i].name, name))
			return &c->t[i];
	if (!add)
		return NULL;
	if (c->nt == c->capt) {
		struct coverage_test *nv = realloc(c->t, (c->capt = c->capt ? c->capt * 2 : 64) * sizeof(*nv));

		if (!nv)
			return NULL;
		c->t = nv;
	}
	memset(&c->t[c->nt], 0, sizeof(c->t[c->nt]));
	c->t[c->nt].name = strdup(name);
	c->t[c->nt].configs = strv_split("", ",");
	if (!c->t[c->nt].name || !c->t[c->nt].configs)
		return NULL;
	return &c->t[c->nt++];
}

static int add_id(struct coverage_test *t, uint32_t id)
{
	if (t->n == t->cap) {
		uint32_t *nv = realloc(t->ids, (t->cap = t->cap ? t->cap * 2 : 1024) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		t->ids = nv;
	}
	t->ids[t->n++] = id;
	return 0;
}

/* ---- lines read ---------------------------------------------------------- */

const char *coverage_rel(const struct coverage *c, const char *file)
{
	size_t n = strlen(c->root);

	return n && !strncmp(file, c->root, n) ? file + n : file;
}

int coverage_add_line_of(struct coverage *c, struct coverage_test *t, const char *file, long long line, const char *fn,
			 long long count)
{
	char key[PATH_MAX + 32];
	long id, fid = -1;
	bool added;

	snprintf(key, sizeof(key), "%s:%lld", file, line);
	id = strmap_put(&c->code, key, &added);
	if (id < 0 || strmap_put(&c->files, file, NULL) < 0 || (fn && (fid = strmap_put(&c->fns, fn, NULL)) < 0))
		return -ENOMEM;
	if ((size_t)id >= c->code_fn_cap) {
		uint32_t *nv = realloc(c->code_fn,
				       (c->code_fn_cap = c->code_fn_cap ? c->code_fn_cap * 2 : 4096) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		c->code_fn = nv;
	}
	if (added || (c->code_fn[id] == COVERAGE_NO_FN && fid >= 0))
		c->code_fn[id] = fid >= 0 ? (uint32_t)fid : COVERAGE_NO_FN;
	if (!t || count <= 0)
		return 0;
	id = strmap_put(&c->lines, key, NULL);
	return id < 0 ? -ENOMEM : add_id(t, (uint32_t)id);
}

int coverage_add_line(struct coverage *c, const char *test, const char *file, unsigned line, const char *fn,
		      long long count)
{
	struct coverage_test *t = NULL;

	if (test && !(t = find_test(c, test, true)))
		return -ENOMEM;
	if (t && count > 0 && !t->records) {
		t->records = 1;
		c->records++;
	}
	return coverage_add_line_of(c, t, file, line, fn, count);
}

/*
 * Whether dir/rel is really beneath dir: no symlink on the way (a bundle is
 * a guest's; its coverage must not lead gcov to host files). A missing
 * directory is fine: the test touched nothing.
 */
static bool beneath(const char *dir, const char *rel)
{
	char path[PATH_MAX * 2];
	_cleanup_free_ char *real_dir = realpath(dir, NULL), *real = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	real = realpath(path, NULL);
	if (!real)
		return errno == ENOENT;
	if (!real_dir)
		return false;
	snprintf(path, sizeof(path), "%s/%s", real_dir, rel);
	return streq(path, real);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int coverage_add_bundles(struct coverage *c, const char *path, const char *build, const char *gcov_tool, char *err,
			 size_t es)
{
	char **list = NULL;
	unsigned before = c->records;
	int r = bundle_find_all(path, &list, err, es);

	for (char **p = list; r >= 0 && *p; p++) {
		json_auto_t *b = NULL;
		char dir[PATH_MAX];
		json_t *cf, *it, *rec;
		size_t i, k, m;
		struct stat st;

		snprintf(dir, sizeof(dir), "%s", *p);
		if (stat(*p, &st) == 0 && !S_ISDIR(st.st_mode))
			*strrchr(dir, '/') = '\0';
		r = bundle_load(*p, &b, err, es);
		c->bundle = *p;
		json_array_foreach(json_object_get(b, "configs"), i, cf)
			json_array_foreach(json_object_get(cf, "iterations"), k, it)
				json_array_foreach(json_object_get(it, "tests"), m, rec) {
					const char *cov = json_string_value(
						json_object_get(json_object_get(rec, "coverage"), "dir"));
					const char *name = json_string_value(json_object_get(rec, "name"));
					const char *cname = json_string_value(json_object_get(cf, "name"));
					char abs[PATH_MAX * 2];
					struct coverage_test *t;

					if (r < 0 || !cov)
						continue;
					if (!name || !bundle_test_name_ok(name) ||
					    !bundle_rel_path_ok(cov, "coverage")) {
						snprintf(err, es,
							 "%s: key 'coverage.dir': '%s' is not a path under coverage/",
							 *p, cov);
						r = -EBADMSG;
						continue;
					}
					t = find_test(c, name, true);
					if (!t) {
						r = -ENOMEM;
						continue;
					}
					snprintf(abs, sizeof(abs), "%s/%s", dir, cov);
					if (!beneath(dir, cov)) {
						snprintf(err, es, "%s: a symbolic link on the way: refused", abs);
						r = -EBADMSG;
						continue;
					}
					r = coverage_gcov_test(c, t, abs, build, gcov_tool, err, es);
					if (r < 0)
						continue;
					t->dur_total += json_number_value(json_object_get(rec, "duration"));
					t->records++;
					if (cname && !strv_contains(t->configs, cname))
						r = strv_push(&t->configs, cname);
					c->records++;
				}
	}
	c->bundle = NULL;
	strv_free(list);
	if (r >= 0 && c->records == before) {
		snprintf(err, es, "%s: no test saved coverage (plan key coverage on a gcov kernel)", path);
		r = -ENOENT;
	}
	if (r >= 0)
		coverage_settle(c);
	return r;
}

static int on_history(void *ctx, const struct bundle_outcome *o)
{
	struct coverage *c = ctx;
	struct coverage_test *t;

	if (!test_status_name_failed(o->status))
		return 0;
	t = find_test(c, o->test, true);
	if (!t)
		return -ENOMEM;
	t->failures += o->count;
	return 0;
}

int coverage_add_history(struct coverage *c, const char *path, char *err, size_t es)
{
	static const struct bundle_scan_ops ops = { NULL, on_history };
	char **list = NULL;
	int r = bundle_find_all(path, &list, err, es);

	for (char **p = list; r >= 0 && *p; p++)
		r = bundle_scan(*p, &ops, c, err, es);
	strv_free(list);
	return r;
}

/* ---- the selection -------------------------------------------------------- */

void coverage_settle(struct coverage *c)
{
	for (size_t i = 0; i < c->nt; i++) {
		struct coverage_test *t = &c->t[i];
		size_t w = 0;

		if (t->n)
			qsort(t->ids, t->n, sizeof(*t->ids), cmp_u32);
		for (size_t k = 0; k < t->n; k++)
			if (!w || t->ids[w - 1] != t->ids[k])
				t->ids[w++] = t->ids[k];
		t->n = w;
	}
}

bool coverage_test_reached(const struct coverage_test *t, uint32_t id)
{
	return t->n && bsearch(&id, t->ids, t->n, sizeof(*t->ids), cmp_u32);
}

double coverage_test_seconds(const struct coverage_test *t)
{
	return t->records ? t->dur_total / t->records * (double)strv_length(t->configs) : 0;
}

json_t *coverage_select(struct coverage *c, double percent, bool by_time)
{
	struct cover_set *sets = calloc(c->nt ? c->nt : 1, sizeof(*sets));
	size_t *order = calloc(c->nt ? c->nt : 1, sizeof(*order));
	uint8_t *covered = calloc(c->lines.n ? c->lines.n : 1, 1);
	size_t target = (size_t)ceil(percent / 100.0 * (double)c->lines.n), picks, have = 0, with_cov = 0;
	double secs_all = 0, secs_sel = 0;
	json_t *sel, *kept, *doc = NULL;

	if (!sets || !order || !covered)
		goto out;
	coverage_settle(c);
	for (size_t i = 0; i < c->nt; i++) {
		sets[i] = (struct cover_set){ c->t[i].ids, c->t[i].n, coverage_test_seconds(&c->t[i]) };
		secs_all += sets[i].cost;
		with_cov += c->t[i].records > 0;
	}
	if (target > c->lines.n)
		target = c->lines.n;
	picks = cover_greedy(sets, c->nt, c->lines.n, target, by_time, order);
	if (picks == (size_t)-1)
		goto out;
	sel = json_array();
	for (size_t k = 0; k < picks; k++) {
		const struct coverage_test *t = &c->t[order[k]];
		size_t added = 0;

		for (size_t i = 0; i < t->n; i++)
			if (!covered[t->ids[i]]) {
				covered[t->ids[i]] = 1;
				added++;
			}
		have += added;
		secs_sel += sets[order[k]].cost;
		json_array_append_new(sel, json_pack("{s:s, s:I, s:I, s:f}", "test", t->name, "lines", (json_int_t)t->n,
						     "added", (json_int_t)added, "seconds", sets[order[k]].cost));
	}
	/* bug finders the cover left out: kept, with what they would add */
	kept = json_array();
	for (size_t i = 0; i < c->nt; i++) {
		const struct coverage_test *t = &c->t[i];
		bool in = false;
		size_t adds = 0;

		for (size_t k = 0; k < picks; k++)
			in |= order[k] == i;
		if (in || !t->failures)
			continue;
		for (size_t k = 0; k < t->n; k++)
			adds += !covered[t->ids[k]];
		json_array_append_new(kept, json_pack("{s:s, s:i, s:I, s:s, s:f}", "test", t->name, "failures",
						      (int)t->failures, "adds_lines", (json_int_t)adds, "why",
						      adds ? "failed before; not needed for the target"
							   : "failed before; adds no coverage",
						      "seconds", sets[i].cost));
		secs_sel += sets[i].cost;
	}
	doc = json_pack("{s:s, s:f, s:s, s:I, s:I, s:I, s:i, s:f, s:f, s:o, s:o}", "schema", COVERAGE_SCHEMA, "percent",
			percent, "by", by_time ? "time" : "size", "lines_total", (json_int_t)c->lines.n,
			"lines_selected", (json_int_t)have, "tests_total", (json_int_t)with_cov, "records",
			(int)c->records, "seconds_total", secs_all, "seconds_selected", secs_sel, "selected", sel,
			"kept", kept);
out:
	free(sets);
	free(order);
	free(covered);
	return doc;
}

static unsigned num(json_t *o, const char *k)
{
	return (unsigned)json_integer_value(json_object_get(o, k));
}

static void header(json_t *res, FILE *out, const char *prefix)
{
	double all = json_real_value(json_object_get(res, "seconds_total"));
	double sel = json_real_value(json_object_get(res, "seconds_selected"));

	fprintf(out, "%s%zu of %u tests cover %u of %u lines (target %g%%, by %s); %.1f s of %.1f s (%.0f%%)", prefix,
		json_array_size(json_object_get(res, "selected")) + json_array_size(json_object_get(res, "kept")),
		num(res, "tests_total"), num(res, "lines_selected"), num(res, "lines_total"),
		json_real_value(json_object_get(res, "percent")), json_string_value(json_object_get(res, "by")), sel,
		all, all > 0 ? 100 * sel / all : 0);
	if (json_array_size(json_object_get(res, "kept")))
		fprintf(out, ", %zu kept for failing before", json_array_size(json_object_get(res, "kept")));
	fputc('\n', out);
}

void coverage_text(json_t *res, FILE *out)
{
	json_t *t;
	size_t i;

	header(res, out, "coverage: ");
	json_array_foreach(json_object_get(res, "selected"), i, t)
		fprintf(out, "  %-18s +%-6u of %-6u lines  %6.1f s\n", json_string_value(json_object_get(t, "test")),
			num(t, "added"), num(t, "lines"), json_real_value(json_object_get(t, "seconds")));
	json_array_foreach(json_object_get(res, "kept"), i, t)
		fprintf(out, "  %-18s kept: %s (failed %u times; would add %u lines)\n",
			json_string_value(json_object_get(t, "test")), json_string_value(json_object_get(t, "why")),
			num(t, "failures"), num(t, "adds_lines"));
}

void coverage_write_list(json_t *res, FILE *out)
{
	json_t *t;
	size_t i;

	header(res, out, "# fsagent coverage: ");
	json_array_foreach(json_object_get(res, "selected"), i, t)
		fprintf(out, "%s\n", json_string_value(json_object_get(t, "test")));
	json_array_foreach(json_object_get(res, "kept"), i, t)
		fprintf(out, "# kept: %s\n%s\n", json_string_value(json_object_get(t, "why")),
			json_string_value(json_object_get(t, "test")));
}

void coverage_write_plan(json_t *res, FILE *out)
{
	json_t *t;
	size_t i;

	header(res, out, "# fsagent coverage: ");
	fputs("tests =", out);
	json_array_foreach(json_object_get(res, "selected"), i, t)
		fprintf(out, " %s", json_string_value(json_object_get(t, "test")));
	json_array_foreach(json_object_get(res, "kept"), i, t)
		fprintf(out, " %s", json_string_value(json_object_get(t, "test")));
	fputc('\n', out);
}
