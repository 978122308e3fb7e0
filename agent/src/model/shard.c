// SPDX-License-Identifier: MIT
/*
 * Shards by longest processing time first (see shard.h).
 */
#include "model/shard.h"
#include "model/bundle.h"
#include "model/plan.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const struct shard_item *sort_items;

/* longest first; equal ones by config and test, so every VM sorts alike */
static int cmp_idx(const void *a, const void *b)
{
	const struct shard_item *x = &sort_items[*(const size_t *)a], *y = &sort_items[*(const size_t *)b];
	int r;

	if (x->seconds != y->seconds)
		return x->seconds > y->seconds ? -1 : 1;
	r = strcmp(x->config, y->config);
	return r ? r : strcmp(x->test, y->test);
}

int shard_assign(const struct shard_item *items, size_t n, unsigned shards, unsigned *ret, double *loads)
{
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));
	double *load = calloc(shards ? shards : 1, sizeof(*load));

	if (!idx || !load || shards == 0) {
		free(idx);
		free(load);
		return shards == 0 ? -EINVAL : -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sort_items = items;
	qsort(idx, n, sizeof(*idx), cmp_idx);
	for (size_t i = 0; i < n; i++) {
		unsigned best = 0;

		for (unsigned s = 1; s < shards; s++)
			if (load[s] < load[best])
				best = s;
		ret[idx[i]] = best;
		load[best] += items[idx[i]].seconds;
	}
	if (loads)
		memcpy(loads, load, shards * sizeof(*load));
	free(idx);
	free(load);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double shard_fill_durations(struct shard_item *items, size_t n, json_t *durations)
{
	json_t *d = json_object_get(durations, "durations");
	double *known = calloc(n ? n : 1, sizeof(*known)), fallback = 1;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		json_t *v = json_object_get(json_object_get(d, items[i].config), items[i].test);

		items[i].seconds = json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : -1;
		if (items[i].seconds >= 0 && known)
			known[k++] = items[i].seconds;
	}
	if (k) {
		qsort(known, k, sizeof(*known), cmp_double);
		fallback = known[k / 2];
	}
	for (size_t i = 0; i < n; i++)
		if (items[i].seconds < 0)
			items[i].seconds = fallback;
	free(known);
	return k ? fallback : -1;
}

struct dur_ctx {
	json_t *sum, *cnt; /* config -> test -> number */
};

static int on_outcome(void *ctx, const struct bundle_outcome *o)
{
	struct dur_ctx *c = ctx;
	json_t *s, *n;

	if (streq(o->status, "notrun") || streq(o->status, "expunged") || !o->count)
		return 0;
	s = json_object_get(c->sum, o->config);
	n = json_object_get(c->cnt, o->config);
	if (!s) {
		json_object_set_new(c->sum, o->config, s = json_object());
		json_object_set_new(c->cnt, o->config, n = json_object());
	}
	json_object_set_new(s, o->test, json_real(json_number_value(json_object_get(s, o->test)) + o->duration_total));
	json_object_set_new(n, o->test, json_integer(json_integer_value(json_object_get(n, o->test)) + o->count));
	return 0;
}

int shard_durations_from_bundles(char *const *paths, json_t **ret, char *err, size_t es)
{
	static const struct bundle_scan_ops ops = { NULL, on_outcome };
	struct dur_ctx c = { json_object(), json_object() };
	json_t *out = json_object(), *tests, *v;
	const char *cname, *tname;
	int r = 0;

	for (size_t i = 0; r >= 0 && paths[i]; i++) {
		char **list = NULL;

		r = bundle_find_all(paths[i], &list, err, es);
		for (char **p = list; r >= 0 && p && *p; p++)
			r = bundle_scan(*p, &ops, &c, err, es);
		strv_free(list);
	}
	json_object_foreach(c.sum, cname, tests) {
		json_t *o = json_object();

		json_object_foreach(tests, tname, v) {
			double runs = (double)json_integer_value(json_object_get(json_object_get(c.cnt, cname), tname));

			json_object_set_new(o, tname, json_real(runs > 0 ? json_number_value(v) / runs : 0));
		}
		json_object_set_new(out, cname, o);
	}
	json_decref(c.sum);
	json_decref(c.cnt);
	if (r < 0) {
		json_decref(out);
		return r;
	}
	*ret = json_pack("{s:s, s:o}", "schema", DURATIONS_SCHEMA, "durations", out);
	return *ret ? 0 : -ENOMEM;
}

int shard_durations_load(const char *path, json_t **ret, char *err, size_t es)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr), *d, *tests, *v;
	const char *s = json_string_value(json_object_get(doc, "schema")), *cname, *tname;

	if (!doc) {
		snprintf(err, es, "%s: line %d: %s", path, jerr.line, jerr.text);
		return -EBADMSG;
	}
	if (!s || !streq(s, DURATIONS_SCHEMA) || !json_is_object(d = json_object_get(doc, "durations"))) {
		snprintf(err, es, "%s: key 'schema': not an %s document", path, DURATIONS_SCHEMA);
		json_decref(doc);
		return -EBADMSG;
	}
	json_object_foreach(d, cname, tests)
		json_object_foreach(tests, tname, v)
			if (!json_is_number(v) || json_number_value(v) < 0) {
				snprintf(err, es, "%s: key 'durations.%s.%s': not a number of seconds", path, cname,
					 tname);
				json_decref(doc);
				return -EBADMSG;
			}
	*ret = doc;
	return 0;
}

int shard_plan_durations(const struct plan *p, const char *base, json_t **ret, char *err, size_t es)
{
	char path[PATH_MAX];

	*ret = NULL;
	if (!p->durations)
		return 0;
	if (snprintf(path, sizeof(path), "%s/%s", base ? base : ".", p->durations) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return shard_durations_load(path, ret, err, es);
}
