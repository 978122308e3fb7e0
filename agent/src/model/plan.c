// SPDX-License-Identifier: MIT
/*
 * Run plan parsing and resolution (see plan.h). A table maps each key to
 * its type; one setter serves plan files and the kernel command line.
 */
#include "model/plan.h"
#include "model/fstests_vars.h"
#include "model/result.h"
#include "util/utctime.h"
#include "util/fileio.h"
#include "util/lines.h"
#include "util/macro.h"
#include "util/strv.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum key_type {
	K_LIST_TESTS,
	K_LIST_GROUPS,
	K_LIST_CONFIGS,
	K_LIST_FILES,
	K_ORDER,
	K_SEED,
	K_UINT,
	K_DURATION,
	K_TIME,
	K_STRING,
	K_SHARD
};

static const struct plan_key {
	const char *name;
	enum key_type type;
	size_t offset;
	unsigned min, max;
} keys[] = {
	{ "configs", K_LIST_CONFIGS, offsetof(struct plan, configs), 0, 0 },
	{ "groups", K_LIST_GROUPS, offsetof(struct plan, groups), 0, 0 },
	{ "exclude_groups", K_LIST_GROUPS, offsetof(struct plan, exclude_groups), 0, 0 },
	{ "tests", K_LIST_TESTS, offsetof(struct plan, tests), 0, 0 },
	{ "exclude", K_LIST_TESTS, offsetof(struct plan, exclude), 0, 0 },
	{ "expunge_files", K_LIST_FILES, offsetof(struct plan, expunge_files), 0, 0 },
	{ "order", K_ORDER, 0, 0, 0 },
	{ "seed", K_SEED, 0, 0, 0 },
	{ "iterations", K_UINT, offsetof(struct plan, iterations), 1, 1000000 },
	{ "rerun_failures", K_UINT, offsetof(struct plan, rerun_failures), 0, 100 },
	{ "jobs", K_UINT, offsetof(struct plan, jobs), 1, PLAN_JOBS_MAX },
	{ "timeout", K_DURATION, offsetof(struct plan, timeout), 0, 0 },
	{ "mkfs_options", K_STRING, offsetof(struct plan, mkfs_options), 0, 0 },
	{ "mount_options", K_STRING, offsetof(struct plan, mount_options), 0, 0 },
	{ "soak.duration", K_DURATION, offsetof(struct plan, soak_duration), 0, 0 },
	{ "soak.deadline", K_TIME, offsetof(struct plan, soak_deadline), 0, 0 },
	{ "soak.stop_file", K_STRING, offsetof(struct plan, soak_stop_file), 0, 0 },
	{ "shard", K_SHARD, 0, 0, 0 },
	{ "coverage", K_LIST_FILES, offsetof(struct plan, coverage), 0, 0 },
	{ "durations", K_STRING, offsetof(struct plan, durations), 0, 0 },
};

int plan_init(struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->iterations = 1;
	p->jobs = 1;
	p->timeout_auto = true;
	p->configs = strv_split("", ",");
	p->groups = strv_split("auto", ",");
	p->exclude_groups = strv_split("", ",");
	p->tests = strv_split("", ",");
	p->exclude = strv_split("", ",");
	p->expunge_files = strv_split("", ",");
	p->coverage = strv_split("", ",");
	p->origins = json_object();
	p->fstests = json_object();
	p->config_iterations = json_object();
	p->test_iterations = json_object();
	if (!p->fstests || !p->config_iterations || !p->test_iterations || !p->configs || !p->groups ||
	    !p->exclude_groups || !p->tests || !p->exclude || !p->expunge_files || !p->coverage || !p->origins) {
		plan_release(p);
		return -ENOMEM;
	}
	return 0;
}

void plan_release(struct plan *p)
{
	strv_free(p->configs);
	strv_free(p->groups);
	strv_free(p->exclude_groups);
	strv_free(p->tests);
	strv_free(p->exclude);
	strv_free(p->expunge_files);
	strv_free(p->coverage);
	for (size_t i = 0; i < p->n_test_timeouts; i++)
		free(p->test_timeouts[i].test);
	free(p->test_timeouts);
	free(p->mkfs_options);
	free(p->mount_options);
	free(p->soak_stop_file);
	free(p->durations);
	json_decref(p->origins);
	json_decref(p->fstests);
	json_decref(p->config_iterations);
	json_decref(p->test_iterations);
	memset(p, 0, sizeof(*p));
}

static const struct plan_key *find_key(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (streq(keys[i].name, name))
			return &keys[i];
	return NULL;
}

bool plan_key_is_known(const char *key)
{
	return find_key(key) || startswith(key, "timeout.") || startswith(key, "fstests.") ||
	       startswith(key, "iterations.");
}

int plan_parse_duration(const char *s, unsigned long *ret)
{
	unsigned long long v;
	char *end;
	unsigned long mult = 1;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end && end[1])
		return -EINVAL;
	switch (*end) {
	case '\0':
	case 's': break;
	case 'm': mult = 60; break;
	case 'h': mult = 3600; break;
	case 'd': mult = 86400; break;
	default: return -EINVAL;
	}
	if (v > 100ULL * 365 * 86400 / mult)
		return -EINVAL;
	*ret = (unsigned long)(v * mult);
	return 0;
}

/* "2026-12-10T00:00:00Z" or "@<epoch seconds>" */
static int parse_time(const char *s, long long *ret)
{
	if (s[0] == '@') {
		unsigned long long v;

		if (fileio_parse_u64(s + 1, &v) < 0)
			return -EINVAL;
		*ret = (long long)v;
		return 0;
	}
	return utctime_parse(s, ret);
}

/* fs/name: "xfs/4k", "ext4/bigalloc_1k", "btrfs/all" */

/* a group, optionally dir/group */
static bool group_name_ok(const char *g)
{
	for (const char *p = g; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '/')
			return false;
	return *g && g[strlen(g) - 1] != '/';
}

/* "K/N" with 1 <= K <= N <= 1024, digits compared before any narrowing. */
static int parse_shard(const char *value, unsigned *k, unsigned *n)
{
	unsigned long long vk, vn;
	const char *slash = strchr(value, '/');
	char kbuf[24];

	if (!slash || slash == value || (size_t)(slash - value) >= sizeof(kbuf))
		return -EINVAL;
	snprintf(kbuf, sizeof(kbuf), "%.*s", (int)(slash - value), value);
	if (!isdigit((unsigned char)kbuf[0]) || !isdigit((unsigned char)slash[1]) || fileio_parse_u64(kbuf, &vk) < 0 ||
	    fileio_parse_u64(slash + 1, &vn) < 0 || vn < 1 || vn > 1024 || vk < 1 || vk > vn)
		return -EINVAL;
	*k = (unsigned)vk;
	*n = (unsigned)vn;
	return 0;
}

#define fail(...)                                                      \
	do {                                                           \
		set_err(err, errsize, source, line, key, __VA_ARGS__); \
		return -EINVAL;                                        \
	} while (0)

static void set_err(char *err, size_t es, const char *source, unsigned line, const char *key, const char *fmt, ...)
	_printf_(6, 7);
static void set_err(char *err, size_t es, const char *source, unsigned line, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (line)
		n = snprintf(err, es, "%s:%u: key '%s': ", source, line, key);
	else
		n = snprintf(err, es, "%s: key '%s': ", source, key);
	if (n < 0 || (size_t)n >= es)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, es - (size_t)n, fmt, ap);
	va_end(ap);
}

static int set_list(char ***dst, enum key_type type, const char *value, const char *source, unsigned line,
		    const char *key, char *err, size_t errsize)
{
	char **v = strv_split(value, ", \t");

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; v[i]; i++) {
		bool ok = type == K_LIST_TESTS	   ? test_name_ok(v[i], true)
			  : type == K_LIST_CONFIGS ? streq(v[i], "all") || config_name_ok(v[i])
			  : type == K_LIST_GROUPS  ? group_name_ok(v[i])
						   : strstr(v[i], "..") == NULL;

		if (!ok) {
			set_err(err, errsize, source, line, key, "bad %s '%s'",
				type == K_LIST_TESTS	 ? "test name (want dir/NNN)"
				: type == K_LIST_CONFIGS ? "config name (want fs/name, fs/all or all)"
				: type == K_LIST_GROUPS	 ? "group name"
							 : "file name",
				v[i]);
			strv_free(v);
			return -EINVAL;
		}
	}
	strv_free(*dst);
	*dst = v;
	return 0;
}

static int set_string(char **dst, const char *value)
{
	char *s = strdup(value);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

static int set_test_timeout(struct plan *p, const char *test, unsigned seconds)
{
	struct plan_timeout *nv;

	for (size_t i = 0; i < p->n_test_timeouts; i++)
		if (streq(p->test_timeouts[i].test, test)) {
			p->test_timeouts[i].seconds = seconds;
			return 0;
		}
	nv = realloc(p->test_timeouts, (p->n_test_timeouts + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	p->test_timeouts = nv;
	nv[p->n_test_timeouts].test = strdup(test);
	if (!nv[p->n_test_timeouts].test)
		return -ENOMEM;
	nv[p->n_test_timeouts++].seconds = seconds;
	return 0;
}

int plan_set(struct plan *p, const char *source, unsigned line, const char *key, const char *value, char *err,
	     size_t errsize)
{
	const struct plan_key *k = find_key(key);
	char origin[512];
	int r = 0;

	if (startswith(key, "timeout.")) {
		unsigned long secs;

		if (!test_name_ok(key + 8, false))
			fail("'%s' is not a test name (want timeout.dir/NNN)", key + 8);
		if (plan_parse_duration(value, &secs) < 0 || secs > 30UL * 86400)
			fail("'%s' is not a duration (90, 90s, 15m, 2h, 1d)", value);
		r = set_test_timeout(p, key + 8, (unsigned)secs);
	} else if (startswith(key, "iterations.")) {
		const char *name = key + 11, *slash = strchr(name, '/');
		const char *test = slash ? strchr(slash + 1, '/') : NULL;
		char config[256] = "";
		unsigned long long v;

		/* fs/name, or fs/name/dir/NNN: one test on that config */
		if (test && (size_t)(test - name) < sizeof(config))
			snprintf(config, sizeof(config), "%.*s", (int)(test - name), name);
		if (test ? !config_name_ok(config) || !test_name_ok(test + 1, false) : !config_name_ok(name))
			fail("'%s' is not a config name nor a config's test (want iterations.fs/name or "
			     "iterations.fs/name/dir/NNN)",
			     name);
		if (fileio_parse_u64(value, &v) < 0 || v < 1 || v > 1000000)
			fail("'%s' is not a number from 1 to 1000000", value);
		r = json_object_set_new(test ? p->test_iterations : p->config_iterations, name,
					json_integer((json_int_t)v)) < 0
			    ? -ENOMEM
			    : 0;
	} else if (startswith(key, "fstests.")) {
		char why[256];

		if (fstests_var_check(key + 8, value, why, sizeof(why)) < 0)
			fail("%s", why);
		r = json_object_set_new(p->fstests, key + 8, json_string(value)) < 0 ? -ENOMEM : 0;
	} else if (!k) {
		fail("unknown key");
	} else {
		char *field = (char *)p + k->offset;

		switch (k->type) {
		case K_LIST_TESTS:
		case K_LIST_GROUPS:
		case K_LIST_CONFIGS:
		case K_LIST_FILES:
			r = set_list((char ***)field, k->type, value, source, line, key, err, errsize);
			if (r < 0)
				return r;
			break;
		case K_ORDER:
			if (streq(value, "fixed")) {
				p->order = ORDER_FIXED;
			} else if (streq(value, "random")) {
				p->order = ORDER_RANDOM;
			} else if (startswith(value, "random=")) {
				unsigned long long s;

				if (fileio_parse_u64(value + 7, &s) < 0)
					fail("'%s' is not random=<seed>", value);
				p->order = ORDER_RANDOM;
				p->seed = s;
				p->seed_set = true;
			} else {
				fail("'%s' is not fixed, random or random=<seed>", value);
			}
			break;
		case K_SEED: {
			unsigned long long s;

			if (fileio_parse_u64(value, &s) < 0)
				fail("'%s' is not a number from 0 to 2^64-1", value);
			p->seed = s;
			p->seed_set = true;
			break;
		}
		case K_UINT: {
			unsigned long long v;

			if (fileio_parse_u64(value, &v) < 0 || v < k->min || v > k->max)
				fail("'%s' is not a number from %u to %u", value, k->min, k->max);
			*(unsigned *)field = (unsigned)v;
			break;
		}
		case K_DURATION: {
			unsigned long v;

			if (streq(key, "timeout") && (streq(value, "auto") || streq(value, "none"))) {
				p->timeout_auto = streq(value, "auto");
				p->timeout = 0;
				break;
			}
			if (plan_parse_duration(value, &v) < 0)
				fail("'%s' is not a duration (90, 90s, 15m, 2h, 1d)%s", value,
				     streq(key, "timeout") ? ", auto or none" : "");
			if (streq(key, "timeout")) {
				*(unsigned *)field = (unsigned)v;
				p->timeout_auto = false;
			} else
				*(unsigned long *)field = v;
			break;
		}
		case K_TIME:
			if (parse_time(value, (long long *)field) < 0)
				fail("'%s' is not a UTC time (2026-12-10T00:00:00Z or @epoch)", value);
			break;
		case K_SHARD: {
			unsigned sk, sn;

			if (parse_shard(value, &sk, &sn) < 0)
				fail("'%s' is not K/N with 1 <= K <= N <= 1024", value);
			p->shard = sk;
			p->shards = sn;
			break;
		}
		case K_STRING:
			if ((streq(key, "soak.stop_file") || streq(key, "durations")) &&
			    (!*value || value[0] == '/' || strstr(value, "..")))
				fail("'%s' must be a relative path on the results disk", value);
			r = set_string((char **)field, value);
			break;
		}
	}
	if (r < 0)
		return r;
	if (line)
		snprintf(origin, sizeof(origin), "%s:%u", source, line);
	else
		snprintf(origin, sizeof(origin), "%s", source);
	json_object_set_new(p->origins, key, json_string(origin));
	return 0;
}

int plan_apply_file(struct plan *p, const char *source, const char *buf, char *err, size_t errsize)
{
	struct lines l;
	int r;

	lines_init(&l, buf);
	while ((r = lines_next(&l)) > 0) {
		char *key, *val;

		r = lines_key_value(&l, source, &key, &val, err, errsize);
		if (r == 0)
			r = plan_set(p, source, l.lineno, key, val, err, errsize);
		if (r < 0)
			break;
	}
	lines_release(&l);
	return r < 0 ? r : 0;
}

unsigned plan_iterations_for(const struct plan *p, const char *config)
{
	json_t *v = json_object_get(p->config_iterations, config);

	return v ? (unsigned)json_integer_value(v) : p->iterations;
}

unsigned plan_iterations_of(const struct plan *p, const char *config, const char *test)
{
	unsigned n = plan_iterations_for(p, config);
	char key[512];
	json_t *v;

	snprintf(key, sizeof(key), "%s/%s", config, test);
	v = json_object_get(p->test_iterations, key);
	return v && (unsigned)json_integer_value(v) < n ? (unsigned)json_integer_value(v) : n;
}

unsigned plan_iterations_max(const struct plan *p)
{
	unsigned max = p->iterations;
	const char *k;
	json_t *v;

	json_object_foreach(p->config_iterations, k, v)
		if ((unsigned)json_integer_value(v) > max)
			max = (unsigned)json_integer_value(v);
	return max;
}

long plan_timeout_for(const struct plan *p, const char *test)
{
	for (size_t i = 0; i < p->n_test_timeouts; i++)
		if (streq(p->test_timeouts[i].test, test))
			return p->test_timeouts[i].seconds;
	return p->timeout_auto ? -1 : (long)p->timeout;
}

json_t *plan_to_json(const struct plan *p)
{
	json_t *timeouts = json_object(), *j;

	for (size_t i = 0; i < p->n_test_timeouts; i++)
		json_object_set_new(timeouts, p->test_timeouts[i].test, json_integer(p->test_timeouts[i].seconds));
	j = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:i, s:i, s:i, s:o, s:s?, s:s?}", "configs",
		      strv_to_json(p->configs), "groups", strv_to_json(p->groups), "exclude_groups",
		      strv_to_json(p->exclude_groups), "tests", strv_to_json(p->tests), "exclude",
		      strv_to_json(p->exclude), "expunge_files", strv_to_json(p->expunge_files), "order",
		      p->order == ORDER_RANDOM ? "random" : "fixed", "iterations", (int)p->iterations, "rerun_failures",
		      (int)p->rerun_failures, "timeout", (int)p->timeout, "test_timeouts", timeouts, "mkfs_options",
		      p->mkfs_options, "mount_options", p->mount_options);
	if (!j)
		return NULL;
	json_object_set_new(j, "timeout_auto", json_boolean(p->timeout_auto));
	if (p->jobs > 1)
		json_object_set_new(j, "jobs", json_integer(p->jobs));
	json_object_set(j, "config_iterations", p->config_iterations);
	if (json_object_size(p->test_iterations))
		json_object_set(j, "test_iterations", p->test_iterations);
	/* the seed as a string: JSON numbers lose precision past 2^53 */
	if (p->seed_set) {
		char s[32];

		snprintf(s, sizeof(s), "%llu", (unsigned long long)p->seed);
		json_object_set_new(j, "seed", json_string(s));
	} else {
		json_object_set_new(j, "seed", json_null());
	}
	json_object_set_new(j, "soak",
			    json_pack("{s:I, s:I, s:s?}", "duration", (json_int_t)p->soak_duration, "deadline",
				      (json_int_t)p->soak_deadline, "stop_file", p->soak_stop_file));
	if (p->shards > 1)
		json_object_set_new(j, "shard",
				    json_pack("{s:i, s:i}", "index", (int)p->shard, "count", (int)p->shards));
	if (p->durations)
		json_object_set_new(j, "durations", json_string(p->durations));
	if (p->coverage && p->coverage[0])
		json_object_set_new(j, "coverage", strv_to_json(p->coverage));
	if (json_object_size(p->fstests))
		json_object_set(j, "fstests", p->fstests);
	json_object_set(j, "origins", p->origins);
	return j;
}
