/* SPDX-License-Identifier: MIT */
/*
 * Shards: a run's tests split across N VMs, balanced by the durations of
 * earlier runs with longest processing time first (LPT): the longest test
 * goes to the least loaded shard, and so on down. Every VM computes the same
 * split from the same selection and durations, so a VM needs only its index;
 * ties go by config and test name, then the lowest shard. LPT's longest
 * shard is at most total/N plus the longest test.
 *
 * Durations come from bundles (fsagent durations) as a JSON file,
 * schema "fsagent-durations/1": {"durations": {config: {test: seconds}}};
 * a test without one counts as the median of those known (1 s if none).
 */
#pragma once

#include <jansson.h>
#include <stddef.h>

#define DURATIONS_SCHEMA "fsagent-durations/1"

struct shard_item {
	const char *config, *test;
	double seconds;
};

/*
 * Assign each of the n items a shard in [0, shards): ret[i]; loads[] (may be
 * NULL) gets each shard's total seconds. Returns 0 or -ENOMEM.
 */
int shard_assign(const struct shard_item *items, size_t n, unsigned shards, unsigned *ret, double *loads);

/*
 * Fill items' seconds from a durations document (NULL: none known); an item
 * it does not know gets the median of those it knows (1 s when it knows
 * none). Returns that median, or -1 when it knew none.
 */
double shard_fill_durations(struct shard_item *items, size_t n, json_t *durations);

/*
 * The mean duration of each config and test over the runs (passes and
 * failures) in the bundles under each of paths: a durations document.
 * Returns 0 or -errno with err naming the bundle.
 */
int shard_durations_from_bundles(char *const *paths, json_t **ret, char *err, size_t errsize);

/* Read a durations file; err names file and key. Returns 0, -errno or -EBADMSG. */
int shard_durations_load(const char *path, json_t **ret, char *err, size_t errsize);

struct plan;
/* The plan's durations file (relative to base), or *ret NULL when it names none. */
int shard_plan_durations(const struct plan *p, const char *base, json_t **ret, char *err, size_t errsize);
