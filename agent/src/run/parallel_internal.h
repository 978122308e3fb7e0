/* SPDX-License-Identifier: MIT */
/*
 * Between parallel.c (the queue, its runners' threads, its phases) and
 * parallel_company.c (which tests ran beside which, and which may be
 * running: a crash's suspects).
 */
#pragma once

#include "run/parallel.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct queue {
	const struct parallel_config *cfgs; /* the configs served, by test_result.config_index */
	size_t n_cfgs;
	const struct parallel_queue *pq;
	double *expect; /* this phase's tests' expectations, by index (seconds, < 0 unknown; moved with them), or NULL
			 */
	double unknown; /* what a test never timed is expected to take: the median of those timed, or 1 */
	bool known;	/* some test's duration is known: expectations are seconds, not counts */
	/* measured as the queue runs: what its tests took, and what a check takes to start its first test */
	double *seen;
	size_t n_seen;
	double startup;	    /* seconds, smoothed; 0 before the first */
	double *batch_t0;   /* by runner: when its batch's check was started */
	double *batch_left; /* by runner: what its batch's tests not yet done are expected to take */
	double *est;	    /* by test of this phase: what it was expected to take when taken */
	bool *batch_first;  /* by runner: its batch's first test has not started yet */
	unsigned runners;   /* this phase's: all of them, or runner 1 alone */
	struct test_result *tests;
	size_t n, next;
	ssize_t *in_flight;	     /* by runner: the test it runs, -1 */
	size_t *batch_lo, *batch_hi; /* by runner: its batch, tests[lo..hi) (lo == hi: none) */
	bool *done;		     /* by test: its result given (on_result) */
	bool one_each;		     /* a check a test: a crash's suspects, each alone */
	double *end;		     /* by test: when its verdict came (its start + duration), 0 before */
	bool *held;		     /* by test: failed on a shared kernel report, to run again alone (beside others) */
	bool confirming;	     /* running the held tests again, alone */
	bool *remake;		     /* by runner: a test timed out on its devices, made anew before its next */
	int *serving;		     /* by runner: the fs_id its test device was last made for, -1 none yet */
	double t0;
	bool stop;
	int rc;
	pthread_mutex_t lock;
};

/* A runner's thread, and the config of the batch it runs: the callbacks' data. */
struct worker {
	struct queue *q;
	unsigned k; /* 0-based */
	unsigned ci;
	pthread_t thread;
};

/* other's label ("<config>:<name>" when another config's) appended to t's tests beside it. Under the lock. */
void parallel_add_beside(const struct queue *q, struct test_result *t, const struct test_result *other);
/* Of t's tests beside it, those that ran while it did (it ended at t_end) kept. Under the lock. */
void parallel_trim_beside(struct queue *q, struct test_result *t, double t_end);
/* The tests that may be running now to the caller's in_flight (parallel.h says which). Under the lock. */
void parallel_report_in_flight(struct queue *q);
