/* SPDX-License-Identifier: MIT */
/*
 * Qualification: a candidate kernel against its baseline, run by run until
 * every test is decided. The loop (cmd/qualify.c) runs rounds; this is its
 * judgement, pure over compare results (compare.h).
 *
 * Round 0 runs every test of the plan: on the candidate often enough that a
 * regression failing at least min_rate of its runs would have failed at
 * least once but for a chance of miss (qualify_clean_runs), on the baseline
 * baseline_runs times. Each later round reruns only the undecided tests, on
 * the side(s) that need it, growing each by half (at least 5 runs; down to
 * a quarter when fewer close the interval at the rates seen), until
 * every test is decided, the rounds are spent or the budget is.
 *
 * Verdicts, from all runs so far:
 *   regression      compare's class (one-sided Fisher, Holm over the tests
 *                   that failed on the candidate) at alpha / looks, looks
 *                   being the rounds at most + 1: every look spends an equal
 *                   share of alpha (Bonferroni over looks), so repeated looks
 *                   do not make flakes into regressions;
 *   fixed           the same the other way round;
 *   failing         every run failed on both sides, at least 3 a side: an
 *                   expunge candidate;
 *   flaky           failures, no significant difference, and Newcombe's
 *                   hybrid score interval for the difference of the rates
 *                   (one-sided level miss / looks each way) within
 *                   +-min_rate: neither a regression nor a fix of min_rate
 *                   can hide in it (regressions_only: below +min_rate, no
 *                   regression can; or no failure in clean_runs on the
 *                   candidate, whose rate is then below min_rate);
 *   pass            no failure, and the candidate ran clean_runs (times the
 *                   config's weight) and the baseline at least once;
 *   not-comparable  not run on a side (notrun, expunged): no rerun helps;
 *   undecided       any other, with the runs a side would decide it if the
 *                   rates seen held (runs_to_decide).
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/compare.h"

#define QUALIFY_SCHEMA "fsagent-qualify/1"

/* The options a qualification keeps in DIR/options.json, in given[]'s order: alpha, min_rate, miss, rounds,
 * baseline_runs, max_runs, budget. */
#define QUALIFY_KEPT 7

struct qualify_opts {
	double alpha;		/* family-wise, over all looks (0.01) */
	double min_rate;	/* the smallest regression to catch, a failure rate (0.2) */
	double miss;		/* the chance of letting such a regression through (0.01) */
	unsigned rounds;	/* adaptive rounds after round 0 at most (8) */
	unsigned baseline_runs; /* round 0's runs of each test on the baseline (3) */
	unsigned max_runs;	/* a side's runs of one test at most (400) */
	bool grow_smaller;	/* a side with twice the other's runs waits while the other doubles (a watch, whose
				 * baseline brings its earlier runs); else both grow by half of the larger */
	bool regressions_only;	/* "flaky" once no regression of min_rate can hide, whether or not a fix could
				 * (a watch: a test better than on the last kernel needs no more runs) */
};

void qualify_opts_default(struct qualify_opts *o);

/* The significance each look tests at: alpha / (rounds + 1). */
double qualify_look_alpha(const struct qualify_opts *o);

/* Clean candidate runs before a test passes: ceil(ln miss / ln(1 - min_rate)), times weight (>= 1 run). */
unsigned qualify_clean_runs(const struct qualify_opts *o, double weight);

/* z such that P(Z > z) = p for a standard normal Z (0 < p < 1). */
double qualify_z(double p);

/* Wilson's score interval for f failures of n runs (n > 0), each bound at one-sided level z. */
void qualify_wilson(uint64_t f, uint64_t n, double z, double *lo, double *hi);

/* Newcombe's hybrid score interval for rate(fk/rk) - rate(fb/rb), each bound at one-sided level z. */
void qualify_diff_interval(uint64_t fb, uint64_t rb, uint64_t fk, uint64_t rk, double z, double *lo, double *hi);

/*
 * Runs a side that would decide a test whose sides failed fb of rb and fk
 * of rk runs, were those rates the truth: the fewer of the runs that make
 * the difference significant (compare_runs_to_decide at the look's alpha)
 * and the runs that put the interval within +-min_rate. 0 when neither
 * happens within COMPARE_MAX_DECIDE.
 */
uint64_t qualify_runs_to_decide(const struct qualify_opts *o, uint64_t fb, uint64_t rb, uint64_t fk, uint64_t rk);

#define QUALIFY_CLASSES 7
extern const char *const qualify_classes[QUALIFY_CLASSES];

/*
 * Judge every test of cmp (compare_result at qualify_look_alpha). weights:
 * config -> number (its iterations over the plan's; absent: 1), may be
 * NULL. Returns {"counts": {class: n}, "tests": [{config, test, verdict,
 * reason, baseline, candidate (compare's evidence), p_worse, p_better,
 * p_adjusted, want: {baseline, candidate}, runs_to_decide}]}, tests most
 * serious first; want is the runs each side should get next round (0 for a
 * decided test). NULL on ENOMEM.
 */
json_t *qualify_judge(json_t *cmp, const struct qualify_opts *o, json_t *weights);

/* The runs spent so far, each side and both ("baseline", "candidate", "total"). */
json_t *qualify_runs(json_t *judged);

/*
 * The next round for side ("baseline" or "candidate"): the tests that want
 * runs there (*tests: a strv "config\x1ftest" each, sorted) and the runs
 * each gets (*runs, as many), its want, all cut in proportion when together
 * they cost more than share (the side's share of the budget left). Returns
 * the most runs a test gets (the round's iterations), 0 when no test wants
 * a run there or the share does not buy one (*tests and *runs NULL), or
 * -ENOMEM.
 */
int qualify_next(json_t *judged, const char *side, uint64_t share, char ***tests, unsigned **runs);

/* A round's record ({round, baseline: {tests, iterations}, candidate}) as "K: baseline 3 tests x 5, candidate none". */
void qualify_round_text(json_t *round, FILE *out);
/* The document's text: counts, each test not "pass" with its evidence, the runs and what they cost. */
void qualify_text(json_t *doc, FILE *out);
/* One self-contained HTML page of the same. */
void qualify_html(json_t *doc, FILE *out);
