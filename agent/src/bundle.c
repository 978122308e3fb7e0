// SPDX-License-Identifier: MIT
/*
 * Bundle writer (see bundle.h).
 */
#include "bundle.h"
#include "results.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static json_t *now_json(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(buf);
}

int bundle_create(struct bundle *b, const char *results, const char *run_id, json_t *plan, json_t *kernel)
{
	int r = 0;

	memset(b, 0, sizeof(*b));
	if (snprintf(b->dir, sizeof(b->dir), "%s/runs/%s", results, run_id) >= (int)sizeof(b->dir))
		r = -ENAMETOOLONG;
	if (r == 0)
		r = fileio_mkdir_p(b->dir);
	if (r < 0) {
		json_decref(plan);
		json_decref(kernel);
		return r;
	}
	/* "o" steals plan and kernel, as the contract says */
	b->doc = json_pack("{s:s, s:s, s:s, s:o, s:n, s:s, s:o, s:o, s:[], s:{}}", "schema", BUNDLE_SCHEMA,
			   "run_id", run_id, "fsagent_version", FSAGENT_VERSION, "started", now_json(),
			   "ended", "state", "running", "kernel", kernel ? kernel : json_null(), "plan",
			   plan ? plan : json_null(), "configs", "counts");
	return b->doc ? 0 : -ENOMEM;
}

void bundle_release(struct bundle *b)
{
	json_decref(b->doc);
	b->doc = NULL;
}

json_t *bundle_add_config(struct bundle *b, const char *name)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(b->doc, "configs"), i, c)
		if (streq(json_string_value(json_object_get(c, "name")), name))
			return c;
	c = json_pack("{s:s, s:s, s:n, s:[]}", "name", name, "status", "run", "reason", "iterations");

	json_array_append_new(json_object_get(b->doc, "configs"), c);
	return c;
}

void bundle_config_status(json_t *config, const char *status, const char *reason)
{
	json_object_set_new(config, "status", json_string(status));
	json_object_set_new(config, "reason", reason ? json_string(reason) : json_null());
}

json_t *bundle_add_iteration(json_t *config, unsigned index, const char *seed, char *const *order)
{
	json_t *ord = json_array(), *it;

	for (size_t i = 0; order && order[i]; i++)
		json_array_append_new(ord, json_string(order[i]));
	it = json_pack("{s:i, s:s?, s:o, s:[]}", "index", (int)index, "seed", seed, "order", ord, "tests");
	json_array_append_new(json_object_get(config, "iterations"), it);
	return it;
}

json_t *bundle_find_iteration(json_t *config, unsigned index)
{
	json_t *it;
	size_t i;

	json_array_foreach(json_object_get(config, "iterations"), i, it)
		if (json_integer_value(json_object_get(it, "index")) == (json_int_t)index)
			return it;
	return NULL;
}

json_t *bundle_find_test(json_t *iteration, const char *name)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(iteration, "tests"), i, t)
		if (streq(json_string_value(json_object_get(t, "name")), name))
			return t;
	return NULL;
}

int bundle_open(struct bundle *b, const char *results, const char *run_id)
{
	char path[PATH_MAX + 16];

	memset(b, 0, sizeof(*b));
	if (snprintf(b->dir, sizeof(b->dir), "%s/runs/%s", results, run_id) >= (int)sizeof(b->dir))
		return -ENAMETOOLONG;
	snprintf(path, sizeof(path), "%s/bundle.json", b->dir);
	if (access(path, F_OK) < 0)
		return -ENOENT;
	b->doc = json_load_file(path, 0, NULL);
	if (!b->doc || !streq(json_string_value(json_object_get(b->doc, "schema")) ?: "", BUNDLE_SCHEMA) ||
	    !json_is_array(json_object_get(b->doc, "configs"))) {
		json_decref(b->doc);
		b->doc = NULL;
		return -EBADMSG;
	}
	return 0;
}

static void replace_test(json_t *iteration, json_t *rec)
{
	json_t *tests = json_object_get(iteration, "tests"), *e;
	const char *name = json_string_value(json_object_get(rec, "name"));
	size_t i;

	json_array_foreach(tests, i, e)
		if (streq(json_string_value(json_object_get(e, "name")), name)) {
			json_array_set_new(tests, i, rec);
			return;
		}
	json_array_append_new(tests, rec);
}

void bundle_record_skipped(json_t *iteration, const char *name, const char *status, const char *reason,
			   const char *source)
{
	replace_test(iteration, json_pack("{s:s, s:s, s:s?, s:s?, s:f, s:{}, s:[]}", "name", name, "status",
					  status, "reason", reason, "source", source, "duration", 0.0,
					  "findings", "artifacts"));
}

/* Create the directory that will hold path. */
static int mkdir_parent(const char *path)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	return fileio_mkdir_p(dirname(dir));
}

int bundle_copy_file(const char *src, const char *dst)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = fileio_read_full(src, &buf, &len);
	if (r < 0)
		return r;
	r = mkdir_parent(dst);
	if (r < 0)
		return r;
	/*
	 * No fsync per artifact: each would cost a journal commit per test
	 * under the run. bundle.json is the durable record; an artifact a
	 * crash catches before writeback may come back short.
	 */
	return fileio_write_file(dst, buf, len);
}

/* artifacts/<config with / as _>/<iteration>/<dir>/<NNN>.<ext> */
static int artifact_path(char *buf, size_t size, const char *config, json_int_t iteration, const char *test,
			 const char *ext)
{
	char cfg[128];

	snprintf(cfg, sizeof(cfg), "%s", config);
	for (char *c = cfg; *c; c++)
		if (*c == '/')
			*c = '_';
	return snprintf(buf, size, "artifacts/%s/%lld/%s.%s", cfg, (long long)iteration, test, ext) >=
			       (int)size
		       ? -ENAMETOOLONG
		       : 0;
}

int bundle_record_test(struct bundle *b, json_t *config, json_t *iteration, const struct test_result *t,
		       const char *result_dir)
{
	static const char *const exts[] = { "out.bad", "full", "dmesg", "notrun" };
	const char *cname = json_string_value(json_object_get(config, "name"));
	json_int_t iter = json_integer_value(json_object_get(iteration, "index"));
	json_t *findings = json_object(), *artifacts = json_array(), *rec;
	char rel[PATH_MAX], src[PATH_MAX * 2], dst[PATH_MAX * 2];

	for (int f = 1; f < KMSG_FINDING_MAX; f++)
		if (t->findings[f])
			json_object_set_new(findings, kmsg_finding_to_string((enum kmsg_finding)f),
					    json_integer(t->findings[f]));
	for (size_t i = 0; result_dir && i < ARRAY_SIZE(exts); i++) {
		snprintf(src, sizeof(src), "%s/%s.%s", result_dir, t->name, exts[i]);
		if (access(src, F_OK) < 0 || artifact_path(rel, sizeof(rel), cname, iter, t->name, exts[i]) < 0)
			continue;
		snprintf(dst, sizeof(dst), "%s/%s", b->dir, rel);
		if (bundle_copy_file(src, dst) == 0)
			json_array_append_new(artifacts, json_string(rel));
	}
	if (t->kernel_log_len && artifact_path(rel, sizeof(rel), cname, iter, t->name, "kmsg") == 0) {
		snprintf(dst, sizeof(dst), "%s/%s", b->dir, rel);
		if (mkdir_parent(dst) == 0 && fileio_write_file(dst, t->kernel_log, t->kernel_log_len) == 0)
			json_array_append_new(artifacts, json_string(rel));
	}
	rec = json_pack("{s:s, s:s, s:f, s:s?, s:s?, s:o, s:s?, s:b, s:o}", "name", t->name, "status",
			test_status_to_string(t->status), "duration", t->duration, "reason",
			t->reason[0] ? t->reason : NULL, "excerpt", t->excerpt[0] ? t->excerpt : NULL,
			"findings", findings, "first_report", t->first_report[0] ? t->first_report : NULL,
			"without_lockdep", t->without_lockdep, "artifacts", artifacts);
	if (!rec)
		return -ENOMEM;
	if (t->runs > 1)
		json_object_set_new(rec, "reruns",
				    json_pack("{s:i, s:i, s:s}", "runs", (int)t->runs, "fails", (int)t->fails,
					      "classification",
					      t->fails == t->runs ? "consistent" : t->fails ? "flaky" : "passed"));
	replace_test(iteration, rec);
	return 0;
}

void bundle_set(struct bundle *b, const char *key, json_t *value)
{
	json_object_set_new(b->doc, key, value);
}

static void count_statuses(struct bundle *b)
{
	json_t *counts = json_object(), *c, *it, *t;
	size_t i, k, m;

	json_array_foreach(json_object_get(b->doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it)
			json_array_foreach(json_object_get(it, "tests"), m, t)
	{
		const char *s = json_string_value(json_object_get(t, "status"));
		json_t *n = json_object_get(counts, s);

		json_object_set_new(counts, s, json_integer(n ? json_integer_value(n) + 1 : 1));
	}
	json_object_set_new(b->doc, "counts", counts);
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int bundle_write(struct bundle *b)
{
	double t0 = mono_ms(), ms;
	int r;

	count_statuses(b);
	/* the figures of the writes before this one: a write cannot time itself */
	json_object_set_new(b->doc, "writes",
			    json_pack("{s:i, s:f, s:f}", "count", (int)b->writes, "max_ms", b->write_max_ms,
				      "mean_ms", b->writes ? b->write_total_ms / b->writes : 0.0));
	{
		/* compact: the bundle is rewritten after every test and only machines read it whole */
		_cleanup_free_ char *text = json_dumps(b->doc, JSON_COMPACT);
		char path[PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/bundle.json", b->dir);
		r = text ? fileio_write_replace(path, text, strlen(text)) : -ENOMEM;
	}
	ms = mono_ms() - t0;
	b->writes++;
	b->write_total_ms += ms;
	if (ms > b->write_max_ms)
		b->write_max_ms = ms;
	return r;
}

int bundle_finish(struct bundle *b, const char *state)
{
	json_object_set_new(b->doc, "peak_rss_kb", json_integer(fileio_peak_rss_kb()));
	json_object_set_new(b->doc, "state", json_string(state));
	json_object_set_new(b->doc, "ended", now_json());
	return bundle_write(b);
}
