/* SPDX-License-Identifier: MIT */
/*
 * The run plan: which filesystem configs, which tests, in what order, how
 * often, with what timeouts and extra options, and when a soak stops.
 *
 * Sources, lowest to highest: defaults built into the image, a plan file on
 * the results disk, and fsagent.<key>=<value> words on the kernel command
 * line. Each source's value replaces the lower one's. The format (one
 * "key = value" per line, '#' comments) is documented in the README; every
 * error names source, line and key, and the value's origin is kept for the
 * bundle.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum plan_order { ORDER_FIXED, ORDER_RANDOM };

struct plan_timeout {
	char *test;
	unsigned seconds;
};

/* the most runners one machine's queue has (plan key jobs, -j) */
#define PLAN_JOBS_MAX 64

struct plan {
	char **configs;	       /* "xfs/4k", "ext4/all", ... */
	char **groups;	       /* fstests groups, "quick" or "xfs/quick" */
	char **exclude_groups; /* -x */
	char **tests;	       /* explicit tests, globs allowed: "generic/00?" */
	char **exclude;	       /* tests never run */
	char **expunge_files;
	enum plan_order order;
	bool seed_set;
	uint64_t seed;
	unsigned iterations;	 /* >= 1 */
	unsigned rerun_failures; /* K extra runs of a failing test */
	unsigned jobs;		 /* tests at once in one machine (run/parallel.h), 1 to PLAN_JOBS_MAX */
	unsigned timeout;	 /* seconds per test, 0 = none (or auto) */
	bool timeout_auto;	 /* timeout = auto, the default: from durations (model/timeout.h) */
	struct plan_timeout *test_timeouts;
	size_t n_test_timeouts;
	char *mkfs_options;	     /* appended to every config's */
	char *mount_options;	     /* appended to every config's */
	unsigned long soak_duration; /* seconds, 0 = no soak */
	long long soak_deadline;     /* epoch seconds, 0 = none */
	char *soak_stop_file;	     /* on the results disk */
	unsigned shard, shards;	     /* this VM runs shard K (1-based) of N; N <= 1 unsharded */
	char *durations;	     /* fsagent durations' file on the results disk, for shards */
	char **coverage;	     /* kernel source directories whose gcov data each test saves */
	json_t *fstests;	     /* fstests.NAME keys: NAME -> value, for each config's section */
	json_t *config_iterations;   /* iterations.<config> keys: config -> N, its weight over iterations */
	json_t *test_iterations;     /* iterations.<config>/<test> keys: "fs/name/dir/NNN" -> N, at most the config's */
	json_t *origins;	     /* key -> "source[:line]" */
};

/* Built-in defaults: no configs, group auto, fixed order, 1 iteration, no reruns, timeout auto. */
int plan_init(struct plan *p);
void plan_release(struct plan *p);

/* Whether key (without the "fsagent." prefix) is a plan key, "timeout.<test>", "iterations.<config>" and
 * "fstests.<NAME>" included. */
bool plan_key_is_known(const char *key);

/*
 * Set key to value from source (line > 0 for files). On error nothing
 * changes and err holds "<source>[:<line>]: key '<key>': <reason>".
 * Returns 0 or -EINVAL.
 */
int plan_set(struct plan *p, const char *source, unsigned line, const char *key, const char *value, char *err,
	     size_t errsize);

/* Apply a plan file held in buf; stops at the first error. Returns 0 or -EINVAL. */
int plan_apply_file(struct plan *p, const char *source, const char *buf, char *err, size_t errsize);

/* The seconds test may run before it is killed (0 = no limit), or -1 when timeout = auto decides (model/timeout.h). */
long plan_timeout_for(const struct plan *p, const char *test);

/* The iterations config runs: its iterations.<config> key, else iterations. */
unsigned plan_iterations_for(const struct plan *p, const char *config);

/* The iterations test runs on config: its iterations.<config>/<test> key, at most the config's; it sits out
 * the later ones. */
unsigned plan_iterations_of(const struct plan *p, const char *config, const char *test);

/* The most iterations any config runs: a soak round's span of iteration indexes. */
unsigned plan_iterations_max(const struct plan *p);

/* Parse "90", "90s", "15m", "2h", "1d" into seconds. Returns 0 or -EINVAL. */
int plan_parse_duration(const char *s, unsigned long *ret);

/* The plan as resolved, with origins (new reference). */
json_t *plan_to_json(const struct plan *p);
