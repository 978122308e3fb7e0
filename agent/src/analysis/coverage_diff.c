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

json_t *coverage_text_json(const char *s, size_t len)
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

static json_t *str_json(const char *s)
{
	return coverage_text_json(s, strlen(s));
}

struct diff_state {
	struct coverage *c;
	const struct coverage_diff_opts *o;
	uint32_t *hits;	   /* by test: changed lines of code reached */
	uint32_t *reached; /* the covered ids of changed lines some test reached (universe of the group) */
	size_t nreached, capreached;
	uint8_t *is_reached;		 /* by covered id: in reached already */
	const char *last_path, *last_fn; /* unreached's last entry's, as given */
	unsigned code, hit, unmapped;
	json_t *unreached; /* [{file, function, lines}] */
};

const char *coverage_diff_function(const struct coverage *c, const struct coverage_diff_line *dl)
{
	return dl->code < 0 || c->code_fn[dl->code] == COVERAGE_NO_FN ? "" : c->fns.keys[c->code_fn[dl->code]];
}

static int add_reached(struct diff_state *d, uint32_t id)
{
	if (d->is_reached[id])
		return 0;
	d->is_reached[id] = 1;
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

/* A line no test reaches, into the file's function's entry (the last one, when of the same). 0 or -ENOMEM. */
static int add_unreached(struct diff_state *d, const char *path, const char *fn, uint32_t line)
{
	json_t *e, *last = json_array_get(d->unreached, json_array_size(d->unreached) - 1);

	if (last && streq(d->last_path, path) && streq(d->last_fn, fn))
		return json_array_append_new(json_object_get(last, "lines"), json_integer(line)) ? -ENOMEM : 0;
	e = json_pack("{s:o, s:o, s:[I]}", "file", str_json(path), "function", str_json(fn), "lines", (json_int_t)line);
	if (!e || json_array_append_new(d->unreached, e) < 0)
		return -ENOMEM;
	d->last_path = path;
	d->last_fn = fn;
	return 0;
}

/*
 * Judge the coverage kernel's line at of file for a changed line: code or
 * not, reached or not (into *dl); the tallies. path: the diff's.
 */
static int judge(struct diff_state *d, struct coverage_diff_line *dl, const char *file, const char *path,
		 uint32_t side_no, uint32_t at)
{
	struct coverage *c = d->c;
	long code = lookup(&c->code, file, at), id;
	bool hit = false;

	dl->at = at;
	if (code < 0)
		return 0;
	dl->code = (int32_t)code;
	d->code++;
	id = lookup(&c->lines, file, at);
	dl->id = (int32_t)id;
	for (size_t i = 0; id >= 0 && i < c->nt; i++)
		if (coverage_test_reached(&c->t[i], (uint32_t)id)) {
			d->hits[i]++;
			hit = true;
		}
	if (hit) {
		d->hit++;
		return add_reached(d, (uint32_t)id);
	}
	return add_unreached(d, path, coverage_diff_function(c, dl), side_no);
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

/*
 * A run of changed lines (no context between) starting at i: where it
 * ends, and whether it has a line on this side (mine).
 */
static size_t block_end(const struct patch_file *f, const struct patch_hunk *h, size_t i, char mine, bool *mixed)
{
	*mixed = false;
	for (; i < h->first + h->n && f->lines[i].kind != ' '; i++)
		*mixed |= f->lines[i].kind == mine;
	return i;
}

/* One changed file's hunks, judged line by line into df; its counts. */
static int diff_file(struct diff_state *d, const struct patch_file *f, const char *path, const char *file,
		     struct coverage_diff_file *df)
{
	const struct patch_file *rf = d->o->rebase ? patch_find(d->o->rebase, path) : NULL;
	const bool res = d->o->result_side;
	const char mine = res ? '+' : '-';
	unsigned code0 = d->code, hit0 = d->hit, unmapped0 = d->unmapped;
	int r = 0;

	df->lines = calloc(f->nlines ? f->nlines : 1, sizeof(*df->lines));
	if (!df->lines)
		return -ENOMEM;
	for (size_t i = 0; i < f->nlines; i++)
		df->lines[i] = (struct coverage_diff_line){ .id = -1, .code = -1 };
	for (size_t k = 0; r >= 0 && k < f->nhunks; k++) {
		const struct patch_hunk *h = &f->hunks[k];
		uint32_t last_side = (res ? h->new_start : h->old_start) - 1; /* this side's line before */
		size_t end = h->first; /* the current run of changed lines ends here */
		bool mixed = false;    /* ... and has a line on this side */

		for (size_t i = h->first; r >= 0 && i < h->first + h->n; i++) {
			const struct patch_line *l = &f->lines[i];
			struct coverage_diff_line *dl = &df->lines[i];
			uint32_t side_no = res ? l->new_no : l->old_no, at;

			if (l->kind == ' ') {
				last_side = side_no;
				continue;
			}
			if (i >= end)
				end = block_end(f, h, i, mine, &mixed);
			if (l->kind != mine) {
				/*
				 * On the other side only: a block without a line on this side (a pure
				 * insertion) is judged once, by this side's next line of code.
				 */
				bool block_start = i == h->first || f->lines[i - 1].kind == ' ';
				uint32_t next;

				if (mixed || !block_start)
					continue;
				next = rf ? patch_map(rf, last_side + 1, true) : last_side + 1;
				at = next ? code_after(d->c, file, next) : 0;
				dl->judged_by = at != 0;
				if (at)
					r = judge(d, dl, file, path, last_side + 1, at);
				continue;
			}
			last_side = side_no;
			at = rf ? patch_map(rf, side_no, true) : side_no;
			if (!at) {
				d->unmapped++;
				dl->unmapped = true;
				continue;
			}
			r = judge(d, dl, file, path, side_no, at);
		}
	}
	df->code = d->code - code0;
	df->hit = d->hit - hit0;
	df->unmapped = d->unmapped - unmapped0;
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

	if (json_object_set_new(res, "tests", tests) < 0) {
		json_decref(group);
		goto out;
	}
	if (json_object_set_new(res, "group", group) < 0 || !v || !sets || !elems || !order)
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
		v[nv] = json_pack("{s:o, s:I, s:f, s:f}", "test", str_json(c->t[i].name), "lines",
				  (json_int_t)d->hits[i], "seconds", s, "rank",
				  d->o->by_time ? d->hits[i] / sets[i].cost : d->hits[i] - s * 1e-9);
		if (!v[nv++])
			goto out;
	}
	qsort(v, nv, sizeof(*v), cmp_rank);
	for (size_t i = 0; i < nv; i++) {
		json_object_del(v[i], "rank");
		if (json_array_append_new(tests, v[i]) < 0)
			goto out;
		v[i] = NULL;
	}
	picks = cover_greedy(sets, c->nt, d->nreached, d->nreached, d->o->by_time, order);
	for (size_t k = 0; picks != (size_t)-1 && k < picks; k++) {
		if (json_array_append_new(group, str_json(c->t[order[k]].name)) < 0)
			goto out;
		secs += sets[order[k]].cost;
	}
	r = json_object_set_new(res, "group_seconds", json_real(secs)) < 0 ? -ENOMEM : 0;
out:
	for (size_t i = 0; v && i < nv; i++)
		json_decref(v[i]);
	for (size_t i = 0; elems && i < c->nt; i++)
		free(elems[i]);
	free(elems);
	free(sets);
	free(order);
	free(v);
	return r;
}

int coverage_diff(struct coverage *c, const struct patch *p, const struct coverage_diff_opts *o,
		  struct coverage_diff **ret)
{
	struct diff_state d = { .c = c, .o = o, .unreached = json_array() };
	struct coverage_diff *cd = calloc(1, sizeof(*cd));
	json_t *res = NULL, *absent = json_array();
	int r = -ENOMEM;

	*ret = NULL;
	coverage_settle(c);
	d.hits = calloc(c->nt ? c->nt : 1, sizeof(*d.hits));
	d.is_reached = calloc(c->lines.n ? c->lines.n : 1, 1);
	if (!cd || !d.hits || !d.is_reached || !d.unreached || !absent)
		goto out;
	cd->c = c;
	cd->p = p;
	cd->files = calloc(p->nfiles ? p->nfiles : 1, sizeof(*cd->files));
	if (!cd->files)
		goto out;
	cd->nfiles = p->nfiles;
	r = 0;
	for (size_t i = 0; r >= 0 && i < p->nfiles; i++) {
		const struct patch_file *f = &p->files[i];
		struct coverage_diff_file *df = &cd->files[i];
		const char *path = o->result_side ? f->new_path : f->old_path,
			   *shown = f->new_path ? f->new_path : f->old_path, *file = path ? gcov_file(c, path) : NULL;

		df->f = f;
		df->path = shown ?: "";
		if (f->binary || !path || !file) {
			df->status = f->binary ? "binary"
				     : !path   ? (o->result_side ? "deleted by the change" : "added by the change")
					       : why_absent(path);
			if (json_array_append_new(
				    absent, json_pack("{s:o, s:s}", "path", str_json(df->path), "why", df->status)) < 0)
				r = -ENOMEM;
			continue;
		}
		df->status = "profiled";
		r = diff_file(&d, f, path, file, df);
	}
	res = json_pack("{s:s, s:o, s:s, s:b, s:o, s:o}", "schema", COVERAGE_DIFF_SCHEMA, "diff",
			str_json(o->name ? o->name : ""), "side", o->result_side ? "result" : "base", "rebased",
			o->rebase != NULL, "not_covered_files", absent, "unreached", d.unreached);
	absent = d.unreached = NULL;
	if (!res || r < 0 || rank_and_group(&d, res) < 0 ||
	    json_object_set_new(res, "lines_code", json_integer(d.code)) < 0 ||
	    json_object_set_new(res, "lines_reached", json_integer(d.hit)) < 0 ||
	    json_object_set_new(res, "lines_unmapped", json_integer(d.unmapped)) < 0) {
		r = -ENOMEM;
		goto out;
	}
	cd->summary = res;
	res = NULL;
	*ret = cd;
	cd = NULL;
out:
	json_decref(res);
	json_decref(absent);
	json_decref(d.unreached);
	free(d.hits);
	free(d.is_reached);
	free(d.reached);
	coverage_diff_free(cd);
	return r;
}

void coverage_diff_free(struct coverage_diff *cd)
{
	if (!cd)
		return;
	for (size_t i = 0; cd->files && i < cd->nfiles; i++)
		free(cd->files[i].lines);
	free(cd->files);
	json_decref(cd->summary);
	free(cd);
}
