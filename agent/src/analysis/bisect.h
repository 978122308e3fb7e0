/* SPDX-License-Identifier: MIT */
/*
 * Bisection that weighs every run: which commit of a line raised a test's
 * failure rate, when the test is flaky on one side or both.
 *
 * The commits are a line 0..n-1: 0 the good end (every good revision given
 * stands there), n-1 the bad end. Hypothesis i (1 <= i < n) says commit i
 * is the first bad one: commits before it fail at an unknown rate p_good,
 * commits from it on at an unknown rate p_bad; hypothesis 0 says nothing
 * changed (one rate everywhere). Every run at every commit is evidence:
 * the posterior of i is its prior (uniform over the line; 0 gets
 * null_prior) times the likelihood of all runs with both rates integrated
 * out, so the rates are estimated with the culprit, never given, and a
 * flake that got worse is a change like any. Each rate's prior: exactly 0
 * (a clean baseline) a quarter, exactly 1 (a deterministic regression) a
 * quarter, else Jeffreys' Beta(1/2, 1/2): both ends of the range are
 * common, and a run that contradicts them costs them at once.
 *
 * The steps (bisect_next):
 *   bad end    runs at n-1 until it failed end_fails times (its rate);
 *   good end   a batch at 0 that would have failed at that rate;
 *   search     runs where they tell most per run spent: the mutual
 *              information of a batch's outcome (a failure or none) and
 *              the hypotheses, each predicting with its own rates, over
 *              the batch's expected runs plus build_cost for a commit not
 *              built yet. A batch is as many runs as make a bad commit
 *              fail with batch_power, stopping at the first failure;
 *   confirm    once a culprit holds confidence: it must have failed
 *              confirm_fails times, and its parent run as often as the bad
 *              rate needs to fail with probability confidence; then it
 *              must still hold confidence.
 * A commit that cannot be built, booted or run is skipped: it has no runs,
 * so it and the next commit that runs cannot be told apart and are judged
 * as one group ("one of A, B").
 *
 * Pure: no I/O, no clock. The loop that builds and runs is cmd/bisect.c;
 * the simulation that measures it, tests/host/bisect-sim.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BISECT_SCHEMA "fsagent-bisect/1"

struct bisect_opts {
	double confidence;	/* a culprit's posterior to stop at (0.99) */
	double null_prior;	/* the prior of "nothing changed" (0.1: a regression was seen) */
	double batch_power;	/* a batch's chance to fail on a bad commit (0.8) */
	double build_cost;	/* a kernel not built yet, in runs (2) */
	unsigned end_fails;	/* failures the bad end shows before the search (2) */
	unsigned confirm_fails; /* failures the culprit itself shows (2) */
	unsigned max_batch;	/* runs in one boot at most (64) */
	unsigned max_end_runs;	/* runs of the bad end without end_fails failures: no difference (200) */
};

void bisect_opts_default(struct bisect_opts *o);

enum bisect_action {
	BISECT_PROBE,	      /* run commit `commit` `runs` times */
	BISECT_FOUND,	      /* the culprit group first..commit holds `confidence` */
	BISECT_NO_DIFFERENCE, /* the ends do not differ (why says how) */
	BISECT_STUCK,	      /* every commit that could tell is skipped */
};

struct bisect_step {
	enum bisect_action action;
	const char *phase; /* PROBE: "bad end", "good end", "search", "confirm" */
	const char *why;   /* NO_DIFFERENCE, STUCK: in words */
	size_t commit;	   /* PROBE: where; FOUND: the group's commit that ran */
	size_t first;	   /* FOUND: the group's first commit (< commit when skipped ones precede it) */
	unsigned runs;	   /* PROBE: runs in one boot */
	bool stop_at_fail; /* PROBE: the runs may stop at the first failure (check -I) */
	double confidence; /* FOUND: the group's posterior; otherwise the best group's */
};

struct bisect;

/* A line of n >= 2 commits. Returns 0 or -ENOMEM/-EINVAL. */
int bisect_new(size_t n, const struct bisect_opts *o, struct bisect **ret);
void bisect_free(struct bisect *b);

size_t bisect_size(const struct bisect *b);

/* runs at commit, fails of them failed (fails <= runs). */
void bisect_record(struct bisect *b, size_t commit, unsigned runs, unsigned fails);
/* The commit cannot be built, booted or run: it is never probed again. */
void bisect_skip(struct bisect *b, size_t commit);

unsigned bisect_runs(const struct bisect *b, size_t commit);
unsigned bisect_fails(const struct bisect *b, size_t commit);
bool bisect_skipped(const struct bisect *b, size_t commit);

/* What to do next, from everything recorded. Returns 0 or -ENOMEM. */
int bisect_next(struct bisect *b, struct bisect_step *step);

/*
 * After bisect_next: the posterior that commit i (1..n-1) is the first bad
 * one; 0 gives that of "nothing changed".
 */
double bisect_posterior(const struct bisect *b, size_t i);

/* After bisect_next: the rates' posterior means, given the most likely culprit. */
void bisect_rates(const struct bisect *b, double *good, double *bad);
