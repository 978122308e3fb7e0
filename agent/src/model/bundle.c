// SPDX-License-Identifier: MIT
/*
 * Bundle writer and reader (see bundle.h).
 */
#include "model/bundle.h"
#include "util/fileio.h"
#include "util/jscan.h"
#include "util/macro.h"
#include "util/strmap.h"
#include "util/strv.h"
#include "util/version.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * "xfs/4k" -> "xfs_4k". Only names the catalog can have pass: a bundle read
 * back must not steer a path out of its directory.
 */
static int config_slug(const char *config, char *buf, size_t size)
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
static int journal_rel(char *buf, size_t size, const char *config, json_t *iteration)
{
	json_t *index = json_object_get(iteration, "index");
	char slug[128];

	if (config_slug(config, slug, sizeof(slug)) < 0 || !json_is_integer(index) || json_integer_value(index) < 0)
		return -EINVAL;
	return snprintf(buf, size, "tests/%s/%lld.jsonl", slug, (long long)json_integer_value(index)) >= (int)size
		       ? -ENAMETOOLONG
		       : 0;
}

static const char *config_name(json_t *config)
{
	return json_string_value(json_object_get(config, "name"));
}

/* Create the directory that will hold path. */
static int mkdir_parent(const char *path)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	return fileio_mkdir_p(dirname(dir));
}

static void count_status(json_t *iteration, const char *status, json_int_t delta)
{
	json_t *counts = json_object_get(iteration, "counts");
	json_t *n = json_object_get(counts, status);

	if (!counts) {
		counts = json_object();
		json_object_set_new(iteration, "counts", counts);
	}
	json_object_set_new(counts, status, json_integer((n ? json_integer_value(n) : 0) + delta));
}

static const char *const known_statuses[] = { "pass", "fail", "notrun", "expunged", "timeout", "crash", "error" };

static bool status_known(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(known_statuses); i++)
		if (streq(s, known_statuses[i]))
			return true;
	return false;
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
		snprintf(why, size, "key 'name': not a test name like 'generic/001'");
		return false;
	}
	if (!status_known(json_string_value(json_object_get(rec, "status")))) {
		snprintf(why, size, "key 'status': not one of pass, fail, notrun, expunged, timeout, crash, error");
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
static int parse_journal(const char *text, size_t len, const char *shown, json_t **ret, size_t *ret_end,
			 char *err, size_t es)
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
static int read_beneath(const char *dir, const char *rel, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return -errno;
	return fileio_read_beneath(dfd, rel, max, ret, ret_len);
}

/* Why a bundle's file was refused, in words. */
static const char *read_error(int r)
{
	switch (r) {
	case -ELOOP:
		return "a symbolic link on the way: refused";
	case -EINVAL:
		return "not a regular file: refused";
	case -EFBIG:
		return "larger than a reader accepts: refused";
	default:
		return strerror(-r);
	}
}

/* The records of an iteration's journal; a missing journal has none. */
static int read_journal(const char *dir, json_t *config, json_t *iteration, json_t **ret, char *err, size_t es)
{
	_cleanup_free_ char *text = NULL;
	char rel[PATH_MAX];
	size_t len;
	int r;

	r = journal_rel(rel, sizeof(rel), config_name(config), iteration);
	if (r < 0) {
		snprintf(err, es, "key 'configs[].name': '%s' cannot name a journal", config_name(config) ?: "(missing)");
		return -EBADMSG;
	}
	r = read_beneath(dir, rel, BUNDLE_MAX_JOURNAL, &text, &len);
	if (r == -ENOENT) {
		*ret = json_array();
		return *ret ? 0 : -ENOMEM;
	}
	if (r < 0) {
		snprintf(err, es, "%s: %s", rel, read_error(r));
		return r == -ENOMEM ? r : -EBADMSG;
	}
	return parse_journal(text, len, rel, ret, NULL, err, es);
}

static void recount(json_t *iteration, json_t *tests)
{
	json_t *t;
	size_t i;

	json_object_set_new(iteration, "counts", json_object());
	json_array_foreach(tests, i, t)
		count_status(iteration, json_string_value(json_object_get(t, "status")), 1);
}

static bool iteration_folded(json_t *iteration)
{
	return json_is_true(json_object_get(iteration, "folded"));
}

static bool iteration_running(json_t *iteration)
{
	return streq(json_string_value(json_object_get(iteration, "state")) ?: "", "running");
}

static void journal_close(struct bundle *b)
{
	if (b->jfd >= 0)
		close(b->jfd);
	b->jfd = -1;
	b->jit = NULL;
}

/*
 * Open iteration's journal for appending. A line a crash tore is cut off
 * first, so the next record starts a line of its own.
 */
static int journal_open(struct bundle *b, json_t *config, json_t *iteration)
{
	char rel[PATH_MAX], path[PATH_MAX * 2];
	_cleanup_free_ char *text = NULL;
	json_t *tests = NULL;
	size_t len, end;
	char err[256];
	int fd, r;

	if (b->jit == iteration && b->jfd >= 0)
		return 0;
	journal_close(b);
	r = journal_rel(rel, sizeof(rel), config_name(config), iteration);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/%s", b->dir, rel);
	r = mkdir_parent(path);
	if (r < 0)
		return r;
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	r = fileio_read_full(path, &text, &len);
	if (r == 0)
		r = parse_journal(text, len, rel, &tests, &end, err, sizeof(err));
	json_decref(tests);
	if (r == 0 && end < len && ftruncate(fd, (off_t)end) < 0)
		r = -errno;
	if (r < 0) {
		close(fd);
		return r;
	}
	b->jfd = fd;
	b->jit = iteration;
	return 0;
}

/* Hold BUNDLE_RESERVE bytes on the results disk for the checkpoints of a full disk. */
static void reserve_take(struct bundle *b)
{
	char path[PATH_MAX + 16];
	int fd;

	snprintf(path, sizeof(path), "%s/.reserve", b->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	b->reserve = posix_fallocate(fd, 0, BUNDLE_RESERVE) == 0;
	close(fd);
	if (!b->reserve)
		unlink(path);
}

/* Give the reserve up. */
static void reserve_give(struct bundle *b)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/.reserve", b->dir);
	unlink(path);
	b->reserve = false;
}

/*
 * Append one record; with sync it is durable on return. A write or flush
 * that fails is cut back to the last whole line at once, so the next record
 * never lands on half a line.
 */
static int append_one(struct bundle *b, json_t *config, json_t *iteration, json_t *rec, bool sync)
{
	_cleanup_free_ char *text = NULL;
	double t0 = mono_ms(), ms;
	off_t end;
	size_t n;
	int r;

	r = journal_open(b, config, iteration);
	if (r < 0)
		return r;
	text = json_dumps(rec, JSON_COMPACT);
	if (!text)
		return -ENOMEM;
	n = strlen(text);
	text[n++] = '\n'; /* over the NUL: one write per record */
	end = lseek(b->jfd, 0, SEEK_END);
	if (end < 0)
		return -errno;
	r = fileio_write_all(b->jfd, text, n);
	if (r == 0 && sync && fdatasync(b->jfd) < 0)
		r = -errno;
	if (r < 0) {
		if (ftruncate(b->jfd, end) < 0) {
			/* cannot cut: reopen, which cuts a torn last line */
			journal_close(b);
		}
		return r;
	}
	count_status(iteration, json_string_value(json_object_get(rec, "status")), 1);
	if (!sync)
		return 0;
	ms = mono_ms() - t0;
	b->writes++;
	b->write_total_ms += ms;
	if (ms > b->write_max_ms)
		b->write_max_ms = ms;
	return 0;
}

/* Write the records a full disk held back, in order. Returns 0 or the first failure. */
static int flush_pending(struct bundle *b)
{
	while (json_array_size(b->pending)) {
		json_t *p = json_array_get(b->pending, 0);
		int r = append_one(b, json_object_get(p, "config"), json_object_get(p, "iteration"),
				   json_object_get(p, "record"), true);

		if (r < 0)
			return r;
		json_array_remove(b->pending, 0);
	}
	return 0;
}

static int journal_append(struct bundle *b, json_t *config, json_t *iteration, json_t *rec, bool sync)
{
	int r = json_array_size(b->pending) ? flush_pending(b) : 0;

	if (r == 0)
		r = append_one(b, config, iteration, rec, sync);
	if (r < 0 && r != -ENOMEM) {
		/* kept, in order behind the others, for the next try */
		if (!b->pending)
			b->pending = json_array();
		json_array_append_new(b->pending, json_pack("{s:O, s:O, s:O}", "config", config, "iteration",
							    iteration, "record", rec));
	}
	return r;
}

size_t bundle_records_lost(const struct bundle *b)
{
	return json_array_size(b->pending);
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
	reserve_take(b);
	/* "o" steals plan and kernel, as the contract says */
	b->doc = json_pack("{s:s, s:s, s:s, s:o, s:n, s:s, s:o, s:o, s:[], s:{}}", "schema", BUNDLE_SCHEMA,
			   "run_id", run_id, "fsagent_version", FSAGENT_VERSION, "started", now_json(),
			   "ended", "state", "running", "kernel", kernel ? kernel : json_null(), "plan",
			   plan ? plan : json_null(), "configs", "counts");
	return b->doc ? 0 : -ENOMEM;
}

/* The shape every reader relies on; err names the key. */
static int check_doc(json_t *doc, char *err, size_t es)
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
	json_array_foreach(json_object_get(doc, "configs"), i, c)
	{
		char slug[128];

		if (config_slug(config_name(c), slug, sizeof(slug)) < 0 ||
		    !json_is_array(json_object_get(c, "iterations"))) {
			snprintf(err, es, "key 'configs[%zu]': needs a name like 'xfs/4k' and iterations", i);
			return -EBADMSG;
		}
		json_array_foreach(json_object_get(c, "iterations"), k, it)
			if (!json_is_integer(json_object_get(it, "index")) ||
			    json_integer_value(json_object_get(it, "index")) < 0 ||
			    (!json_is_array(json_object_get(it, "order")) && !iteration_folded(it))) {
				snprintf(err, es, "key 'configs[%zu].iterations[%zu]': needs an index and an order", i, k);
				return -EBADMSG;
			} else {
				const char *st;
				json_t *n;

				json_object_foreach(json_object_get(it, "counts"), st, n)
					if (!status_known(st) || !json_is_integer(n) || json_integer_value(n) < 0 ||
					    json_integer_value(n) > BUNDLE_MAX_COUNT) {
						snprintf(err, es, "key 'configs[%zu].iterations[%zu].counts': not status counts",
							 i, k);
						return -EBADMSG;
					}
			}
	}
	return 0;
}

/* Sum the iterations' counts into the document's. */
static void sum_counts(json_t *doc)
{
	json_t *counts = json_object(), *c, *it, *v;
	const char *s;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it)
			json_object_foreach(json_object_get(it, "counts"), s, v)
	{
		json_t *n = json_object_get(counts, s);

		json_object_set_new(counts, s, json_integer((n ? json_integer_value(n) : 0) + json_integer_value(v)));
	}
	json_object_set_new(doc, "counts", counts);
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
	if (!b->doc || check_doc(b->doc, err, sizeof(err)) < 0)
		goto bad;
	/* the journals are the truth about iterations a crash interrupted */
	json_array_foreach(json_object_get(b->doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it)
	{
		json_t *tests;

		if (!iteration_running(it))
			continue;
		if (read_journal(b->dir, c, it, &tests, err, sizeof(err)) < 0)
			goto bad;
		recount(it, tests);
		json_decref(tests);
	}
	reserve_take(b);
	return 0;
bad:
	json_decref(b->doc);
	b->doc = NULL;
	return -EBADMSG;
}

void bundle_release(struct bundle *b)
{
	journal_close(b);
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
		if (streq(config_name(c), name))
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

json_t *bundle_add_iteration(struct bundle *b, json_t *config, unsigned index, const char *seed,
			     char *const *order)
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
	if (journal_open(b, config, it) < 0 || fsync(b->jfd) < 0)
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

	if (iteration_folded(iteration) || json_is_true(json_object_get(iteration, "aggregated")) ||
	    json_array_size(b->pending))
		return 0; /* records still waiting for space would be folded away */
	r = read_journal(b->dir, config, iteration, &tests, err, sizeof(err));
	if (r < 0)
		return r;
	if (!agg) {
		agg = json_object();
		json_object_set_new(b->doc, "aggregate", agg);
	}
	per = json_object_get(agg, config_name(config));
	if (!per) {
		per = json_object();
		json_object_set_new(agg, config_name(config), per);
	}
	json_array_foreach(tests, i, t)
	{
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
		journal_close(b);
	if (journal_rel(rel, sizeof(rel), config_name(config), iteration) == 0) {
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

json_t *bundle_running_iteration(struct bundle *b, json_t **ret_config)
{
	json_t *c, *it;
	size_t i, k;

	json_array_foreach(json_object_get(b->doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it)
			if (iteration_running(it)) {
				*ret_config = c;
				return it;
			}
	return NULL;
}

int bundle_remaining(struct bundle *b, json_t *config, json_t *iteration, char ***ret)
{
	json_auto_t *tests = NULL, *seen = json_object();
	char **left = NULL, err[256];
	json_t *t, *name;
	size_t i;
	int r;

	r = read_journal(b->dir, config, iteration, &tests, err, sizeof(err));
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

int bundle_record_skipped(struct bundle *b, json_t *config, json_t *iteration, const char *name,
			  const char *status, const char *reason, const char *source)
{
	json_auto_t *rec = json_pack("{s:s, s:s, s:s?, s:s?, s:f, s:{}, s:[]}", "name", name, "status", status,
				     "reason", reason, "source", source, "duration", 0.0, "findings", "artifacts");

	return rec ? journal_append(b, config, iteration, rec, false) : -ENOMEM;
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
	r = read_beneath(from, rel, BUNDLE_MAX_DOC, &buf, &len);
	if (r < 0)
		return r;
	if (snprintf(dst, sizeof(dst), "%s/%s", to, rel) >= (int)sizeof(dst))
		return -ENAMETOOLONG;
	r = mkdir_parent(dst);
	return r < 0 ? r : fileio_write_file(dst, buf, len);
}

/* artifacts/<config slug>/<iteration>/<dir>/<NNN>.<ext> */
static int artifact_path(char *buf, size_t size, const char *config, json_int_t iteration, const char *test,
			 const char *ext)
{
	char slug[128];

	if (config_slug(config, slug, sizeof(slug)) < 0)
		return -EINVAL;
	return snprintf(buf, size, "artifacts/%s/%lld/%s.%s", slug, (long long)iteration, test, ext) >=
			       (int)size
		       ? -ENAMETOOLONG
		       : 0;
}

/* Copy check's files of a test that did not pass, and its kernel log. */
static json_t *copy_artifacts(struct bundle *b, const char *cname, json_int_t iter, const struct test_result *t,
			      const char *result_dir)
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
		if (bundle_copy_file(src, dst) == 0)
			json_array_append_new(artifacts, json_string(rel));
	}
	if (t->kernel_log_len && artifact_path(rel, sizeof(rel), cname, iter, t->name, "kmsg") == 0) {
		snprintf(dst, sizeof(dst), "%s/%s", b->dir, rel);
		if (mkdir_parent(dst) == 0 && fileio_write_file(dst, t->kernel_log, t->kernel_log_len) == 0)
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
	rec = json_pack("{s:s, s:s, s:f, s:s?, s:s?, s:o, s:s?, s:b, s:o}", "name", t->name, "status",
			test_status_to_string(t->status), "duration", t->duration, "reason",
			t->reason[0] ? t->reason : NULL, "excerpt", t->excerpt && t->excerpt[0] ? t->excerpt : NULL,
			"findings", findings, "first_report", t->first_report[0] ? t->first_report : NULL,
			"without_lockdep", t->without_lockdep, "artifacts",
			copy_artifacts(b, config_name(config), iter, t, result_dir));
	if (!rec)
		return -ENOMEM;
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
					      t->fails == t->runs ? "consistent" : t->fails ? "flaky" : "passed"));
	return journal_append(b, config, iteration, rec, true);
}

int bundle_coverage_dir(struct bundle *b, json_t *config, json_t *iteration, const char *test, char *abs,
			size_t as, char *rel, size_t rs)
{
	char slug[128];

	if (config_slug(config_name(config), slug, sizeof(slug)) < 0 || !bundle_test_name_ok(test))
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
		flush_pending(b);
	/* the records bundle.json counts are durable before it is */
	if (b->jfd >= 0 && fdatasync(b->jfd) < 0)
		return -errno;
	sum_counts(b->doc);
	json_object_set_new(b->doc, "writes",
			    json_pack("{s:i, s:f, s:f}", "count", (int)b->writes, "max_ms", b->write_max_ms,
				      "mean_ms", b->writes ? b->write_total_ms / b->writes : 0.0));
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
		flush_pending(b);
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
	reserve_give(b);
	r = bundle_write(b);
	return r < 0 ? r : lost ? -ENOSPC : 0;
}

/*
 * A bundle's document, checked: path is bundle.json or its directory; dir
 * gets the bundle's directory. Returns 0, -ENAMETOOLONG or -EBADMSG with
 * err naming the file.
 */
static int load_checked(const char *path, json_t **ret, char *dir, size_t dsize, char *err, size_t es)
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
		snprintf(err, es, "%s: %s", file, read_error(r));
		return r == -ENOMEM ? r : -EBADMSG;
	}
	doc = json_loadb(text, len, 0, &jerr);
	if (!doc) {
		snprintf(err, es, "%s: line %d: %s", file, jerr.line, jerr.text);
		return -EBADMSG;
	}
	r = check_doc(doc, why, sizeof(why));
	if (r < 0) {
		snprintf(err, es, "%s: %s", file, why);
		json_decref(doc);
		return r;
	}
	*ret = doc;
	return 0;
}

int bundle_load(const char *path, json_t **ret, char *err, size_t es)
{
	char dir[PATH_MAX];
	json_auto_t *doc = NULL;
	json_t *c, *it;
	size_t i, k;
	int r = load_checked(path, &doc, dir, sizeof(dir), err, es);

	if (r < 0)
		return r;
	json_array_foreach(json_object_get(doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it)
	{
		json_t *tests;
		char why[512];

		if (iteration_folded(it))
			continue; /* a soak's clean iteration: its counts are all there is */
		r = read_journal(dir, c, it, &tests, why, sizeof(why));
		if (r < 0) {
			snprintf(err, es, "%s/%s", dir, why);
			return r;
		}
		recount(it, tests);
		json_object_set_new(it, "tests", tests);
	}
	sum_counts(doc);
	*ret = json_incref(doc);
	return 0;
}

/* ---- reading outcomes without holding the bundle ------------------------- */

static const char *status_of(const struct jscan_field *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(known_statuses); i++)
		if (jscan_streq(f, known_statuses[i]))
			return known_statuses[i];
	return NULL;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-' || c == '.';
}

bool bundle_test_name_ok(const char *name)
{
	const char *slash = name ? strchr(name, '/') : NULL;

	if (!slash || slash == name || !slash[1] || streq(slash + 1, ".") || streq(slash + 1, "..") ||
	    (slash - name == 1 && name[0] == '.') || (slash - name == 2 && startswith(name, "..")))
		return false;
	for (const char *p = name; *p; p++)
		if (p != slash && !name_char(*p))
			return false;
	return true;
}

bool bundle_artifact_ok(const char *path)
{
	return bundle_rel_path_ok(path, "artifacts");
}

bool bundle_rel_path_ok(const char *path, const char *top)
{
	const char *p = path;
	size_t tl = strlen(top);

	if (strncmp(path, top, tl) != 0 || path[tl] != '/')
		return false;
	/* components of name characters, none of them "." or ".." */
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++)
			if (!name_char(p[i]))
				return false;
		p += n;
		if (*p == '/' && !*++p)
			return false;
	}
	return true;
}

/* Each string of a validated array span must be a safe artifact path. */
static bool artifacts_ok(const struct jscan_field *f, char *bad, size_t size)
{
	const char *p, *end;

	if (f->type == JSCAN_NONE || f->type == JSCAN_NULL)
		return true;
	if (f->type != JSCAN_ARRAY)
		return false;
	/* an absent field has no start: no arithmetic on it */
	p = f->start;
	end = f->start + f->len;
	while (p < end) {
		const char *s;
		char path[PATH_MAX];

		p = memchr(p, '"', (size_t)(end - p));
		if (!p)
			return true;
		s = ++p;
		while (*p != '"')
			p += *p == '\\' ? 2 : 1;
		if (jscan_unescape(s, (size_t)(p - s), path, sizeof(path)) < 0 || !bundle_artifact_ok(path)) {
			snprintf(bad, size, "%.*s", (int)(p - s), s);
			return false;
		}
		p++;
	}
	return true;
}

/* The last record of each test of a journal, by the test's index in a strmap. */
struct scan_last {
	const char *status;
	double duration;
};

/* Validate one journal line and keep it as its test's last record. */
static int scan_line(const char *line, size_t n, const char *shown, unsigned lineno, struct strmap *names,
		     struct scan_last **last, size_t *cap, char *err, size_t es)
{
	struct jscan_field f[] = { { "name" }, { "status" }, { "duration" }, { "artifacts" }, { "coverage" } };
	const char *why = NULL;
	char name[256], bad[PATH_MAX];
	size_t at = 0;
	long i;

	if (jscan_object(line, n, f, ARRAY_SIZE(f), &at, &why) < 0) {
		snprintf(err, es, "%s:%u: column %zu: %s", shown, lineno, at + 1, why);
		return -EBADMSG;
	}
	if (f[0].type != JSCAN_STRING || jscan_unescape(f[0].start, f[0].len, name, sizeof(name)) < 0 ||
	    !bundle_test_name_ok(name)) {
		snprintf(err, es, "%s:%u: key 'name': not a test name like 'generic/001'", shown, lineno);
		return -EBADMSG;
	}
	if (!status_of(&f[1])) {
		snprintf(err, es, "%s:%u: key 'status': not one of pass, fail, notrun, expunged, timeout, crash, error",
			 shown, lineno);
		return -EBADMSG;
	}
	if (f[2].type != JSCAN_NUMBER && f[2].type != JSCAN_NONE) {
		snprintf(err, es, "%s:%u: key 'duration': not a number", shown, lineno);
		return -EBADMSG;
	}
	if (!artifacts_ok(&f[3], bad, sizeof(bad))) {
		snprintf(err, es, "%s:%u: key 'artifacts': '%s' is not a path under artifacts/", shown, lineno, bad);
		return -EBADMSG;
	}
	if (f[4].type != JSCAN_NONE) {
		struct jscan_field dir = { "dir" };

		if (f[4].type != JSCAN_OBJECT || jscan_object(f[4].start, f[4].len, &dir, 1, NULL, NULL) < 0 ||
		    dir.type != JSCAN_STRING || jscan_unescape(dir.start, dir.len, bad, sizeof(bad)) < 0 ||
		    !bundle_rel_path_ok(bad, "coverage")) {
			snprintf(err, es, "%s:%u: key 'coverage.dir': not a path under coverage/", shown, lineno);
			return -EBADMSG;
		}
	}
	i = strmap_put(names, name, NULL);
	if (i < 0)
		return -ENOMEM;
	if ((size_t)i >= *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct scan_last *nv = realloc(*last, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*last = nv;
		*cap = nc;
	}
	(*last)[i] = (struct scan_last){ status_of(&f[1]),
					 f[2].type == JSCAN_NUMBER ? jscan_number(f[2].start, f[2].len) : 0 };
	return 0;
}

/*
 * Validate a journal as it streams by and hand its records on, the last of
 * a test winning: memory grows with the tests it names, not its lines.
 */
static int scan_journal(int fd, const char *shown, const char *config, const struct bundle_scan_ops *ops,
			void *ctx, char *err, size_t es)
{
	size_t bufsize = BUNDLE_MAX_LINE + 65536, len = 0, cap = 0;
	_cleanup_free_ char *buf = malloc(bufsize);
	_cleanup_free_ struct scan_last *last = NULL;
	struct strmap names = { 0 };
	uint64_t total = 0;
	unsigned lineno = 0;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t got = read(fd, buf + len, bufsize - len);
		size_t pos = 0;
		char *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			snprintf(err, es, "%s: %s", shown, strerror(errno));
			break;
		}
		if (got == 0)
			break; /* a last line without its newline was torn by a crash: not a record */
		total += (uint64_t)got;
		if (total > BUNDLE_MAX_JOURNAL) {
			snprintf(err, es, "%s: larger than a reader accepts: refused", shown);
			r = -EBADMSG;
			break;
		}
		len += (size_t)got;
		while (r == 0 && (nl = memchr(buf + pos, '\n', len - pos))) {
			size_t n = (size_t)(nl - buf) - pos;

			lineno++;
			if (n > BUNDLE_MAX_LINE) {
				snprintf(err, es, "%s:%u: longer than %u bytes", shown, lineno, BUNDLE_MAX_LINE);
				r = -EBADMSG;
				break;
			}
			r = scan_line(buf + pos, n, shown, lineno, &names, &last, &cap, err, es);
			pos += n + 1;
		}
		if (r < 0)
			break;
		memmove(buf, buf + pos, len - pos);
		len -= pos;
		if (len > BUNDLE_MAX_LINE) {
			snprintf(err, es, "%s:%u: longer than %u bytes", shown, lineno + 1, BUNDLE_MAX_LINE);
			r = -EBADMSG;
			break;
		}
	}
	for (size_t i = 0; r == 0 && i < names.n; i++)
		r = ops->outcome(ctx, &(struct bundle_outcome){ config, names.keys[i], last[i].status, 1,
								 last[i].duration, last[i].duration });
	strmap_release(&names);
	return r;
}

/* A soak's aggregate: config -> test -> {statuses, duration_total, duration_max}. */
static int scan_aggregate(json_t *agg, const char *file, const struct bundle_scan_ops *ops, void *ctx, char *err,
			  size_t es)
{
	const char *cname, *tname, *sname;
	json_t *tests, *a, *v;
	int r;

	if (agg && !json_is_object(agg)) {
		snprintf(err, es, "%s: key 'aggregate': not an object", file);
		return -EBADMSG;
	}
	json_object_foreach(agg, cname, tests)
		json_object_foreach(tests, tname, a)
	{
		double total = json_number_value(json_object_get(a, "duration_total"));
		double max = json_number_value(json_object_get(a, "duration_max"));
		char slug[128];

		if (config_slug(cname, slug, sizeof(slug)) < 0 || !bundle_test_name_ok(tname)) {
			snprintf(err, es, "%s: key 'aggregate.%s.%s': not a config and a test name", file, cname, tname);
			return -EBADMSG;
		}
		json_object_foreach(json_object_get(a, "statuses"), sname, v)
		{
			struct jscan_field sf = { "status", JSCAN_STRING, sname, strlen(sname) };
			const char *st = status_of(&sf);

			if (!st || !json_is_integer(v) || json_integer_value(v) < 0 ||
			    json_integer_value(v) > BUNDLE_MAX_COUNT) {
				snprintf(err, es, "%s: key 'aggregate.%s.%s.statuses.%s': not a status count", file, cname,
					 tname, sname);
				return -EBADMSG;
			}
			/* durations go with the first status; totals stay right */
			r = ops->outcome(ctx, &(struct bundle_outcome){ cname, tname, st,
									 (uint64_t)json_integer_value(v), total, max });
			if (r < 0)
				return r;
			total = 0;
		}
	}
	return 0;
}

int bundle_scan(const char *path, const struct bundle_scan_ops *ops, void *ctx, char *err, size_t es)
{
	char file[PATH_MAX + 16], dir[PATH_MAX];
	_cleanup_close_ int dfd = -1;
	json_auto_t *doc = NULL;
	json_t *c, *it;
	size_t i, k;
	int r = load_checked(path, &doc, dir, sizeof(dir), err, es);

	if (r < 0)
		return r;
	snprintf(file, sizeof(file), "%s/bundle.json", dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(err, es, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	if (ops->bundle && (r = ops->bundle(ctx, doc)) < 0)
		return r;
	r = scan_aggregate(json_object_get(doc, "aggregate"), file, ops, ctx, err, es);
	if (r < 0)
		return r;
	json_array_foreach(json_object_get(doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it)
	{
		char rel[PATH_MAX], shown[PATH_MAX * 2];
		_cleanup_close_ int fd = -1;

		/* folded and aggregated iterations are in the aggregate */
		if (iteration_folded(it) || json_is_true(json_object_get(it, "aggregated")))
			continue;
		if (journal_rel(rel, sizeof(rel), config_name(c), it) < 0)
			continue; /* check_doc vetted the name and index */
		snprintf(shown, sizeof(shown), "%s/%s", dir, rel);
		fd = fileio_open_beneath(dfd, rel);
		if (fd == -ENOENT)
			continue;
		if (fd < 0) {
			snprintf(err, es, "%s: %s", shown, read_error(fd));
			return fd == -ENOMEM ? fd : -EBADMSG;
		}
		r = scan_journal(fd, shown, config_name(c), ops, ctx, err, es);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Bundle directories under dir, depth levels down, symlinks not followed. */
static int find_bundles(const char *dir, int depth, char ***list)
{
	char path[PATH_MAX];
	struct stat st;
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (snprintf(path, sizeof(path), "%s/bundle.json", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (stat(path, &st) == 0)
		return strv_push(list, dir);
	if (depth == 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while (r >= 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			r = find_bundles(path, depth - 1, list);
	}
	closedir(d);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int bundle_find_all(const char *path, char ***ret, char *err, size_t es)
{
	struct stat st;
	char **list = strv_split("", ",");
	int r;

	if (!list)
		return -ENOMEM;
	if (stat(path, &st) < 0) {
		r = -errno;
		snprintf(err, es, "%s: %s", path, strerror(errno));
		strv_free(list);
		return r;
	}
	r = S_ISDIR(st.st_mode) ? find_bundles(path, 4, &list) : strv_push(&list, path);
	if (r < 0) {
		snprintf(err, es, "%s: %s", path, strerror(-r));
		strv_free(list);
		return r;
	}
	if (!list[0]) {
		snprintf(err, es, "%s: no bundle (a directory with bundle.json) found", path);
		strv_free(list);
		return -ENOENT;
	}
	qsort(list, strv_length(list), sizeof(*list), cmp_str);
	*ret = list;
	return 0;
}
