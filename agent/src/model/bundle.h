/* SPDX-License-Identifier: MIT */
/*
 * The result bundle: one directory per run on the results disk.
 *
 *   bundle.json                  the run: plan, kernel, caps, and per config
 *                                and iteration the seed, order, state and
 *                                counts (schema "fsagent-bundle/2",
 *                                docs/bundle.schema.json). Rewritten by temp
 *                                file + rename + fsync at checkpoints only:
 *                                run start, iteration start and end, run end.
 *   tests/<fs>_<cfg>/<i>.jsonl   the iteration's journal: one JSON test record
 *                                per line, appended and fdatasync'ed as each
 *                                test ends. A crash can tear only the last
 *                                line, which readers ignore and the writer
 *                                cuts off before appending again.
 *   artifacts/...                files of tests that did not pass.
 *
 * So recording a test costs one small append and one flush whatever the size
 * of the run, and fsagent keeps only counts in memory, never the records.
 * Readers take the whole picture from bundle_load(), which folds the
 * journals into each iteration's "tests" array (the last record of a test
 * wins).
 */
#pragma once

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/result.h"

#define BUNDLE_SCHEMA "fsagent-bundle/2"

/*
 * What readers accept of files a guest wrote: each is opened beneath the
 * bundle's directory without following symlinks, regular files only, and
 * no larger than these. A count (a soak's aggregate) above BUNDLE_MAX_COUNT
 * is refused, so sums of counts fit 64 bits with room to spare.
 */
#define BUNDLE_MAX_DOC (256U << 20)
#define BUNDLE_MAX_JOURNAL (1024U << 20)
#define BUNDLE_MAX_LINE (1U << 20)
#define BUNDLE_MAX_COUNT 100000000LL

struct bundle {
	char dir[PATH_MAX]; /* <results>/runs/<run id> */
	json_t *doc;
	int jfd;     /* the open journal, O_APPEND, or -1 */
	json_t *jit; /* the iteration it belongs to */
	/* what durable test records cost, for the record */
	unsigned writes;
	double write_max_ms, write_total_ms;
	/*
	 * A full results disk: records that could not be appended wait here
	 * ([{config, iteration, record}], in order) and are tried again before
	 * the next record and at every checkpoint; bundle.json counts those
	 * still waiting as "records_lost". BUNDLE_RESERVE bytes held in
	 * <dir>/.reserve from the start are given up for the last bundle.json
	 * only, so a full disk still gets a final state and its count of lost
	 * records.
	 */
	json_t *pending;
	bool reserve;
};

#define BUNDLE_RESERVE (2U << 20)

/*
 * Create <results>/runs/<run_id>/ and a bundle in state "running" holding
 * plan and kernel (references stolen, also on failure). Returns 0 or -errno.
 */
int bundle_create(struct bundle *b, const char *results, const char *run_id, json_t *plan, json_t *kernel);

/*
 * Load <results>/runs/<run_id>/bundle.json to resume it; the counts of
 * iterations still running are taken again from their journals. Returns 0,
 * -ENOENT, or -EBADMSG when it is not a bundle of this schema.
 */
int bundle_open(struct bundle *b, const char *results, const char *run_id);
void bundle_release(struct bundle *b);

/* The config ("xfs/4k") of that name, appended if new (borrowed). */
json_t *bundle_add_config(struct bundle *b, const char *name);
/* Mark a config not run (or failed to set up) with a reason. */
void bundle_config_status(json_t *config, const char *status, const char *reason);

/*
 * Append an iteration with its seed and order, state "running", and create
 * its journal. Returns it (borrowed), or NULL on failure.
 */
json_t *bundle_add_iteration(struct bundle *b, json_t *config, unsigned index, const char *seed, char *const *order);
/* The iteration of that index, or NULL (borrowed). */
json_t *bundle_find_iteration(json_t *config, unsigned index);
/*
 * End an iteration: "done" when every test has a record, "stopped" when a
 * soak's stop condition cut it short (written at the next bundle_write).
 */
void bundle_iteration_end(json_t *iteration, const char *state);
/*
 * Fold a finished iteration into the bundle's "aggregate" (per config and
 * test: runs, statuses, total and longest duration), so a soak's bundle
 * stays small however long it runs. An iteration whose every test passed
 * (or was not run, or expunged) then loses its journal and its order (its
 * seed gives the order back) and is marked "folded"; one with failures
 * keeps both. Returns 0 or -errno.
 */
int bundle_fold_iteration(struct bundle *b, json_t *config, json_t *iteration);

/*
 * The tests of iteration that may be running now (a parallel run's
 * runners'; names, NULL-ended, none: the key goes), for the caller's next
 * bundle_write, before they can run: after a crash they are its suspects
 * (boot/crash.h).
 */
void bundle_set_in_flight(json_t *iteration, char *const *names);

/* Whether every iteration of config before index end is finished. */
bool bundle_config_done(json_t *config, unsigned end);
/* Whether the iteration is still running (one per config at once: a queue over several configs). */
bool bundle_iteration_running(json_t *iteration);

/*
 * The iteration's order without the tests its journal already records,
 * as a NULL-terminated strv the caller frees. Returns 0 or -errno.
 */
int bundle_remaining(struct bundle *b, json_t *config, json_t *iteration, char ***ret);

/*
 * Record a test durably in iteration's journal: its result, and artifacts
 * (for tests that did not pass) copied from result_dir (check's
 * <RESULT_BASE>[/section]) plus fsagent's kernel log. Returns 0 or -errno.
 */
int bundle_record_test(struct bundle *b, json_t *config, json_t *iteration, const struct test_result *t,
		       const char *result_dir);

/*
 * Where a test's gcov data goes: <bundle>/coverage/<fs>_<config>/<i>/<test>
 * (abs), and the same relative to the bundle (rel, recorded as the test's
 * "coverage"). Returns 0 or -errno.
 */
int bundle_coverage_dir(struct bundle *b, json_t *config, json_t *iteration, const char *test, char *abs,
			size_t abs_size, char *rel, size_t rel_size);

/* Record an expunged or unknown test without running it (durable at the next bundle_write, or when its journal closes).
 */
int bundle_record_skipped(struct bundle *b, json_t *config, json_t *iteration, const char *name, const char *status,
			  const char *reason, const char *source);

/* Records not written for want of space (kept in memory, retried). */
size_t bundle_records_lost(const struct bundle *b);

/*
 * The run's outcome from its counts (every boot of it): BUNDLE_FAILED when a
 * test failed, timed out, crashed or errored, a record was lost or the run
 * has an error; BUNDLE_NOTHING_RAN when no test ran at all (each was not run
 * or expunged, or there was none: no config could be served); else
 * BUNDLE_PASSED.
 */
enum bundle_outcome_kind { BUNDLE_PASSED, BUNDLE_FAILED, BUNDLE_NOTHING_RAN };
enum bundle_outcome_kind bundle_outcome_of(const struct bundle *b);

/* Tests recorded in every journal (the counts summed). */
size_t bundle_count_recorded(struct bundle *b);

/* Set a top-level key (reference stolen). */
void bundle_set(struct bundle *b, const char *key, json_t *value);

/* Flush the journal and rewrite bundle.json durably. Returns 0 or -errno. */
int bundle_write(struct bundle *b);

/* Set state ("complete", "stopped", "error") and the end time, then write. */
int bundle_finish(struct bundle *b, const char *state);

/*
 * Copy a bundle's artifact rel (a safe "artifacts/..." path) from the bundle
 * directory from to the one to, read as every reader reads a guest's file
 * (beneath from, no symlink followed, regular, capped). Returns 0, -ENOENT,
 * -ELOOP, -EINVAL, -EFBIG or -errno.
 */
int bundle_copy_artifact(const char *from, const char *rel, const char *to);

/* Why a bundle's file was refused (-ELOOP, -EINVAL, -EFBIG) or could not be read, in words. */
const char *bundle_read_error(int r);

/* Copy src to dst (creating dst's directory). Returns 0 or -errno. */
int bundle_copy_file(const char *src, const char *dst);

/*
 * Read a bundle whole (path: bundle.json or its directory): the document
 * with each iteration's "tests" filled from its journal and the counts
 * taken again from them. A bad document or journal line fills err with
 * the file, line and key. Returns 0 (*ret owned by the caller), -errno, or
 * -EBADMSG.
 */
int bundle_load(const char *path, json_t **ret, char *err, size_t errsize);

/*
 * Why a test failed, in one line (control characters as spaces): check's
 * reason without its timing ("0s ... ") and pointer ("(see ...)"), the
 * first line its output differs by (from the diff's excerpt) and the
 * kernel's first report; any may be NULL.
 */
void bundle_why(const char *reason, const char *excerpt, const char *report, char *out, size_t size);

/* The longest why of an outcome, its NUL included. */
#define BUNDLE_WHY_MAX 256

/* A test's outcome as bundle_scan() reads it: count runs with that status. */
struct bundle_outcome {
	const char *config, *test, *status;
	uint64_t count; /* at most BUNDLE_MAX_COUNT */
	double duration_total, duration_max;
	/* a record's reruns (check -L): runs in all, the first included, and how many failed; 0 0 without */
	unsigned rerun_runs, rerun_fails;
	/*
	 * Why a failing record (fail, timeout, crash, error) failed, or NULL:
	 * check's reason without its own noise, the first line the output
	 * differs by and the kernel's first report ("output mismatch: +XFS
	 * (vdc): Corruption detected"); its first artifact (the .out.bad
	 * first), relative to the bundle.
	 */
	const char *why, *artifact;
};

struct bundle_scan_ops {
	/* bundle.json, checked (may be NULL); a negative return stops the scan */
	int (*bundle)(void *ctx, json_t *doc);
	/* each outcome; strings are valid during the call only */
	int (*outcome)(void *ctx, const struct bundle_outcome *o);
	/*
	 * A crash that is no test's record, for the readers that weigh it
	 * (may be NULL): an iteration's crash_pair as test "A+B" (the names
	 * sorted), its crash_unexplained and a config's crash_before_tests
	 * (the machine went down while it was set up) as
	 * BUNDLE_CRASH_UNPINNED; status crash, count 1, why saying which
	 * tests (or none) and the first report.
	 */
	int (*crash)(void *ctx, const struct bundle_outcome *o);
};

/* The test name an unexplained crash is counted under (bundle_scan_ops.crash). */
#define BUNDLE_CRASH_UNPINNED "(crash with no test named)"

/*
 * Read a bundle's outcomes without holding it: bundle.json is checked as
 * bundle_load() does, a soak's aggregate is read, then each journal is
 * validated line by line (util/jscan: no JSON objects are built) and its
 * records handed on, the last record of a test winning. Test names must be
 * "dir/name" of [A-Za-z0-9_.-], statuses known, artifact paths under
 * artifacts/ without "." or ".." components: a bundle that could steer a
 * reader's paths is refused. Returns 0, a callback's negative value, -errno,
 * or -EBADMSG with err naming file, line and key.
 */
int bundle_scan(const char *path, const struct bundle_scan_ops *ops, void *ctx, char *err, size_t errsize);

/* Whether name is a test name a bundle may hold ("generic/001"). */
bool bundle_test_name_ok(const char *name);
/* Whether path is a safe artifact path ("artifacts/xfs_4k/0/generic/001.out.bad"). */
bool bundle_artifact_ok(const char *path);
/* The same under another top directory ("coverage/xfs_4k/0/generic/001"). */
bool bundle_rel_path_ok(const char *path, const char *top);

/*
 * The bundles path names, sorted: path itself when it is a bundle (its
 * directory or bundle.json), else the bundle directories found under it
 * (4 levels down, symlinks not followed). Returns 0 (*ret a strv the caller
 * frees), -errno or -ENOENT (none found) with err saying so.
 */
int bundle_find_all(const char *path, char ***ret, char *err, size_t errsize);
