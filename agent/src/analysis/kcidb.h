/* SPDX-License-Identifier: MIT */
/*
 * Bundles as one KCIDB submission, the format KernelCI collects results in
 * from many labs (kcidb-io's I/O schema v5.3: kcidb_io/schema/v05_03.py).
 *
 * A kernel (release and build string) is one checkout and one build; each
 * test record one test:
 *   path         "fstests.<dir>.<leaf>" (generic/001 -> fstests.generic.001):
 *                the path names what ran, the way KernelCI names kselftest
 *                and LTP results (suite.collection.test); the config is how
 *                it ran, so it is the environment, and the dashboard lines
 *                up generic/001 across configs, kernels and labs
 *   environment  comment "xfs/4k"; misc: config, iteration, seed, machine
 *   status       pass PASS; fail and crash FAIL (a crash is the kernel
 *                going down under the test); notrun and expunged SKIP;
 *                timeout ERROR (it did not complete, the code's state is
 *                unknown); error and pending MISS (the harness could not
 *                run it: unknown test, run cut short)
 *   duration     seconds; comment: the reason
 *   log_excerpt  the diff excerpt, else the reason and the first kernel
 *                report, at most 16384 characters
 *   log_url, output_files
 *                the test's artifacts under BASE/RUN_ID/ when a base URL
 *                is given (log_url the .full, else the first)
 *   misc         fsagent_status, reason, reruns (runs, fails,
 *                classification), findings, first_report, without_lockdep,
 *                timeout, run_id
 * A soak's aggregate is one test per config and test with the
 * highest-priority status of its runs (KCIDB's own summary order: FAIL,
 * ERROR, MISS, PASS, DONE, SKIP), the mean duration and misc.aggregate the
 * counts; iterations it covers are not exported again.
 */
#pragma once

#include <jansson.h>
#include <stddef.h>

struct kcidb_opts {
	const char *origin;	/* the CI system's name, [a-z0-9_]+; "fsagent" */
	const char *log_base;	/* http(s) URL the bundles' directories are served under, or NULL */
	const char *tree_name;	/* the checkout facts a bundle cannot know, or NULL */
	const char *git_url;	/* https:// or git:// */
	const char *git_commit; /* 40 hex digits */
	const char *git_branch;
};

/* The options checked against the schema's patterns. Returns 0 or -EINVAL with the option named in err. */
int kcidb_opts_check(const struct kcidb_opts *o, char *err, size_t errsize);

/* An empty submission: {"version": {"major": 5, "minor": 3}, "checkouts": [], "builds": [], "tests": []}. */
json_t *kcidb_new(void);

/*
 * Add a bundle (read whole by bundle_load) to sub. The checkout facts of o
 * describe one kernel: a bundle of a second kernel with them given is
 * refused. Returns 0, -EINVAL with err, or -ENOMEM.
 */
int kcidb_add(json_t *sub, json_t *bundle, const struct kcidb_opts *o, char *err, size_t errsize);
