// SPDX-License-Identifier: MIT
/*
 * The bundle writer: a run's bundle.json and journals on the results disk
 * (see bundle.h). The layout and the rules readers apply are in bundle_read.c.
 */
#include "model/bundle.h"
#include "model/bundle_internal.h"
#include "model/result.h"
#include "util/utctime.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"
#include "util/version.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static json_t *now_json(void)
{
	char buf[UTCTIME_SIZE];

	utctime_format((long long)time(NULL), buf, sizeof(buf));
	return json_string(buf);
}

enum bundle_outcome_kind bundle_outcome_of(const struct bundle *b)
{
	json_t *v;
	const char *k;
	bool ran = false;

	json_t *c, *it;
	size_t i, j;

	if (bundle_records_lost(b) || json_is_string(json_object_get(b->doc, "error")))
		return BUNDLE_FAILED;
	/* a crash pinned to two tests together, or to none: no test's record fails, the run does */
	json_array_foreach(json_object_get(b->doc, "configs"), i, c) {
		if (json_object_get(c, "crash_before_tests"))
			return BUNDLE_FAILED;
		json_array_foreach(json_object_get(c, "iterations"), j, it)
			if (json_object_get(it, "crash_pair") || json_object_get(it, "crash_unexplained"))
				return BUNDLE_FAILED;
	}
	json_object_foreach(json_object_get(b->doc, "counts"), k, v) {
		if (json_integer_value(v) <= 0)
			continue;
		if (test_status_name_failed(k))
			return BUNDLE_FAILED;
		ran |= !test_status_name_skipped(k);
	}
	return ran ? BUNDLE_PASSED : BUNDLE_NOTHING_RAN;
}

int bundle_create(struct bundle *b, const char *results, const char *run_id, json_t *plan, json_t *kernel)
{
	int r = 0;

	memset(b, 0, sizeof(*b));
	b->jfd = -1;
	if (snprintf(b->dir, sizeof(b->dir), "%s/runs/%s", results, run_id) >= (int)sizeof(b->dir))
		r = -ENAMETOOLONG;
	if (r == 0)
		r = fileio_mkdir_p(b->dir);
	if (r < 0) {
		json_decref(plan);
		json_decref(kernel);
		return r;
	}
	bundle_reserve_take(b);
	/* "o" steals plan and kernel, as the contract says */
	b->doc = json_pack("{s:s, s:s, s:s, s:o, s:n, s:s, s:o, s:o, s:[], s:{}}", "schema", BUNDLE_SCHEMA, "run_id",
			   run_id, "fsagent_version", fsagent_version, "started", now_json(), "ended", "state",
			   "running", "kernel", kernel ? kernel : json_null(), "plan", plan ? plan : json_null(),
			   "configs", "counts");
	return b->doc ? 0 : -ENOMEM;
}

int bundle_open(struct bundle *b, const char *results, const char *run_id)
{
	char path[PATH_MAX + 16], err[256];
	json_t *c, *it;
	size_t i, k;

	memset(b, 0, sizeof(*b));
	b->jfd = -1;
	if (snprintf(b->dir, sizeof(b->dir), "%s/runs/%s", results, run_id) >= (int)sizeof(b->dir))
		return -ENAMETOOLONG;
	snprintf(path, sizeof(path), "%s/bundle.json", b->dir);
	if (access(path, F_OK) < 0)
		return -ENOENT;
	b->doc = json_load_file(path, 0, NULL);
	if (!b->doc || bundle_check_doc(b->doc, err, sizeof(err)) < 0)
		goto bad;
	/* the journals are the truth about iterations a crash interrupted */
	json_array_foreach(json_object_get(b->doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it) {
			json_t *tests;

			if (!bundle_iteration_running(it))
				continue;
			if (bundle_read_journal(b->dir, c, it, &tests, err, sizeof(err)) < 0)
				goto bad;
			bundle_recount(it, tests);
			json_decref(tests);
		}
	bundle_reserve_take(b);
	return 0;
bad:
	json_decref(b->doc);
	b->doc = NULL;
	return -EBADMSG;
}

void bundle_release(struct bundle *b)
{
	bundle_journal_close(b);
	json_decref(b->doc);
	b->doc = NULL;
	json_decref(b->pending);
	b->pending = NULL;
}

json_t *bundle_add_config(struct bundle *b, const char *name)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(b->doc, "configs"), i, c)
		if (streq(bundle_config_name(c), name))
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

json_t *bundle_add_iteration(struct bundle *b, json_t *config, unsigned index, const char *seed, char *const *order)
{
	json_t *ord = json_array(), *it;

	for (size_t i = 0; order && order[i]; i++)
		json_array_append_new(ord, json_string(order[i]));
	it = json_pack("{s:i, s:s?, s:o, s:s, s:{}}", "index", (int)index, "seed", seed, "order", ord, "state",
		       "running", "counts");
	if (!it)
		return NULL;
	json_array_append_new(json_object_get(config, "iterations"), it);
	/* the journal exists before bundle.json names its iteration */
	if (bundle_journal_open(b, config, it) < 0 || fsync(b->jfd) < 0)
		return NULL;
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

void bundle_iteration_end(json_t *iteration, const char *state)
{
	json_object_set_new(iteration, "state", json_string(state));
}

static bool iteration_done(json_t *iteration)
{
	return streq(json_string_value(json_object_get(iteration, "state")) ?: "", "done");
}

static void aggregate_add(json_t *agg, json_t *rec)
{
	const char *status = json_string_value(json_object_get(rec, "status"));
	double d = json_number_value(json_object_get(rec, "duration"));
	json_t *statuses = json_object_get(agg, "statuses"), *n;

	if (!statuses) {
		statuses = json_object();
		json_object_set_new(agg, "statuses", statuses);
	}
	n = json_object_get(statuses, status);
	json_object_set_new(statuses, status, json_integer((n ? json_integer_value(n) : 0) + 1));
	json_object_set_new(agg, "runs", json_integer(json_integer_value(json_object_get(agg, "runs")) + 1));
	json_object_set_new(agg, "duration_total",
			    json_real(json_number_value(json_object_get(agg, "duration_total")) + d));
	if (d > json_number_value(json_object_get(agg, "duration_max")) || !json_object_get(agg, "duration_max"))
		json_object_set_new(agg, "duration_max", json_real(d));
}

int bundle_fold_iteration(struct bundle *b, json_t *config, json_t *iteration)
{
	json_t *agg = json_object_get(b->doc, "aggregate"), *per, *tests = NULL, *t;
	char rel[PATH_MAX], path[PATH_MAX * 2], err[256];
	bool clean = true;
	size_t i;
	int r;

	if (bundle_iteration_folded(iteration) || json_is_true(json_object_get(iteration, "aggregated")) ||
	    json_array_size(b->pending))
		return 0; /* records still waiting for space would be folded away */
	r = bundle_read_journal(b->dir, config, iteration, &tests, err, sizeof(err));
	if (r < 0)
		return r;
	if (!agg) {
		agg = json_object();
		json_object_set_new(b->doc, "aggregate", agg);
	}
	per = json_object_get(agg, bundle_config_name(config));
	if (!per) {
		per = json_object();
		json_object_set_new(agg, bundle_config_name(config), per);
	}
	json_array_foreach(tests, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		const char *st = json_string_value(json_object_get(t, "status"));
		json_t *a = json_object_get(per, name);

		if (!a) {
			a = json_object();
			json_object_set_new(per, name, a);
		}
		aggregate_add(a, t);
		clean &= streq(st, "pass") || streq(st, "notrun") || streq(st, "expunged");
	}
	json_decref(tests);
	json_object_set_new(iteration, "aggregated", json_true());
	if (!clean)
		return 0; /* failures keep their records and the order they ran in */
	if (b->jit == iteration)
		bundle_journal_close(b);
	if (bundle_journal_rel(rel, sizeof(rel), bundle_config_name(config), iteration) == 0) {
		snprintf(path, sizeof(path), "%s/%s", b->dir, rel);
		unlink(path);
	}
	json_object_del(iteration, "order");
	json_object_set_new(iteration, "folded", json_true());
	return 0;
}

bool bundle_config_done(json_t *config, unsigned end)
{
	json_t *it = end ? bundle_find_iteration(config, end - 1) : NULL;

	if (!streq(json_string_value(json_object_get(config, "status")) ?: "", "run"))
		return true; /* not run, or failed to set up: recorded already */
	/* a config's iterations run in turn: the last one done means all are */
	return it && iteration_done(it);
}

void bundle_set_in_flight(json_t *iteration, char *const *names)
{
	if (names && names[0])
		json_object_set_new(iteration, "in_flight", strv_to_json(names));
	else
		json_object_del(iteration, "in_flight");
}

int bundle_remaining(struct bundle *b, json_t *config, json_t *iteration, char ***ret)
{
	json_auto_t *tests = NULL, *seen = json_object();
	char **left = NULL, err[256];
	json_t *t, *name;
	size_t i;
	int r;

	r = bundle_read_journal(b->dir, config, iteration, &tests, err, sizeof(err));
	if (r < 0)
		return r;
	json_array_foreach(tests, i, t)
		json_object_set(seen, json_string_value(json_object_get(t, "name")), json_true());
	json_array_foreach(json_object_get(iteration, "order"), i, name)
		if (json_is_string(name) && !json_object_get(seen, json_string_value(name)) &&
		    strv_push(&left, json_string_value(name)) < 0) {
			strv_free(left);
			return -ENOMEM;
		}
	*ret = left;
	return 0;
}

int bundle_record_skipped(struct bundle *b, json_t *config, json_t *iteration, const char *name, const char *status,
			  const char *reason, const char *source)
{
	json_auto_t *rec = json_pack("{s:s, s:s, s:s?, s:s?, s:f, s:{}, s:[]}", "name", name, "status", status,
				     "reason", reason, "source", source, "duration", 0.0, "findings", "artifacts");

	return rec ? bundle_journal_append(b, config, iteration, rec, false) : -ENOMEM;
}

int bundle_copy_file(const char *src, const char *dst)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = fileio_read_full(src, &buf, &len);
	if (r < 0)
		return r;
	r = fileio_mkdir_parent(dst);
	if (r < 0)
		return r;
	/*
	 * No fsync per artifact: each would cost a journal commit per test
	 * under the run. The journal is the durable record; an artifact a
	 * crash catches before writeback may come back short.
	 */
	return fileio_write_file(dst, buf, len);
}

int bundle_copy_artifact(const char *from, const char *rel, const char *to)
{
	_cleanup_free_ char *buf = NULL;
	char dst[PATH_MAX * 2];
	size_t len;
	int r;

	if (!bundle_artifact_ok(rel))
		return -EINVAL;
	r = bundle_read_beneath(from, rel, BUNDLE_MAX_DOC, &buf, &len);
	if (r < 0)
		return r;
	if (snprintf(dst, sizeof(dst), "%s/%s", to, rel) >= (int)sizeof(dst))
		return -ENAMETOOLONG;
	r = fileio_mkdir_parent(dst);
	return r < 0 ? r : fileio_write_file(dst, buf, len);
}

/* artifacts/<config slug>/<iteration>/<dir>/<NNN>.<ext> */
static int artifact_path(char *buf, size_t size, const char *config, json_int_t iteration, const char *test,
			 const char *ext)
{
	char slug[128];

	if (bundle_config_slug(config, slug, sizeof(slug)) < 0)
		return -EINVAL;
	return snprintf(buf, size, "artifacts/%s/%lld/%s.%s", slug, (long long)iteration, test, ext) >= (int)size
		       ? -ENAMETOOLONG
		       : 0;
}

/* Copy check's files of a test that did not pass, and its kernel log. */
/* text with every from replaced by to, or NULL (no memory, or nothing to replace). */
static char *replace_all(const char *text, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	char *out, *o;

	for (const char *p = text; fl && (p = strstr(p, from)); p += fl)
		n++;
	if (!n || !(out = malloc(strlen(text) + n * tl + 1)))
		return NULL;
	o = out;
	for (const char *p = text, *q; (q = strstr(p, from)); p = q + fl) {
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, to, tl);
		o += tl;
		text = q + fl;
	}
	strcpy(o, text);
	return out;
}

/* The record's reason and excerpt name the guest's copy of an artifact: name the bundle's instead. */
static void rebase_paths(json_t *rec, const char *from, const char *to)
{
	static const char *const keys[] = { "reason", "excerpt" };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = json_string_value(json_object_get(rec, keys[i]));
		char *r = v ? replace_all(v, from, to) : NULL;

		if (r)
			json_object_set_new(rec, keys[i], json_string(r));
		free(r);
	}
}

static json_t *copy_artifacts(struct bundle *b, const char *cname, json_int_t iter, const struct test_result *t,
			      const char *result_dir, json_t *rec)
{
	static const char *const exts[] = { "out.bad", "full", "dmesg", "notrun" };
	char rel[PATH_MAX], src[PATH_MAX * 2], dst[PATH_MAX * 2];
	json_t *artifacts = json_array();
	bool findings = false;

	for (int f = 1; f < KMSG_FINDING_MAX; f++)
		findings |= t->findings[f] > 0;
	/* a soak of passing tests must not fill the disk with their logs */
	if (!findings && (t->status == TS_PASS || t->status == TS_NOTRUN || t->status == TS_EXPUNGED))
		return artifacts;
	for (size_t i = 0; result_dir && i < ARRAY_SIZE(exts); i++) {
		snprintf(src, sizeof(src), "%s/%s.%s", result_dir, t->name, exts[i]);
		if (access(src, F_OK) < 0 || artifact_path(rel, sizeof(rel), cname, iter, t->name, exts[i]) < 0)
			continue;
		snprintf(dst, sizeof(dst), "%s/%s", b->dir, rel);
		if (bundle_copy_file(src, dst) == 0) {
			json_array_append_new(artifacts, json_string(rel));
			rebase_paths(rec, src, rel);
			/* check prints RESULT_BASE's trailing '/' too: "results//generic/002.out.bad" */
			snprintf(src, sizeof(src), "%s//%s.%s", result_dir, t->name, exts[i]);
			rebase_paths(rec, src, rel);
		}
	}
	if (t->kernel_log_len && artifact_path(rel, sizeof(rel), cname, iter, t->name, "kmsg") == 0) {
		snprintf(dst, sizeof(dst), "%s/%s", b->dir, rel);
		if (fileio_mkdir_parent(dst) == 0 && fileio_write_file(dst, t->kernel_log, t->kernel_log_len) == 0)
			json_array_append_new(artifacts, json_string(rel));
	}
	return artifacts;
}

int bundle_record_test(struct bundle *b, json_t *config, json_t *iteration, const struct test_result *t,
		       const char *result_dir)
{
	json_int_t iter = json_integer_value(json_object_get(iteration, "index"));
	json_t *findings = json_object();
	json_auto_t *rec = NULL;

	for (int f = 1; f < KMSG_FINDING_MAX; f++)
		if (t->findings[f])
			json_object_set_new(findings, kmsg_finding_to_string((enum kmsg_finding)f),
					    json_integer(t->findings[f]));
	rec = json_pack("{s:s, s:s, s:f, s:s?, s:s?, s:o, s:s?, s:b}", "name", t->name, "status",
			test_status_to_string(t->status), "duration", t->duration, "reason",
			t->reason[0] ? t->reason : NULL, "excerpt", t->excerpt && t->excerpt[0] ? t->excerpt : NULL,
			"findings", findings, "first_report", t->first_report[0] ? t->first_report : NULL,
			"without_lockdep", t->without_lockdep);
	if (!rec)
		return -ENOMEM;
	if (t->timeout)
		json_object_set_new(rec, "timeout", json_integer(t->timeout));
	if (t->server[0])
		json_object_set_new(rec, "server", json_string(t->server));
	if (t->kernel_shared)
		json_object_set_new(rec, "kernel_shared", json_true());
	if (t->shared_finding[0])
		json_object_set_new(rec, "shared_finding", json_string(t->shared_finding));
	if (t->runner) {
		char **beside = strv_split(t->beside ? t->beside : "", " ");

		json_object_set_new(rec, "runner", json_integer(t->runner));
		json_object_set_new(rec, "started", json_real(t->started));
		json_object_set_new(rec, "beside", strv_to_json(beside));
		strv_free(beside);
	}
	json_object_set_new(rec, "artifacts", copy_artifacts(b, bundle_config_name(config), iter, t, result_dir, rec));
	if (t->has_coverage) {
		char abs[PATH_MAX], rel[PATH_MAX];

		if (bundle_coverage_dir(b, config, iteration, t->name, abs, sizeof(abs), rel, sizeof(rel)) == 0)
			json_object_set_new(rec, "coverage",
					    json_pack("{s:s, s:i}", "dir", rel, "files", (int)t->coverage_files));
	}
	if (t->runs > 1)
		json_object_set_new(rec, "reruns",
				    json_pack("{s:i, s:i, s:s}", "runs", (int)t->runs, "fails", (int)t->fails,
					      "classification",
					      t->fails == t->runs ? "consistent"
					      : t->fails	  ? "flaky"
								  : "passed"));
	return bundle_journal_append(b, config, iteration, rec, true);
}

int bundle_coverage_dir(struct bundle *b, json_t *config, json_t *iteration, const char *test, char *abs, size_t as,
			char *rel, size_t rs)
{
	char slug[128];

	if (bundle_config_slug(bundle_config_name(config), slug, sizeof(slug)) < 0 || !bundle_test_name_ok(test))
		return -EINVAL;
	if (snprintf(rel, rs, "coverage/%s/%lld/%s", slug,
		     (long long)json_integer_value(json_object_get(iteration, "index")), test) >= (int)rs ||
	    snprintf(abs, as, "%s/%s", b->dir, rel) >= (int)as)
		return -ENAMETOOLONG;
	return 0;
}

size_t bundle_count_recorded(struct bundle *b)
{
	json_t *c, *it, *v;
	const char *s;
	size_t i, k, n = 0;

	json_array_foreach(json_object_get(b->doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it)
			json_object_foreach(json_object_get(it, "counts"), s, v)
				n += (size_t)json_integer_value(v);
	return n;
}

void bundle_set(struct bundle *b, const char *key, json_t *value)
{
	json_object_set_new(b->doc, key, value);
}

int bundle_write(struct bundle *b)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX + 16];

	/* a full disk may have room again: the records it held back go first (not into the reserve) */
	if (json_array_size(b->pending) && b->reserve)
		bundle_flush_pending(b);
	/* the records bundle.json counts are durable before it is */
	if (b->jfd >= 0 && fdatasync(b->jfd) < 0)
		return -errno;
	bundle_sum_counts(b->doc);
	json_object_set_new(b->doc, "writes",
			    json_pack("{s:i, s:f, s:f}", "count", (int)b->writes, "max_ms", b->write_max_ms, "mean_ms",
				      b->writes ? b->write_total_ms / b->writes : 0.0));
	json_object_set_new(b->doc, "records_lost", json_integer((json_int_t)bundle_records_lost(b)));
	text = json_dumps(b->doc, JSON_COMPACT);
	if (!text)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/bundle.json", b->dir);
	return fileio_write_replace(path, text, strlen(text));
}

int bundle_finish(struct bundle *b, const char *state)
{
	size_t lost;
	int r;

	json_object_set_new(b->doc, "peak_rss_kb", json_integer(fileio_peak_rss_kb()));
	if (json_array_size(b->pending))
		bundle_flush_pending(b);
	lost = bundle_records_lost(b);
	if (lost) {
		char why[160];

		snprintf(why, sizeof(why), "%zu test records could not be written: the results disk is full", lost);
		json_object_set_new(b->doc, "error", json_string(why));
		state = "error";
	}
	json_object_set_new(b->doc, "state", json_string(state));
	json_object_set_new(b->doc, "ended", now_json());
	/* the reserve's space is this last bundle.json's, never the records' */
	bundle_reserve_give(b);
	r = bundle_write(b);
	return r < 0 ? r : lost ? -ENOSPC : 0;
}
