// SPDX-License-Identifier: MIT
/*
 * A bundle's layout and the rules every reader applies to what a guest
 * wrote, and bundle_load() (see bundle.h, bundle_internal.h).
 */
#include "model/bundle.h"
#include "model/result.h"
#include "model/bundle_internal.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/pathname.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * "xfs/4k" -> "xfs_4k". Only names the catalog can have pass: a bundle read
 * back must not steer a path out of its directory.
 */
int bundle_config_slug(const char *config, char *buf, size_t size)
{
	size_t n = config ? strlen(config) : 0, slash = 0;

	if (n == 0 || n >= size)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		char c = config[i];

		if (c == '/' && i > 0 && i + 1 < n && !slash++)
			buf[i] = '_';
		else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
			buf[i] = c;
		else
			return -EINVAL;
	}
	buf[n] = '\0';
	return slash == 1 ? 0 : -EINVAL;
}

/* tests/<slug>/<index>.jsonl, relative to the bundle directory */
int bundle_journal_rel(char *buf, size_t size, const char *config, json_t *iteration)
{
	json_t *index = json_object_get(iteration, "index");
	char slug[128];

	if (bundle_config_slug(config, slug, sizeof(slug)) < 0 || !json_is_integer(index) ||
	    json_integer_value(index) < 0)
		return -EINVAL;
	return snprintf(buf, size, "tests/%s/%lld.jsonl", slug, (long long)json_integer_value(index)) >= (int)size
		       ? -ENAMETOOLONG
		       : 0;
}

const char *bundle_config_name(json_t *config)
{
	return json_string_value(json_object_get(config, "name"));
}

void bundle_count_status(json_t *iteration, const char *status, json_int_t delta)
{
	json_t *counts = json_object_get(iteration, "counts");
	json_t *n = json_object_get(counts, status);

	if (!counts) {
		counts = json_object();
		json_object_set_new(iteration, "counts", counts);
	}
	json_object_set_new(counts, status, json_integer((n ? json_integer_value(n) : 0) + delta));
}

bool bundle_status_known(const char *s)
{
	return test_status_from_string(s) != TS_MAX;
}

/*
 * The rules every reader applies to a record (bundle_scan's scan_line
 * applies the same to its fields): a test name, a known status, artifact
 * and coverage paths that stay inside the bundle.
 */
static bool record_ok(json_t *rec, char *why, size_t size)
{
	json_t *arts = json_object_get(rec, "artifacts"), *cov = json_object_get(rec, "coverage"), *a;
	const char *dir;
	size_t i;

	if (!bundle_test_name_ok(json_string_value(json_object_get(rec, "name")))) {
		snprintf(why, size, BUNDLE_WHY_NAME);
		return false;
	}
	if (!bundle_status_known(json_string_value(json_object_get(rec, "status")))) {
		snprintf(why, size, BUNDLE_WHY_STATUS);
		return false;
	}
	if (arts && !json_is_array(arts) && !json_is_null(arts)) {
		snprintf(why, size, "key 'artifacts': not an array");
		return false;
	}
	json_array_foreach(arts, i, a)
		if (!json_is_string(a) || !bundle_artifact_ok(json_string_value(a))) {
			snprintf(why, size, "key 'artifacts': item %zu is not a path under artifacts/", i);
			return false;
		}
	if (cov && (!(dir = json_string_value(json_object_get(cov, "dir"))) || !bundle_rel_path_ok(dir, "coverage"))) {
		snprintf(why, size, "key 'coverage.dir': not a path under coverage/");
		return false;
	}
	return true;
}

/*
 * Parse a journal: the records in order of first appearance, a later record
 * of a test replacing the earlier one. A last line without its newline was
 * torn by a crash and is not a record; *ret_end (may be NULL) gets the length
 * of the whole lines. Any other bad line is an error naming shown:line.
 */
int bundle_parse_journal(const char *text, size_t len, const char *shown, json_t **ret, size_t *ret_end, char *err,
			 size_t es)
{
	json_auto_t *tests = json_array(), *where = json_object();
	size_t pos = 0;
	unsigned lineno = 0;
	char why[PATH_MAX + 64];

	if (!tests || !where)
		return -ENOMEM;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		json_error_t jerr;
		json_t *rec, *at;
		const char *name;

		if (!nl)
			break; /* torn */
		lineno++;
		if ((size_t)(nl - text) - pos > BUNDLE_MAX_LINE) {
			snprintf(err, es, "%s:%u: longer than %u bytes", shown, lineno, BUNDLE_MAX_LINE);
			return -EBADMSG;
		}
		rec = json_loadb(text + pos, (size_t)(nl - text) - pos, 0, &jerr);
		name = json_string_value(json_object_get(rec, "name"));
		if (!rec || !name || !json_is_string(json_object_get(rec, "status"))) {
			snprintf(err, es, "%s:%u: %s", shown, lineno,
				 rec ? "not a test record (needs 'name' and 'status')" : jerr.text);
			json_decref(rec);
			return -EBADMSG;
		}
		if (!record_ok(rec, why, sizeof(why))) {
			snprintf(err, es, "%s:%u: %s", shown, lineno, why);
			json_decref(rec);
			return -EBADMSG;
		}
		at = json_object_get(where, name);
		if (at)
			json_array_set_new(tests, (size_t)json_integer_value(at), rec);
		else {
			json_object_set_new(where, name, json_integer((json_int_t)json_array_size(tests)));
			json_array_append_new(tests, rec);
		}
		pos = (size_t)(nl - text) + 1;
	}
	if (ret_end)
		*ret_end = pos;
	*ret = json_incref(tests);
	return 0;
}

/* A file of a bundle: beneath its directory, no symlink followed, regular, capped. */
int bundle_read_beneath(const char *dir, const char *rel, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return -errno;
	return fileio_read_beneath(dfd, rel, max, ret, ret_len);
}

/* Why a bundle's file was refused, in words. */
const char *bundle_read_error(int r)
{
	switch (r) {
	case -ELOOP: return "a symbolic link on the way: refused";
	case -EINVAL: return "not a regular file: refused";
	case -EFBIG: return "larger than a reader accepts: refused";
	default: return strerror(-r);
	}
}

/* The records of an iteration's journal; a missing journal has none. */
int bundle_read_journal(const char *dir, json_t *config, json_t *iteration, json_t **ret, char *err, size_t es)
{
	_cleanup_free_ char *text = NULL;
	char rel[PATH_MAX];
	size_t len;
	int r;

	r = bundle_journal_rel(rel, sizeof(rel), bundle_config_name(config), iteration);
	if (r < 0) {
		snprintf(err, es, "key 'configs[].name': '%s' cannot name a journal",
			 bundle_config_name(config) ?: "(missing)");
		return -EBADMSG;
	}
	r = bundle_read_beneath(dir, rel, BUNDLE_MAX_JOURNAL, &text, &len);
	if (r == -ENOENT) {
		*ret = json_array();
		return *ret ? 0 : -ENOMEM;
	}
	if (r < 0) {
		snprintf(err, es, "%s: %s", rel, bundle_read_error(r));
		return r == -ENOMEM ? r : -EBADMSG;
	}
	return bundle_parse_journal(text, len, rel, ret, NULL, err, es);
}

void bundle_recount(json_t *iteration, json_t *tests)
{
	json_t *t;
	size_t i;

	json_object_set_new(iteration, "counts", json_object());
	json_array_foreach(tests, i, t)
		bundle_count_status(iteration, json_string_value(json_object_get(t, "status")), 1);
}

bool bundle_iteration_folded(json_t *iteration)
{
	return json_is_true(json_object_get(iteration, "folded"));
}

bool bundle_iteration_running(json_t *iteration)
{
	return streq(json_string_value(json_object_get(iteration, "state")) ?: "", "running");
}

/* The shape every reader relies on; err names the key. */
/*
 * A soak's aggregate (config -> test -> {statuses: {status: count}}): the
 * counts every reader takes, bounded as the scan's (report and export read
 * the document, compare and upkeep scan it: both refuse the same).
 */
static int check_aggregate(json_t *agg, char *err, size_t es)
{
	const char *cname, *tname, *sname;
	json_t *tests, *a, *v;

	if (agg && !json_is_object(agg)) {
		snprintf(err, es, "key 'aggregate': not an object");
		return -EBADMSG;
	}
	json_object_foreach(agg, cname, tests)
		json_object_foreach(tests, tname, a)
			json_object_foreach(json_object_get(a, "statuses"), sname, v)
				if (!bundle_status_known(sname) || !json_is_integer(v) || json_integer_value(v) < 0 ||
				    json_integer_value(v) > BUNDLE_MAX_COUNT) {
					snprintf(err, es, "key 'aggregate.%s.%s.statuses.%s': not a status count",
						 cname, tname, sname);
					return -EBADMSG;
				}
	return 0;
}

int bundle_check_doc(json_t *doc, char *err, size_t es)
{
	static const char *const keys[] = { "run_id", "state", "plan", "configs" };
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	json_t *c, *it;
	size_t i, k;

	if (!json_is_object(doc)) {
		snprintf(err, es, "not a JSON object");
		return -EBADMSG;
	}
	if (!schema || !streq(schema, BUNDLE_SCHEMA)) {
		snprintf(err, es, "key 'schema': '%s' is not '%s'", schema ? schema : "(missing)", BUNDLE_SCHEMA);
		return -EBADMSG;
	}
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!json_object_get(doc, keys[i])) {
			snprintf(err, es, "key '%s': missing", keys[i]);
			return -EBADMSG;
		}
	if (!json_is_string(json_object_get(doc, "run_id")) || !json_is_string(json_object_get(doc, "state"))) {
		snprintf(err, es, "key '%s': not a string",
			 json_is_string(json_object_get(doc, "run_id")) ? "state" : "run_id");
		return -EBADMSG;
	}
	if (!json_is_array(json_object_get(doc, "configs"))) {
		snprintf(err, es, "key 'configs': not an array");
		return -EBADMSG;
	}
	json_array_foreach(json_object_get(doc, "configs"), i, c) {
		char slug[128];

		if (bundle_config_slug(bundle_config_name(c), slug, sizeof(slug)) < 0 ||
		    !json_is_array(json_object_get(c, "iterations"))) {
			snprintf(err, es, "key 'configs[%zu]': needs a name like 'xfs/4k' and iterations", i);
			return -EBADMSG;
		}
		json_array_foreach(json_object_get(c, "iterations"), k, it)
			if (!json_is_integer(json_object_get(it, "index")) ||
			    json_integer_value(json_object_get(it, "index")) < 0 ||
			    (!json_is_array(json_object_get(it, "order")) && !bundle_iteration_folded(it))) {
				snprintf(err, es, "key 'configs[%zu].iterations[%zu]': needs an index and an order", i,
					 k);
				return -EBADMSG;
			} else {
				const char *st;
				json_t *n;

				json_object_foreach(json_object_get(it, "counts"), st, n)
					if (!bundle_status_known(st) || !json_is_integer(n) ||
					    json_integer_value(n) < 0 || json_integer_value(n) > BUNDLE_MAX_COUNT) {
						snprintf(err, es,
							 "key 'configs[%zu].iterations[%zu].counts': not status counts",
							 i, k);
						return -EBADMSG;
					}
			}
	}
	return check_aggregate(json_object_get(doc, "aggregate"), err, es);
}

/* Sum the iterations' counts into the document's. */
void bundle_sum_counts(json_t *doc)
{
	json_t *counts = json_object(), *c, *it, *v;
	const char *s;
	size_t i, k;

	bundle_foreach_iteration(doc, i, c, k, it)
		json_object_foreach(json_object_get(it, "counts"), s, v) {
			json_t *n = json_object_get(counts, s);

			json_object_set_new(counts, s,
					    json_integer((n ? json_integer_value(n) : 0) + json_integer_value(v)));
		}
	json_object_set_new(doc, "counts", counts);
}

/*
 * A bundle's document, checked: path is bundle.json or its directory; dir
 * gets the bundle's directory. Returns 0, -ENAMETOOLONG or -EBADMSG with
 * err naming the file.
 */
int bundle_load_checked(const char *path, json_t **ret, char *dir, size_t dsize, char *err, size_t es)
{
	_cleanup_free_ char *text = NULL;
	char file[PATH_MAX], buf[PATH_MAX], why[256];
	struct stat st;
	json_error_t jerr;
	json_t *doc;
	size_t len;
	int r;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		r = snprintf(file, sizeof(file), "%s/bundle.json", path);
	else
		r = snprintf(file, sizeof(file), "%s", path);
	if (r >= (int)sizeof(file))
		return -ENAMETOOLONG;
	snprintf(buf, sizeof(buf), "%s", file);
	snprintf(dir, dsize, "%s", dirname(buf));
	r = fileio_read_regular(file, BUNDLE_MAX_DOC, &text, &len);
	if (r < 0) {
		snprintf(err, es, "%s: %s", file, bundle_read_error(r));
		return r == -ENOMEM ? r : -EBADMSG;
	}
	doc = json_loadb(text, len, 0, &jerr);
	if (!doc) {
		snprintf(err, es, "%s: line %d: %s", file, jerr.line, jerr.text);
		return -EBADMSG;
	}
	r = bundle_check_doc(doc, why, sizeof(why));
	if (r < 0) {
		snprintf(err, es, "%s: %s", file, why);
		json_decref(doc);
		return r;
	}
	*ret = doc;
	return 0;
}

int bundle_walk(const char *path, const struct bundle_walker *w, void *ctx, json_t **ret_doc, char *err, size_t es)
{
	char dir[PATH_MAX];
	json_auto_t *doc = NULL;
	json_t *c, *it;
	size_t i, k;
	int r = bundle_load_checked(path, &doc, dir, sizeof(dir), err, es);

	if (r == 0 && w->begin)
		r = w->begin(ctx, doc, dir, err, es);
	bundle_foreach_iteration(doc, i, c, k, it) {
		/* a soak's clean iteration: its counts are all there is */
		if (r == 0 && !bundle_iteration_folded(it))
			r = w->iteration(ctx, dir, c, it, err, es);
	}
	if (r == 0 && ret_doc)
		*ret_doc = json_incref(doc);
	return r;
}

/* bundle_load's walker: each iteration's records from its journal, its counts taken again */
static int load_iteration(void *ctx, const char *dir, json_t *config, json_t *it, char *err, size_t es)
{
	json_t *tests;
	char why[512];
	int r = bundle_read_journal(dir, config, it, &tests, why, sizeof(why));

	(void)ctx;
	if (r < 0) {
		snprintf(err, es, "%s/%s", dir, why);
		return r;
	}
	bundle_recount(it, tests);
	json_object_set_new(it, "tests", tests);
	return 0;
}

int bundle_load(const char *path, json_t **ret, char *err, size_t es)
{
	static const struct bundle_walker w = { .iteration = load_iteration };
	int r = bundle_walk(path, &w, NULL, ret, err, es);

	if (r == 0)
		bundle_sum_counts(*ret);
	return r;
}

bool bundle_test_name_ok(const char *name)
{
	return test_name_ok(name, false);
}

bool bundle_artifact_ok(const char *path)
{
	return bundle_rel_path_ok(path, "artifacts");
}

bool bundle_rel_path_ok(const char *path, const char *top)
{
	size_t tl = strlen(top);

	return strncmp(path, top, tl) == 0 && path[tl] == '/' && pathname_relative_ok(path);
}
