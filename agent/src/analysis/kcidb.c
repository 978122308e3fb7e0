// SPDX-License-Identifier: MIT
/*
 * KCIDB export (see kcidb.h).
 */
#include "analysis/kcidb.h"
#include "model/result.h"
#include "util/hash.h"
#include "util/macro.h"
#include "util/utctime.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3
#define LOG_EXCERPT_MAX 16384

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static bool all_of(const char *s, const char *set, size_t min, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	return s && n >= min && n <= max && strspn(s, set) == n;
}

#define LOWER_DIGITS "abcdefghijklmnopqrstuvwxyz0123456789_"

int kcidb_opts_check(const struct kcidb_opts *o, char *err, size_t es)
{
	if (!all_of(o->origin, LOWER_DIGITS, 1, 64)) {
		snprintf(err, es, "--origin '%s': KCIDB wants [a-z0-9_]+", o->origin ? o->origin : "");
		return -EINVAL;
	}
	if (o->log_base && ((strncmp(o->log_base, "https://", 8) && strncmp(o->log_base, "http://", 7)) ||
			    strpbrk(o->log_base, " \t\n\"<>\\^`{|}"))) {
		snprintf(err, es, "--log-url '%s': not an http(s) URL", o->log_base);
		return -EINVAL;
	}
	if (o->git_commit && !all_of(o->git_commit, "0123456789abcdef", 40, 40)) {
		snprintf(err, es, "--git-commit '%s': KCIDB wants a full commit hash, 40 hex digits", o->git_commit);
		return -EINVAL;
	}
	if (o->git_url && ((strncmp(o->git_url, "https://", 8) && strncmp(o->git_url, "git://", 6)) ||
			   strpbrk(o->git_url, " \t\n\"<>\\^`{|}"))) {
		snprintf(err, es, "--git-url '%s': KCIDB wants an https:// or git:// URL", o->git_url);
		return -EINVAL;
	}
	return 0;
}

json_t *kcidb_new(void)
{
	return json_pack("{s:{s:i, s:i}, s:[], s:[], s:[]}", "version", "major", KCIDB_MAJOR, "minor", KCIDB_MINOR,
			 "checkouts", "builds", "tests");
}

/* KCIDB has no nulls: a copy of v without them (NULL stays NULL) */
static json_t *no_nulls(json_t *v)
{
	json_t *r, *x;
	const char *k;
	size_t i;

	if (json_is_object(v)) {
		r = json_object();
		json_object_foreach(v, k, x)
			if (!json_is_null(x))
				json_object_set_new(r, k, no_nulls(x));
		return r;
	}
	if (json_is_array(v)) {
		r = json_array();
		json_array_foreach(v, i, x)
			if (!json_is_null(x))
				json_array_append_new(r, no_nulls(x));
		return r;
	}
	return v ? json_deep_copy(v) : NULL;
}

/* o[key] = v when v is something; v's reference is taken either way */
static void put(json_t *o, const char *key, json_t *v)
{
	if (v && !json_is_null(v) && !(json_is_string(v) && !*json_string_value(v)))
		json_object_set(o, key, v);
	json_decref(v);
}

/* A bundle time ("2026-12-05T06:56:35Z"), written again from its value, when it is one */
static json_t *time_of(json_t *t)
{
	char buf[UTCTIME_SIZE];
	long long secs;

	if (utctime_parse(json_string_value(t), &secs) < 0)
		return NULL;
	utctime_format(secs, buf, sizeof(buf));
	return json_string(buf);
}

/* s cut to at most max characters (KCIDB's maxLength counts them), on a UTF-8 character boundary */
static json_t *excerpt(const char *s, size_t max)
{
	size_t n = 0, chars = 0;

	for (; s[n]; n++)
		if (((unsigned char)s[n] & 0xc0) != 0x80 && chars++ == max)
			break;
	return json_stringn(s, n);
}

static json_t *find_id(json_t *list, const char *id)
{
	json_t *x;
	size_t i;

	json_array_foreach(list, i, x)
		if (streq(str(x, "id"), id))
			return x;
	return NULL;
}

static const char *kcidb_status(const char *s)
{
	if (streq(s, "pass"))
		return "PASS";
	if (streq(s, "fail") || streq(s, "crash"))
		return "FAIL";
	if (streq(s, "notrun") || streq(s, "expunged"))
		return "SKIP";
	if (streq(s, "timeout"))
		return "ERROR";
	return "MISS"; /* error, pending */
}

/* KCIDB's summary order, highest first */
static int priority(const char *kcidb)
{
	static const char *const order[] = { "FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP" };

	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		if (streq(order[i], kcidb))
			return (int)(ARRAY_SIZE(order) - i);
	return 0;
}

/* The debug options that make a test kernel's config, as its name ("lockdep+kasan"), or "default" */
static json_t *config_name(json_t *caps)
{
	static const char *const opts[][2] = { { "PROVE_LOCKING", "lockdep" }, { "KASAN", "kasan" },
					       { "KCSAN", "kcsan" },	       { "UBSAN", "ubsan" },
					       { "KFENCE", "kfence" },	       { "GCOV_KERNEL", "gcov" } };
	json_t *o = json_object_get(json_object_get(caps, "kconfig"), "options");
	char name[80] = "";

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (streq(str(o, opts[i][0]), "y"))
			snprintf(name + strlen(name), sizeof(name) - strlen(name), "%s%s", *name ? "+" : "",
				 opts[i][1]);
	return json_string(*name ? name : "default");
}

/* The checkout and build of the bundle's kernel, added once; the build's id in build_id. */
static int add_kernel(json_t *sub, json_t *b, const struct kcidb_opts *o, char *build_id, size_t bsize, char *err,
		      size_t es)
{
	json_t *k = json_object_get(b, "kernel"), *caps = json_object_get(b, "caps"), *co, *bu;
	const char *release = *str(k, "release") ? str(k, "release") : "unknown";
	/* the commit: the option's, else the one the kernel was built from (scripts/build-kernel --commit) */
	json_t *git = json_object_get(k, "git");
	const char *commit = o->git_commit					      ? o->git_commit
			     : all_of(str(git, "commit"), "0123456789abcdef", 40, 40) ? str(git, "commit")
										      : NULL;
	char checkout_id[320];

	snprintf(checkout_id, sizeof(checkout_id), "%s:%s%s", o->origin, commit ? "" : "linux-",
		 commit ? commit : release);
	snprintf(build_id, bsize, "%s:linux-%s-%016llx", o->origin, release,
		 (unsigned long long)hash_fnv1a(str(k, "version"), strlen(str(k, "version"))));
	co = find_id(json_object_get(sub, "checkouts"), checkout_id);
	if (co && !streq(str(json_object_get(co, "misc"), "kernel_release"), release)) {
		snprintf(err, es,
			 "the checkout options name one kernel, but run '%s' ran another (%s): export each kernel's "
			 "bundles on their own",
			 str(b, "run_id"), release);
		return -EINVAL;
	}
	if (!co) {
		co = json_pack("{s:s, s:s, s:b, s:s+}", "id", checkout_id, "origin", o->origin, "valid", 1, "comment",
			       "Linux ", release);
		if (!co)
			return -ENOMEM;
		put(co, "tree_name", o->tree_name ? json_string(o->tree_name) : NULL);
		put(co, "git_repository_url", o->git_url ? json_string(o->git_url) : NULL);
		put(co, "git_commit_hash", commit ? json_string(commit) : NULL);
		if (!o->git_commit && commit && *str(git, "describe"))
			put(co, "git_commit_name", json_string(str(git, "describe")));
		put(co, "git_repository_branch", o->git_branch ? json_string(o->git_branch) : NULL);
		put(co, "start_time", time_of(json_object_get(b, "started")));
		put(co, "misc", json_pack("{s:s}", "kernel_release", release));
		if (json_array_append_new(json_object_get(sub, "checkouts"), co) < 0)
			return -ENOMEM;
	}
	if (!find_id(json_object_get(sub, "builds"), build_id)) {
		json_t *arch = json_object_get(json_object_get(caps, "machine"), "arch"), *misc;

		bu = json_pack("{s:s, s:s, s:s, s:s, s:o}", "id", build_id, "origin", o->origin, "checkout_id",
			       checkout_id, "status", "PASS", "config_name", config_name(caps));
		misc = json_pack("{s:s}", "kernel_release", release);
		if (!bu || !misc) {
			json_decref(bu);
			json_decref(misc);
			return -ENOMEM;
		}
		put(bu, "comment", json_incref(json_object_get(k, "version")));
		if (all_of(json_string_value(arch), LOWER_DIGITS, 1, 32))
			put(bu, "architecture", json_incref(arch));
		put(misc, "cmdline", json_incref(json_object_get(k, "cmdline")));
		put(misc, "kconfig", no_nulls(json_object_get(json_object_get(caps, "kconfig"), "options")));
		put(bu, "misc", misc);
		if (json_array_append_new(json_object_get(sub, "builds"), bu) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Percent-encode s for a URL path segment */
static void pct(char *buf, size_t size, const char *s)
{
	size_t n = 0;

	for (; *s && n + 4 < size; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    strchr("-._~", ch))
			buf[n++] = (char)ch;
		else
			n += (size_t)snprintf(buf + n, size - n, "%%%02X", ch);
	}
	buf[n] = '\0';
}

/* log_url and output_files of a record's artifacts, under BASE/RUN_ID/ */
static void artifacts(json_t *test, json_t *b, json_t *t, const struct kcidb_opts *o)
{
	json_t *list = json_object_get(t, "artifacts"), *files, *a;
	const char *log = NULL;
	char run[256], url[2048];
	size_t i, base = o->log_base ? strlen(o->log_base) : 0;

	if (!o->log_base || !json_array_size(list))
		return;
	while (base > 0 && o->log_base[base - 1] == '/')
		base--;
	pct(run, sizeof(run), str(b, "run_id"));
	json_array_foreach(list, i, a)
		if (!log || (json_is_string(a) && strlen(json_string_value(a)) > 5 &&
			     streq(json_string_value(a) + strlen(json_string_value(a)) - 5, ".full")))
			log = json_string_value(a);
	files = json_array();
	json_array_foreach(list, i, a) {
		const char *p = json_string_value(a), *slash;

		if (!p)
			continue;
		snprintf(url, sizeof(url), "%.*s/%s/%s", (int)base, o->log_base, run, p);
		if (p == log) {
			put(test, "log_url", json_string(url));
			continue;
		}
		slash = strrchr(p, '/');
		json_array_append_new(files, json_pack("{s:s, s:s}", "name", slash ? slash + 1 : p, "url", url));
	}
	if (json_array_size(files))
		json_object_set(test, "output_files", files);
	json_decref(files);
}

/* What a test carries in every case: ids, path, environment */
static json_t *test_base(json_t *b, const struct kcidb_opts *o, const char *build_id, const char *cname,
			 const char *tname, const char *iteration, json_t *env_misc)
{
	char id[512], path[160];
	json_t *t;

	snprintf(id, sizeof(id), "%s:%s/%s/%s/%s", o->origin, str(b, "run_id"), cname, iteration, tname);
	snprintf(path, sizeof(path), "fstests.%s", tname);
	for (char *p = path; *p; p++)
		if (*p == '/')
			*p = '.';
	json_object_set_new(env_misc, "config", json_string(cname));
	json_object_set_new(env_misc, "run_id", json_string(str(b, "run_id")));
	put(env_misc, "machine", no_nulls(json_object_get(json_object_get(b, "caps"), "machine")));
	put(env_misc, "fstests",
	    json_incref(json_object_get(json_object_get(json_object_get(b, "userspace"), "fstests"), "describe")));
	t = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:o}}", "id", id, "origin", o->origin, "build_id", build_id, "path",
		      path, "environment", "comment", cname, "misc", env_misc);
	return t;
}

static int add_record(json_t *sub, json_t *b, const struct kcidb_opts *o, const char *build_id, json_t *c, json_t *it,
		      json_t *t)
{
	const char *st = str(t, "status"), *name = str(t, "name");
	json_t *misc = json_object(), *env = json_object(), *test;
	char iteration[24];

	if (!misc || !env || !test_name_ok(name, false)) {
		json_decref(misc);
		json_decref(env);
		return misc && env ? 0 : -ENOMEM; /* the loader refuses such names: never a path of one */
	}
	snprintf(iteration, sizeof(iteration), "%lld", (long long)json_integer_value(json_object_get(it, "index")));
	json_object_set_new(env, "iteration", json_integer(json_integer_value(json_object_get(it, "index"))));
	put(env, "seed", json_incref(json_object_get(it, "seed")));
	test = test_base(b, o, build_id, str(c, "name"), name, iteration, env);
	if (!test) {
		json_decref(misc);
		return -ENOMEM;
	}
	json_object_set_new(test, "status", json_string(kcidb_status(st)));
	json_object_set_new(test, "duration", json_real(json_number_value(json_object_get(t, "duration"))));
	put(test, "comment", json_incref(json_object_get(t, "reason")));
	if (*str(t, "excerpt")) {
		put(test, "log_excerpt", excerpt(str(t, "excerpt"), LOG_EXCERPT_MAX));
	} else if (*str(t, "reason") || *str(t, "first_report")) {
		char *text = NULL;

		if (asprintf(&text, "%s%s%s", str(t, "reason"),
			     *str(t, "reason") && *str(t, "first_report") ? "\n" : "", str(t, "first_report")) < 0)
			text = NULL;
		put(test, "log_excerpt", text ? excerpt(text, LOG_EXCERPT_MAX) : NULL);
		free(text);
	}
	artifacts(test, b, t, o);
	json_object_set_new(misc, "fsagent_status", json_string(st));
	put(misc, "reason", json_incref(json_object_get(t, "reason")));
	put(misc, "reruns", no_nulls(json_object_get(t, "reruns")));
	if (json_object_size(json_object_get(t, "findings")))
		put(misc, "findings", no_nulls(json_object_get(t, "findings")));
	put(misc, "first_report", json_incref(json_object_get(t, "first_report")));
	put(misc, "without_lockdep", json_incref(json_object_get(t, "without_lockdep")));
	put(misc, "timeout", json_incref(json_object_get(t, "timeout")));
	put(test, "misc", misc);
	return json_array_append_new(json_object_get(sub, "tests"), test) < 0 ? -ENOMEM : 0;
}

/* A soak's aggregate of one config and test: one test with the highest status of its runs */
static int add_aggregate(json_t *sub, json_t *b, const struct kcidb_opts *o, const char *build_id, const char *cname,
			 const char *tname, json_t *a)
{
	json_int_t runs = json_integer_value(json_object_get(a, "runs"));
	const char *status = "SKIP", *sname;
	json_t *env = json_object(), *test, *v;

	if (!env)
		return -ENOMEM;
	if (!config_name_ok(cname) || !test_name_ok(tname, false)) {
		json_decref(env);
		return 0;
	}
	json_object_set_new(env, "iteration", json_string("aggregate"));
	json_object_foreach(json_object_get(a, "statuses"), sname, v)
		if (json_integer_value(v) > 0 && priority(kcidb_status(sname)) > priority(status))
			status = kcidb_status(sname);
	test = test_base(b, o, build_id, cname, tname, "aggregate", env);
	if (!test)
		return -ENOMEM;
	json_object_set_new(test, "status", json_string(status));
	json_object_set_new(
		test, "duration",
		json_real(runs > 0 ? json_number_value(json_object_get(a, "duration_total")) / (double)runs : 0.0));
	json_object_set_new(test, "misc", json_pack("{s:O}", "aggregate", a));
	return json_array_append_new(json_object_get(sub, "tests"), test) < 0 ? -ENOMEM : 0;
}

int kcidb_add(json_t *sub, json_t *b, const struct kcidb_opts *o, char *err, size_t es)
{
	const char *cname, *tname;
	json_t *c, *it, *t, *tests, *a;
	char build_id[512];
	size_t i, k, m;
	int r = add_kernel(sub, b, o, build_id, sizeof(build_id), err, es);

	if (r < 0)
		return r;
	json_array_foreach(json_object_get(b, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it) {
			if (json_is_true(json_object_get(it, "aggregated")))
				continue; /* in the aggregate */
			json_array_foreach(json_object_get(it, "tests"), m, t)
				if ((r = add_record(sub, b, o, build_id, c, it, t)) < 0)
					return r;
		}
	json_object_foreach(json_object_get(b, "aggregate"), cname, tests)
		json_object_foreach(tests, tname, a)
			if ((r = add_aggregate(sub, b, o, build_id, cname, tname, a)) < 0)
				return r;
	return 0;
}
