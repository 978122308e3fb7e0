/* SPDX-License-Identifier: MIT */
/*
 * The order of a queue of tests over N runners in one guest (issue 36's
 * scheduler), pure: each test's expected seconds (the durations fsagent
 * keeps) in, the order out, longest first, tests of equal expectation in an
 * order drawn from a seed, so that a seed replays a run's queue. Beside it,
 * what such a queue would take (each next test to the runner free first)
 * and what check-parallel's split takes on the same tests (the order dealt
 * round-robin up front), for tests/bench/parallel.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sched_item {
	const char *name;
	double seconds; /* expected: a history's mean, or a default for a test never timed */
};

/* order[0..n) := indexes of items, longest first, equals by seed. Returns 0 or -ENOMEM. */
int sched_order(const struct sched_item *items, size_t n, uint64_t seed, size_t *order);

/*
 * The makespan of the queue order[0..n) over runners (>= 1), each next test
 * to the runner free first (the lowest-numbered of equals). runner_of and
 * start (by item, may be NULL) get where and when each test ran. Returns the
 * makespan, or -1 on no memory.
 */
double sched_makespan(const struct sched_item *items, const size_t *order, size_t n, unsigned runners,
		      unsigned *runner_of, double *start);

/* check-parallel's split: order[0..n) dealt round-robin to runners up front; the busiest runner's sum. */
double sched_round_robin(const struct sched_item *items, const size_t *order, size_t n, unsigned runners);

/* No schedule ends sooner: the longest test, or the sum over the runners. */
double sched_lower_bound(const struct sched_item *items, size_t n, unsigned runners);

/*
 * How many tests from the head of a queue (expected seconds e[0..n), in
 * queue order) one runner of runners takes as a batch, run in one check (a
 * check's start and end cost seconds of their own): tests until the batch
 * holds max(left / 2N, min(min_seconds, left / N)) of the time left, at
 * least one. The long tests at a longest-first queue's head go alone, short
 * ones together (a batch of at least min_seconds where there is that much
 * to share), never more than a runner's fair share of what is left, and
 * finer towards the end. Returns 0 only for n == 0.
 */
size_t sched_batch(const double *e, size_t n, unsigned runners, double min_seconds);

/*
 * sched_batch where the other runners still have busy seconds of their
 * batches ahead of them: the time left, and so a runner's share of it,
 * counts those too (a batch taken while the others are busy is not cut to
 * a share of the queue alone).
 */
size_t sched_batch_busy(const double *e, size_t n, unsigned runners, double min_seconds, double busy);

/* The median of the known expectations (>= 0) of e[0..n) (known: any was), or 1 when none is (or e is NULL). */
double sched_median_known(const double *e, size_t n, bool *known);
