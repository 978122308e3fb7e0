/* SPDX-License-Identifier: MIT */
/*
 * Many tests at once in one machine: a queue of tests over the runners of
 * a pool (run/pool.h), each a thread driving checks of its own through the
 * run loop (run/runner.h), one test per check, in a mount namespace of its
 * own. The next test of the queue goes to whichever runner is free first;
 * the queue's order is the caller's (longest first: model/schedule.h).
 *
 * What the runners share is serialised here: the caller's callbacks
 * (timeout_for, on_result) run under one lock, one at a time, as they
 * would in a serial run. Each result says its runner (1-based), when it
 * started (seconds after the first), and the tests in flight beside it.
 * The kernel log is read by every runner and attributed by device (a
 * record naming another runner's device is not its test's; one naming
 * none is every test's in flight, marked shared).
 */
#pragma once

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "model/result.h"
#include "run/history.h"
#include "run/pool.h"
#include "run/runner.h"
#include "run/select.h"

/*
 * Run tests[0..n_parallel) in that queue order over pool's runners, then
 * the serial tail tests[n_parallel..n) one at a time on runner 1 alone
 * (when every test before it got a result); base carries what every runner
 * shares (the tree, section, kernel log, timeouts, reruns, on_result).
 * Returns 0, RUNNER_UNKILLABLE (a runner's test survived SIGKILL: the queue
 * stopped, the other runners finished theirs) or -errno.
 */
int parallel_run(const struct runner_opts *base, const struct runner_pool *pool, struct test_result *tests, size_t n,
		 size_t n_parallel);

/*
 * Move sel's serial tests (group unreliable_in_parallel) of order to its
 * end, each part keeping its order; *ret_n_parallel := how many come
 * before them. Returns 0 or -ENOMEM.
 */
int parallel_split(char **order, const struct selection *sel, size_t *ret_n_parallel);

/*
 * A parallel iteration's queue, in place: longest first by h's durations of
 * config's tests (a test never timed first of all: it may be the longest),
 * equals in an order drawn from seed. Returns 0 or -ENOMEM.
 */
int parallel_order(char **order, const struct history *h, const char *config, uint64_t seed);

/*
 * A config's runners for plan key jobs: none for jobs 1; none, said and
 * recorded with the reason when cannot says why the machine has none; none,
 * said and recorded (record's "parallel") when the tree has no test in group
 * unreliable_in_parallel (it cannot say which tests are unsafe beside
 * others: one at a time, never half parallel); else jobs runners under root
 * (run/pool.h). Returns 0 or pool_make's -errno with err.
 */
int parallel_setup(struct runner_pool *pool, unsigned jobs, const char *root, const char *cannot, const char *config,
		   const char *host_options, const char *section, const struct selection *sel, json_t *record,
		   char *err, size_t es);
