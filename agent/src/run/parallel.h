/* SPDX-License-Identifier: MIT */
/*
 * Many tests at once in one machine: a queue of tests over the runners of
 * a pool (run/pool.h), each a thread driving checks of its own through the
 * run loop (run/runner.h), in a mount namespace of its own. The next batch
 * of the queue goes to whichever runner is free first: one check runs a
 * batch (a check's start and end cost seconds), sized by time so that the
 * long tests at the queue's head go alone and the short ones together; the
 * queue's order is the caller's (longest first: run/arrange.h).
 *
 * What the runners share is serialised here: the caller's callbacks
 * (timeout_for, on_result) run under one lock, one at a time, as they
 * would in a serial run. Each result says its runner (1-based), when it
 * started (seconds after the first), and the tests in flight beside it.
 * The kernel log is read by every runner and attributed by device (a
 * record naming another runner's device is not its test's; one naming
 * none is every test's in flight, marked shared). A test that fails on
 * such a shared report runs again alone once the parallel part is done
 * (its record keeps what was seen in company as shared_finding), so that a
 * report is called a test's own only when it comes with no other beside.
 */
#pragma once

#include <stddef.h>

#include "model/result.h"
#include "run/pool.h"
#include "run/runner.h"
#include "run/select.h"

/* A batch's expected length where durations are known (model/schedule.h's sched_batch). */
#define PARALLEL_BATCH_SECONDS 60
/* ... or this many times a check's start-up, as measured in the run, where that is longer (emulation) */
#define PARALLEL_STARTUP_FACTOR 6

/*
 * A config the queue serves. Several configs share one queue and one set
 * of runners: every config's pool has the same runners over the same
 * devices (pool_make's share), a runner serves one config at a time, and
 * its test device is made anew with a config's mkfs when it turns to that
 * config's tests.
 */
struct parallel_config {
	const char *name; /* "xfs/4k": a test beside another config's is named "xfs/4k:generic/001" */
	/* which make of a runner's test device it needs: the same for one config's iterations in one queue */
	unsigned fs_id;
	const struct runner_opts *base; /* what its checks share (the tree, section, kernel log, timeouts, on_result) */
	const struct runner_pool *pool; /* its runners' places */
};

/* How a queue of tests is run: its parts, and who hears what is in flight. */
struct parallel_queue {
	size_t head; /* tests[0..head): a crash's suspects, one at a time on runner 1 first */
	/* then tests[head..head+parallel) at once (those failing on a shared kernel report then again, alone); */
	size_t parallel; /* the rest one at a time last (the serial tail) */
	/* what each test is expected to take, seconds (by index; < 0 unknown), for the batches' sizes; may be NULL */
	const double *expect;
	unsigned batch_max; /* the most tests a runner takes at once; 0: as model/schedule.h says */
	/*
	 * by runner: the fs_id its test device was last made for (-1: none),
	 * kept by the caller from one queue to the next; NULL: as the pools
	 * made them
	 */
	int *serving;
	/*
	 * the tests that may be running, at each change, under the queue's
	 * lock (NULL-ended): by runner, the first of its batch without a
	 * result and the one after it (check starts that one the moment the
	 * other ends, before its start can be recorded), written before the
	 * batch's check starts; may be NULL
	 */
	void (*in_flight)(void *data, const struct test_result *const *tests);
	void *data;
};

/*
 * Run tests[0..n) (each of configs[t->config_index]) as pq says over the
 * configs' runners, each part once the one before has every result (a
 * stopped run resumes later). A free runner takes the queue's next batch,
 * of the head test's config; the tests of a batch move to its place in
 * tests (the order of the others kept), so that tests[] ends in the order
 * they were taken. Each config's base carries its on_result and timeouts,
 * called with its data. Returns 0, RUNNER_UNKILLABLE (a runner's test
 * survived SIGKILL: the queue stopped, the other runners finished theirs)
 * or -errno.
 */
int parallel_run(const struct parallel_config *configs, size_t n_configs, struct test_result *tests, size_t n,
		 const struct parallel_queue *pq);

/* The fs_id of the config whose pool made runner k's test device (pool_make), or -1: what serving starts from. */
int parallel_made_for(const struct parallel_config *configs, size_t n_configs, unsigned k);
