/* SPDX-License-Identifier: MIT */
/*
 * A test's result as fsagent judges it: its status and what explains it.
 * The run loop fills it, the bundle records it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "model/kmsg.h"

enum test_status { TS_PENDING, TS_PASS, TS_FAIL, TS_NOTRUN, TS_EXPUNGED, TS_TIMEOUT, TS_CRASH, TS_ERROR, TS_MAX };

/* "pass", "fail", ...; what a bundle records. */
const char *test_status_to_string(enum test_status s);
/* The status of that name, or TS_MAX for none ("pending" is never recorded, so it is none too). */
enum test_status test_status_from_string(const char *s);
/* fail, timeout, crash, error: a test that did not pass, for every count and exit status. */
bool test_status_failed(enum test_status s);
/* notrun, expunged: a test that did not run. */
bool test_status_skipped(enum test_status s);
/* The same for a status name (unknown names are neither). */
bool test_status_name_failed(const char *s);
bool test_status_name_skipped(const char *s);

/*
 * A test's name as fstests gives it, "dir/leaf": dir of [a-z0-9_]
 * ("generic", "xfs"), leaf of [A-Za-z0-9_-] ("001", "475"); with globs, '*'
 * and '?' in the leaf too (a plan's "generic/4*"). The one check for plans,
 * group lists, bundles and everything that makes a path of a name: no '.',
 * no second '/', never empty.
 */
bool test_name_ok(const char *name, bool globs);

/* A config name: fs/name, lower case letters, digits and _ ("xfs/4k", "ext4/bigalloc_1k"). */
bool config_name_ok(const char *name);
/* The leaf alone ("001"). */
bool test_leaf_ok(const char *leaf, bool globs);

#define TEST_EXCERPT_MAX 2048 /* bytes of the diff kept */

/*
 * One test's result. A run holds one per test of a batch, so what only
 * failures have (excerpt, kernel log) lives on the heap: the owner frees
 * both once the result is recorded (test_result_release).
 */
struct test_result {
	char name[128];
	enum test_status status;
	double duration;  /* seconds, measured by fsagent */
	unsigned timeout; /* the limit it ran under, seconds; 0 = none */
	char reason[512];
	char *excerpt;			     /* the first lines of the diff (heap), or NULL */
	unsigned findings[KMSG_FINDING_MAX]; /* kernel reports during the test */
	char first_report[256];		     /* the first failing report line */
	char server[512];		     /* a loopback server's daemons that died during it */
	unsigned runs, fails;		     /* with reruns: K+1 runs, k failed */
	bool without_lockdep;		     /* lockdep was off when it ran */
	bool kernel_shared;		     /* its first report named no device while other tests ran */
	/* a failure on such a report, in company, before the test ran again alone (its status is that run's) */
	char shared_finding[640];
	unsigned long long taint_before; /* /proc/sys/kernel/tainted at its start */
	char *kernel_log;		 /* the test's kernel records (heap) */
	size_t kernel_log_len;
	/* run beside others (run/parallel.h) */
	unsigned runner;       /* 1-based; 0: a serial run */
	double started;	       /* seconds after the first test of its queue started */
	char *beside;	       /* the tests in flight during it, blank-separated (heap), or NULL */
	unsigned config_index; /* its config among those of one queue (run/parallel.h), from 0 */
	bool has_coverage;     /* gcov data saved (bundle_coverage_dir) */
	unsigned coverage_files;
};

/* Free a result's heap parts (excerpt, kernel log); the rest stays. */
void test_result_release(struct test_result *t);
