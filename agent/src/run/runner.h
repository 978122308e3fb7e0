/* SPDX-License-Identifier: MIT */
/*
 * Driving fstests' check over a list of tests and judging each test from
 * fsagent's own observation: check's output as it arrives, the kernel log
 * attributed through check's markers, the per-test result files, and a
 * per-test deadline that check itself does not have. A timed-out test gets
 * its blocked tasks dumped (sysrq w), its process group killed (TERM, then
 * KILL), and the batch goes on with the remaining tests in a new check.
 *
 * Lifecycle: fill struct runner_opts, set test names in struct test_result
 * (status TS_PENDING), runner_run(), then read the results.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "model/kmsg.h"
#include "model/result.h"

struct runner_opts {
	const char *fstests;				       /* the tree's root; check runs there */
	const char *host_options;			       /* absolute path of the fstests config */
	const char *section;				       /* config section, or NULL */
	bool overlay;					       /* check -overlay: over the section's fs */
	const char *kmsg;				       /* NULL: /dev/kmsg through the sysroot; "" for none */
	bool sysrq;					       /* write 'w' to /proc/sysrq-trigger on a timeout */
	unsigned rerun_failures;			       /* check -L */
	unsigned (*timeout_for)(void *data, const char *test); /* seconds, 0 = none */
	/* called once a test's result is final; nonzero stops the run */
	int (*on_result)(void *data, struct test_result *t);
	/* one check per test (for per-test measurements such as coverage) */
	bool one_per_check;
	/* called as each test starts (its first run, not check -L's reruns); may be NULL */
	void (*on_start)(void *data, struct test_result *t);
	/* called before each check starts, with its first test (may be NULL) */
	void (*before_check)(void *data, const char *test);
	void *data;
	/* beside other runners (run/parallel.h) */
	bool parallel;		    /* other checks run at once: kernel records are attributed by device */
	const char *const *devices; /* this runner's devices' names ("loop3"); a record naming another is not ours */
	const char *const *env;	    /* KEY=VALUE for check beside HOST_OPTIONS (TMPDIR), or NULL */
	bool own_mounts;	    /* check in a mount namespace of its own */
	unsigned kill_grace_ms;	    /* TERM to KILL; default 5000 */
	unsigned dead_wait_ms;	    /* KILL to "unkillable"; default 10000 */
};

/* runner_run's soft outcomes, beside 0 and -errno */
#define RUNNER_UNKILLABLE 3 /* a test survived SIGKILL: the machine must reboot */

/*
 * Run tests[0..n) through check in that exact order. Results are filled in
 * place; tests check never reached stay TS_PENDING only if the run stopped.
 * Returns 0, RUNNER_UNKILLABLE, or -errno.
 */
int runner_run(const struct runner_opts *o, struct test_result *tests, size_t n);

/* Whether lockdep has switched itself off so far in this runner's kernel log. */
bool runner_lockdep_off(void);

/* Kernel log records lost to ring buffer overruns, over every run so far. */
unsigned long long runner_kmsg_lost(void);
