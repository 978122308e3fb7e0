// SPDX-License-Identifier: MIT
/*
 * Which tests reach what a change changes (see coverage_diff.h).
 */
#include "analysis/coverage_diff.h"
#include "analysis/coverage_internal.h"
#include "analysis/cover.h"
#include "util/macro.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The gcov file a diff's path names: the source root + path, else one ending in "/path". */
static const char *gcov_file(const struct coverage *c, const char *path)
{
	size_t pl = strlen(path);

	for (size_t i = 0; i < c->files.n; i++)
		if (streq(coverage_rel(c, c->files.keys[i]), path))
			return c->files.keys[i];
	for (size_t i = 0; i < c->files.n; i++) {
		const char *f = c->files.keys[i];
		size_t fl = strlen(f);

		if (fl > pl && f[fl - pl - 1] == '/' && streq(f + fl - pl, path))
			return f;
	}
	return NULL;
}

static long lookup(const struct strmap *m, const char *file, uint32_t line)
{
	char key[PATH_MAX + 32];

	snprintf(key, sizeof(key), "%s:%u", file, line);
	return strmap_get(m, key);
}

/* A line's text as JSON: bytes that are not UTF-8 become '?'. */
static json_t *text_json(const char *s, size_t len)
{
	json_t *j = json_stringn(s, len);
	char *copy;

	if (j)
		return j;
	copy = strndup(s, len);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

struct diff_state {
	struct coverage *c;
	const struct coverage_diff_opts *o;
	uint32_t *hits;	   /* by test: changed lines of code reached */
	uint32_t *reached; /* the covered ids of changed lines some test reached (universe of the group) */
	size_t nreached, capreached;
	unsigned code, hit, unmapped;
	json_t *unreached; /* [{file, function, lines}] */
};

static int add_reached(struct diff_state *d, uint32_t id)
{
	for (size_t i = 0; i < d->nreached; i++)
		if (d->reached[i] == id)
			return 0;
	if (d->nreached == d->capreached) {
		uint32_t *nv =
			realloc(d->reached, (d->capreached = d->capreached ? d->capreached * 2 : 64) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		d->reached = nv;
	}
	d->reached[d->nreached++] = id;
	return 0;
}

/* A line no test reaches, into the file's function's entry. */
static void add_unreached(struct diff_state *d, const char *path, const char *fn, uint32_t line)
{
	json_t *e, *last = json_array_get(d->unreached, json_array_size(d->unreached) - 1);

	if (last && streq(json_string_value(json_object_get(last, "file")), path) &&
	    streq(json_string_value(json_object_get(last, "function")), fn)) {
		json_array_append_new(json_object_get(last, "lines"), json_integer(line));
		return;
	}
	e = json_pack("{s:s, s:s, s:[I]}", "file", path, "function", fn, "lines", (json_int_t)line);
	json_array_append_new(d->unreached, e);
}

/*
 * Judge the coverage kernel's line at of file: code or not, reached by
 * which tests; sets the line's JSON and the tallies. path: the diff's.
 */
static int judge(struct diff_state *d, json_t *jl, const char *file, const char *path, uint32_t side_no, uint32_t at)
{
	struct coverage *c = d->c;
	long code = lookup(&c->code, file, at), id;
	json_t *tests;
	const char *fn;

	if (code < 0) {
		json_object_set_new(jl, "code", json_false());
		return 0;
	}
	fn = c->code_fn[code] == COVERAGE_NO_FN ? "" : c->fns.keys[c->code_fn[code]];
	json_object_set_new(jl, "code", json_true());
	json_object_set_new(jl, "function", json_string(fn));
	tests = json_array();
	json_object_set_new(jl, "tests", tests);
	d->code++;
	id = lookup(&c->lines, file, at);
	for (size_t i = 0; id >= 0 && i < c->nt; i++)
		if (coverage_test_reached(&c->t[i], (uint32_t)id)) {
			json_array_append_new(tests, json_string(c->t[i].name));
			d->hits[i]++;
		}
	if (json_array_size(tests)) {
		d->hit++;
		return add_reached(d, (uint32_t)id);
	}
	add_unreached(d, path, fn, side_no);
	return 0;
}

/*
 * The nearest line of code at or after line at (no further than 200 lines
 * on): control reaches it through the point before it, where lines are
 * inserted (a label between them aside).
 */
static uint32_t code_after(const struct coverage *c, const char *file, uint32_t at)
{
	for (uint32_t l = at; l < at + 200; l++)
		if (lookup(&c->code, file, l) >= 0)
			return l;
	return 0;
}

/* One changed file's hunks, judged line by line; its entry's counts. */
static int diff_file(struct diff_state *d, const struct patch_file *f, const char *path, const char *file, json_t *jf)
{
	const struct patch_file *rf = d->o->rebase ? patch_find(d->o->rebase, path) : NULL;
	const bool res = d->o->result_side;
	const char mine = res ? '+' : '-';
	json_t *hunks = json_array();
	unsigned code0 = d->code, hit0 = d->hit, unmapped0 = d->unmapped;
	int r = 0;

	json_object_set_new(jf, "hunks", hunks);
	for (size_t k = 0; r >= 0 && k < f->nhunks; k++) {
		const struct patch_hunk *h = &f->hunks[k];
		json_t *lines = json_array();
		uint32_t last_side = (res ? h->new_start : h->old_start) - 1; /* this side's line before */

		json_array_append_new(hunks,
				      json_pack("{s:i, s:i, s:i, s:i, s:s, s:o}", "old_start", (int)h->old_start,
						"old_len", (int)h->old_len, "new_start", (int)h->new_start, "new_len",
						(int)h->new_len, "section", h->section, "lines", lines));
		for (size_t i = h->first; r >= 0 && i < h->first + h->n; i++) {
			const struct patch_line *l = &f->lines[i];
			uint32_t side_no = res ? l->new_no : l->old_no, at;
			json_t *jl = json_pack("{s:s#, s:i, s:i, s:o}", "kind", &l->kind, 1, "old", (int)l->old_no,
					       "new", (int)l->new_no, "text", text_json(l->text, l->len));

			json_array_append_new(lines, jl);
			if (l->kind == ' ') {
				last_side = side_no;
				continue;
			}
			if (l->kind != mine) {
				/*
				 * On the other side only: a block without a line on this side (a pure
				 * insertion) is judged once, by this side's next line of code.
				 */
				bool block_start = i == h->first || f->lines[i - 1].kind == ' ', mixed = false;
				uint32_t next;

				for (size_t e = i; e < h->first + h->n && f->lines[e].kind != ' '; e++)
					mixed |= f->lines[e].kind == mine;
				for (size_t e = i; e > h->first && f->lines[e - 1].kind != ' '; e--)
					mixed |= f->lines[e - 1].kind == mine;
				if (mixed || !block_start)
					continue;
				next = rf ? patch_map(rf, last_side + 1, true) : last_side + 1;
				at = next ? code_after(d->c, file, next) : 0;
				if (at) {
					json_object_set_new(jl, "judged_by", json_integer(at));
					r = judge(d, jl, file, path, last_side + 1, at);
				}
				continue;
			}
			last_side = side_no;
			at = rf ? patch_map(rf, side_no, true) : side_no;
			if (!at) {
				json_object_set_new(jl, "unmapped", json_true());
				d->unmapped++;
				continue;
			}
			json_object_set_new(jl, "at", json_integer(at));
			r = judge(d, jl, file, path, side_no, at);
		}
	}
	json_object_set_new(jf, "lines_code", json_integer(d->code - code0));
	json_object_set_new(jf, "lines_reached", json_integer(d->hit - hit0));
	json_object_set_new(jf, "lines_unmapped", json_integer(d->unmapped - unmapped0));
	return r;
}

static const char *why_absent(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && streq(dot, ".c"))
		return "not profiled";
	if (dot && streq(dot, ".h"))
		return "not in the coverage data";
	return "not source";
}

static int cmp_rank(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	double kx = json_real_value(json_object_get(x, "rank")), ky = json_real_value(json_object_get(y, "rank"));

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, "test")), json_string_value(json_object_get(y, "test")));
}

/* The tests reaching the change, ranked; the group reaching every reached line. */
static int rank_and_group(struct diff_state *d, json_t *res)
{
	struct coverage *c = d->c;
	json_t *tests = json_array(), *group = json_array();
	json_t **v = calloc(c->nt ? c->nt : 1, sizeof(*v));
	struct cover_set *sets = calloc(c->nt ? c->nt : 1, sizeof(*sets));
	uint32_t **elems = calloc(c->nt ? c->nt : 1, sizeof(*elems));
	size_t *order = calloc(c->nt ? c->nt : 1, sizeof(*order)), nv = 0, picks;
	double secs = 0;
	int r = -ENOMEM;

	json_object_set_new(res, "tests", tests);
	json_object_set_new(res, "group", group);
	if (!v || !sets || !elems || !order)
		goto out;
	for (size_t i = 0; i < c->nt; i++) {
		double s = coverage_test_seconds(&c->t[i]);

		sets[i].cost = s > 0 ? s : 1e-3;
		elems[i] = calloc(d->nreached ? d->nreached : 1, sizeof(**elems));
		if (!elems[i])
			goto out;
		for (size_t e = 0; e < d->nreached; e++)
			if (coverage_test_reached(&c->t[i], d->reached[e]))
				elems[i][sets[i].n++] = (uint32_t)e;
		sets[i].elems = elems[i];
		if (!d->hits[i])
			continue;
		v[nv++] = json_pack("{s:s, s:i, s:f, s:f}", "test", c->t[i].name, "lines", (int)d->hits[i], "seconds",
				    s, "rank", d->o->by_time ? d->hits[i] / sets[i].cost : d->hits[i] - s * 1e-9);
	}
	qsort(v, nv, sizeof(*v), cmp_rank);
	for (size_t i = 0; i < nv; i++) {
		json_object_del(v[i], "rank");
		json_array_append_new(tests, v[i]);
	}
	picks = cover_greedy(sets, c->nt, d->nreached, d->nreached, d->o->by_time, order);
	for (size_t k = 0; picks != (size_t)-1 && k < picks; k++) {
		json_array_append_new(group, json_string(c->t[order[k]].name));
		secs += sets[order[k]].cost;
	}
	json_object_set_new(res, "group_seconds", json_real(secs));
	r = 0;
out:
	for (size_t i = 0; elems && i < c->nt; i++)
		free(elems[i]);
	free(elems);
	free(sets);
	free(order);
	free(v);
	return r;
}

json_t *coverage_diff(struct coverage *c, const struct patch *p, const struct coverage_diff_opts *o)
{
	struct diff_state d = { .c = c, .o = o, .unreached = json_array() };
	json_t *res = NULL, *files = json_array(), *absent = json_array();
	int r = 0;

	coverage_settle(c);
	d.hits = calloc(c->nt ? c->nt : 1, sizeof(*d.hits));
	if (!d.hits || !d.unreached || !files || !absent)
		goto out;
	for (size_t i = 0; r >= 0 && i < p->nfiles; i++) {
		const struct patch_file *f = &p->files[i];
		const char *path = o->result_side ? f->new_path : f->old_path,
			   *shown = f->new_path ? f->new_path : f->old_path, *file = path ? gcov_file(c, path) : NULL;
		json_t *jf = json_pack("{s:s}", "path", shown);

		json_array_append_new(files, jf);
		if (f->binary || !path || !file) {
			const char *status =
				f->binary ? "binary"
				: !path	  ? (o->result_side ? "deleted by the change" : "added by the change")
					  : why_absent(path);

			json_object_set_new(jf, "status", json_string(status));
			json_array_append_new(absent, json_pack("{s:s, s:s}", "path", shown, "why", status));
			continue;
		}
		json_object_set_new(jf, "status", json_string("profiled"));
		r = diff_file(&d, f, path, file, jf);
	}
	res = json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:o}", "schema", COVERAGE_DIFF_SCHEMA, "diff",
			o->name ? o->name : "", "side", o->result_side ? "result" : "base", "rebased",
			o->rebase != NULL, "files", files, "not_covered_files", absent, "unreached", d.unreached);
	files = absent = d.unreached = NULL;
	if (!res || r < 0 || rank_and_group(&d, res) < 0) {
		json_decref(res);
		res = NULL;
		goto out;
	}
	json_object_set_new(res, "lines_code", json_integer(d.code));
	json_object_set_new(res, "lines_reached", json_integer(d.hit));
	json_object_set_new(res, "lines_unmapped", json_integer(d.unmapped));
out:
	json_decref(files);
	json_decref(absent);
	json_decref(d.unreached);
	free(d.hits);
	free(d.reached);
	return res;
}
