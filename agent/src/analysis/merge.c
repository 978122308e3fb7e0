// SPDX-License-Identifier: MIT
/*
 * Shard bundles joined into one (see merge.h).
 */
#include "analysis/merge.h"
#include "model/bundle.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct shard {
	char dir[PATH_MAX];
	json_t *doc;
	int index;
};

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static int cmp_shard(const void *a, const void *b)
{
	int x = ((const struct shard *)a)->index, y = ((const struct shard *)b)->index;

	return (x > y) - (x < y);
}

static bool dir_empty_or_absent(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return errno == ENOENT;
	while (empty && (de = readdir(d)))
		empty = streq(de->d_name, ".") || streq(de->d_name, "..");
	closedir(d);
	return empty;
}

/* Names and artifact paths that a copy would follow out of the bundle. */
static int check_records(struct shard *s, char *err, size_t es)
{
	json_t *c, *it, *t, *a;
	size_t i, k, m, n;

	json_array_foreach(json_object_get(s->doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it)
			json_array_foreach(json_object_get(it, "tests"), m, t) {
				if (!bundle_test_name_ok(str(t, "name"))) {
					snprintf(err, es, "%s: config %s: key 'name': '%s' is not a test name", s->dir,
						 str(c, "name"), str(t, "name"));
					return -EBADMSG;
				}
				json_array_foreach(json_object_get(t, "artifacts"), n, a)
					if (!json_is_string(a) || !bundle_artifact_ok(json_string_value(a))) {
						snprintf(err, es,
							 "%s: %s: key 'artifacts': '%s' is not a path under artifacts/",
							 s->dir, str(t, "name"),
							 json_is_string(a) ? json_string_value(a) : "?");
						return -EBADMSG;
					}
			}
	return 0;
}

static int load_shards(char *const *paths, struct shard **ret, size_t *ret_n, char *err, size_t es)
{
	size_t n = strv_length(paths);
	struct shard *v = calloc(n ? n : 1, sizeof(*v));
	int count = 0, r = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n && r >= 0; i++) {
		json_t *sh;
		struct stat st;

		snprintf(v[i].dir, sizeof(v[i].dir), "%s", paths[i]);
		if (stat(paths[i], &st) == 0 && !S_ISDIR(st.st_mode))
			*strrchr(v[i].dir, '/') = '\0';
		r = bundle_load(paths[i], &v[i].doc, err, es);
		if (r < 0)
			break;
		sh = json_object_get(json_object_get(v[i].doc, "plan"), "shard");
		if (!json_is_object(sh)) {
			snprintf(err, es, "%s: key 'plan.shard': not the bundle of a shard", paths[i]);
			r = -EBADMSG;
		} else if (json_object_get(v[i].doc, "aggregate")) {
			snprintf(err, es, "%s: key 'aggregate': a soak's bundle; use fsagent aggregate", paths[i]);
			r = -EBADMSG;
		} else {
			int cnt = (int)json_integer_value(json_object_get(sh, "count"));

			v[i].index = (int)json_integer_value(json_object_get(sh, "index"));
			if (i == 0)
				count = cnt;
			if (cnt != count) {
				snprintf(err, es, "%s: key 'plan.shard.count': %d shards, the first bundle has %d",
					 paths[i], cnt, count);
				r = -EBADMSG;
			} else {
				r = check_records(&v[i], err, es);
			}
		}
	}
	if (r >= 0) {
		qsort(v, n, sizeof(*v), cmp_shard);
		for (int want = 1; r >= 0 && want <= count; want++)
			if ((size_t)want > n || v[want - 1].index != want) {
				bool dup = (size_t)want <= n && v[want - 1].index == want - 1;

				snprintf(err, es, "shard %d of %d %s", dup ? want - 1 : want, count,
					 dup ? "given twice" : "missing");
				r = -EBADMSG;
			}
		if (r >= 0 && n != (size_t)count) {
			snprintf(err, es, "%zu bundles for %d shards", n, count);
			r = -EBADMSG;
		}
	}
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			json_decref(v[i].doc);
		free(v);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* The config of that name in doc's configs, appended (status from src) when new. */
static json_t *merged_config(json_t *doc, json_t *src)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(doc, "configs"), i, c)
		if (streq(str(c, "name"), str(src, "name"))) {
			/* run anywhere: run */
			if (streq(str(src, "status"), "run") && !streq(str(c, "status"), "run")) {
				json_object_set_new(c, "status", json_string("run"));
				json_object_set_new(c, "reason", json_null());
			}
			return c;
		}
	c = json_pack("{s:s, s:O?, s:O?, s:[]}", "name", str(src, "name"), "status", json_object_get(src, "status"),
		      "reason", json_object_get(src, "reason"), "iterations");
	json_array_append_new(json_object_get(doc, "configs"), c);
	return c;
}

static json_t *merged_iteration(json_t *config, json_t *src)
{
	json_int_t index = json_integer_value(json_object_get(src, "index"));
	json_t *it;
	size_t i;

	json_array_foreach(json_object_get(config, "iterations"), i, it)
		if (json_integer_value(json_object_get(it, "index")) == index) {
			if (!streq(str(src, "state"), "done"))
				json_object_set(it, "state", json_object_get(src, "state"));
			return it;
		}
	it = json_pack("{s:I, s:O?, s:O?, s:[], s:[], s:{}}", "index", index, "seed", json_object_get(src, "seed"),
		       "state", json_object_get(src, "state"), "order", "tests", "counts");
	json_array_append_new(json_object_get(config, "iterations"), it);
	return it;
}

static void count(json_t *counts, const char *status)
{
	json_object_set_new(counts, status, json_integer(json_integer_value(json_object_get(counts, status)) + 1));
}

static int write_journal(const char *into, json_t *config, json_t *it, char *err, size_t es)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0, i;
	char slug[128], path[PATH_MAX];
	FILE *f = open_memstream(&text, &len);
	json_t *t;
	int r;

	if (!f)
		return -ENOMEM;
	json_array_foreach(json_object_get(it, "tests"), i, t) {
		char *line = json_dumps(t, JSON_COMPACT);

		if (line)
			fprintf(f, "%s\n", line);
		free(line);
	}
	fclose(f);
	snprintf(slug, sizeof(slug), "%s", str(config, "name"));
	slug[strcspn(slug, "/")] = '_';
	snprintf(path, sizeof(path), "%s/tests/%s", into, slug);
	r = fileio_mkdir_p(path);
	if (r >= 0) {
		snprintf(path, sizeof(path), "%s/tests/%s/%lld.jsonl", into, slug,
			 (long long)json_integer_value(json_object_get(it, "index")));
		r = fileio_write_atomic(path, text ? text : "", len);
	}
	if (r < 0)
		snprintf(err, es, "write '%s' failed: %s", path, strerror(-r));
	return r;
}

/*
 * A shard's records of one iteration into the merged one mi, with their
 * artifacts; a test two shards both recorded is an error. Returns 0 or -errno.
 */
static int merge_tests(json_t *seen, const struct shard *sh, json_t *c, json_t *it, json_t *mi, const char *into,
		       char *err, size_t es)
{
	json_t *t, *a;
	size_t m, x;
	int r = 0;

	json_array_foreach(json_object_get(it, "tests"), m, t) {
		char key[512];
		json_t *prev;

		snprintf(key, sizeof(key), "%s %lld %s", str(c, "name"),
			 (long long)json_integer_value(json_object_get(it, "index")), str(t, "name"));
		prev = json_object_get(seen, key);
		if (prev) {
			snprintf(err, es, "%s: recorded by shards %lld and %d", key,
				 (long long)json_integer_value(prev), sh->index);
			return -EBADMSG;
		}
		json_object_set_new(seen, key, json_integer(sh->index));
		json_array_append(json_object_get(mi, "tests"), t);
		json_array_foreach(json_object_get(t, "artifacts"), x, a) {
			const char *rel = json_string_value(a) ?: "";

			r = bundle_copy_artifact(sh->dir, rel, into);
			if (r == -ENOENT)
				r = 0; /* recorded, then lost in a crash */
			if (r < 0) {
				snprintf(err, es, "%s/%s: %s", sh->dir, rel, bundle_read_error(r));
				return r;
			}
		}
	}
	return 0;
}

/*
 * Counts taken again from the merged records and each iteration's journal
 * written (when r, the merge so far, is not an error); the records leave
 * the document. Returns r or the first error.
 */
static int write_journals(json_t *doc, const char *into, int r, char *err, size_t es)
{
	json_t *counts = json_object(), *c, *it, *t;
	size_t i, k, m;

	json_array_foreach(json_object_get(doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it) {
			json_t *ic = json_object();

			json_array_foreach(json_object_get(it, "tests"), m, t) {
				count(ic, str(t, "status"));
				count(counts, str(t, "status"));
			}
			json_object_set_new(it, "counts", ic);
			if (r >= 0)
				r = write_journal(into, c, it, err, es);
			json_object_del(it, "tests");
		}
	json_object_set_new(doc, "counts", counts);
	return r;
}

int merge_bundles(char *const *paths, const char *into, const char *run_id, char *err, size_t es)
{
	struct shard *v = NULL;
	size_t n = 0, i, k;
	json_t *doc = NULL, *shards, *seen, *c, *it;
	const char *started = NULL, *ended = NULL, *state = "complete";
	char path[PATH_MAX];
	int r;

	if (!dir_empty_or_absent(into)) {
		snprintf(err, es, "'%s' exists and is not empty", into);
		return -EEXIST;
	}
	r = load_shards(paths, &v, &n, err, es);
	if (r < 0)
		return r;
	r = fileio_mkdir_p(into);
	if (r < 0) {
		snprintf(err, es, "create '%s' failed: %s", into, strerror(-r));
		for (size_t s = 0; s < n; s++)
			json_decref(v[s].doc);
		free(v);
		return r;
	}
	doc = json_deep_copy(v[0].doc);
	shards = json_array();
	seen = json_object();
	json_object_set_new(doc, "run_id", json_string(run_id));
	json_object_set_new(doc, "configs", json_array());
	json_object_del(doc, "shard");
	/* the merged bundle is the whole run: its plan is no shard's */
	json_object_del(json_object_get(doc, "plan"), "shard");
	json_object_del(json_object_get(json_object_get(doc, "plan"), "origins"), "shard");
	for (size_t s = 0; s < n && r >= 0; s++) {
		json_t *d = v[s].doc;

		if (!started || strcmp(str(d, "started"), started) < 0)
			started = str(d, "started");
		if (!ended || strcmp(str(d, "ended"), ended) > 0)
			ended = str(d, "ended");
		if (!streq(str(d, "state"), "complete"))
			state = str(d, "state");
		json_array_append_new(shards,
				      json_pack("{s:i, s:s, s:s, s:O?}", "index", v[s].index, "run_id",
						str(d, "run_id"), "state", str(d, "state"), "estimated_seconds",
						json_object_get(json_object_get(d, "shard"), "estimated_seconds")));
		json_array_foreach(json_object_get(d, "configs"), i, c) {
			json_t *mc = merged_config(doc, c);

			json_array_foreach(json_object_get(c, "iterations"), k, it) {
				json_t *mi = merged_iteration(mc, it);

				json_array_extend(json_object_get(mi, "order"), json_object_get(it, "order"));
				if (r >= 0)
					r = merge_tests(seen, &v[s], c, it, mi, into, err, es);
			}
		}
	}
	/* counts taken again, journals written; bundle.json last */
	r = write_journals(doc, into, r, err, es);
	json_object_set_new(doc, "shards", shards);
	json_object_set_new(doc, "state", json_string(state));
	json_object_set_new(doc, "started", json_string(started ? started : ""));
	json_object_set_new(doc, "ended", json_string(ended ? ended : ""));
	if (r >= 0) {
		char *text = json_dumps(doc, JSON_INDENT(1));

		snprintf(path, sizeof(path), "%s/bundle.json", into);
		r = text ? fileio_write_atomic(path, text, strlen(text)) : -ENOMEM;
		if (r < 0)
			snprintf(err, es, "write '%s' failed: %s", path, strerror(-r));
		free(text);
	}
	json_decref(seen);
	json_decref(doc);
	for (size_t s = 0; s < n; s++)
		json_decref(v[s].doc);
	free(v);
	return r;
}
