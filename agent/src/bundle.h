/* SPDX-License-Identifier: MIT */
/*
 * The result bundle: one directory per run holding bundle.json (schema
 * "fsagent-bundle/1", described by docs/bundle.schema.json) and the
 * artifacts beside it. bundle.json is rewritten after every test by temp
 * file + fsync + rename, so a crash at any instant leaves a valid bundle.
 */
#pragma once

#include <jansson.h>
#include <limits.h>

#include "runner.h"

#define BUNDLE_SCHEMA "fsagent-bundle/1"

struct bundle {
	char dir[PATH_MAX]; /* <results>/runs/<run id> */
	json_t *doc;
	/* what durable rewrites cost, for the record */
	unsigned writes;
	double write_max_ms, write_total_ms;
};

/*
 * Create <results>/runs/<run_id>/ and a bundle in state "running" holding
 * plan and kernel (references stolen, also on failure). Returns 0 or -errno.
 */
int bundle_create(struct bundle *b, const char *results, const char *run_id, json_t *plan, json_t *kernel);
void bundle_release(struct bundle *b);

/* The config ("xfs/4k") of that name, appended if new (borrowed). */
json_t *bundle_add_config(struct bundle *b, const char *name);
/* Mark a config not run (or failed to set up) with a reason. */
void bundle_config_status(json_t *config, const char *status, const char *reason);
/* Append an iteration with its seed and order; returns it (borrowed). */
json_t *bundle_add_iteration(json_t *config, unsigned index, const char *seed, char *const *order);

/* The iteration of that index, or NULL (borrowed). */
json_t *bundle_find_iteration(json_t *config, unsigned index);

/* The record of test in iteration, or NULL (borrowed). */
json_t *bundle_find_test(json_t *iteration, const char *name);

/*
 * Load <results>/runs/<run_id>/bundle.json to resume it. Returns 0,
 * -ENOENT, or -EBADMSG when it is not a bundle of this schema.
 */
int bundle_open(struct bundle *b, const char *results, const char *run_id);

/*
 * Record a test in iteration: its result, and artifacts copied from
 * result_dir (check's <RESULT_BASE>[/section]) plus fsagent's kernel log.
 * Replaces an earlier record of the same test. Returns 0 or -errno.
 */
int bundle_record_test(struct bundle *b, json_t *config, json_t *iteration, const struct test_result *t,
		       const char *result_dir);

/* Record an expunged or unknown test without running it. */
void bundle_record_skipped(json_t *iteration, const char *name, const char *status, const char *reason,
			   const char *source);

/* Set a top-level key (reference stolen). */
void bundle_set(struct bundle *b, const char *key, json_t *value);

/* Rewrite bundle.json durably. Returns 0 or -errno. */
int bundle_write(struct bundle *b);

/* Set state ("complete", "stopped", "error") and the end time, then write. */
int bundle_finish(struct bundle *b, const char *state);

/* Copy src to dst (creating dst's directory). Returns 0 or -errno. */
int bundle_copy_file(const char *src, const char *dst);
