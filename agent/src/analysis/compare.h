/* SPDX-License-Identifier: MIT */
/*
 * Baseline against candidate: which failures did the candidate (a
 * backports branch, a new -rc) cause? Bundles of each side are read
 * streaming (bundle_scan), counted per config and test, and each test is
 * classified:
 *
 *   regression      fails more on the candidate than on the baseline, with
 *                   Fisher's exact test (one-sided) significant at alpha
 *                   after Holm's correction over the tests that failed on
 *                   the candidate;
 *   fixed           the same the other way round;
 *   failing         failed every run on both sides;
 *   flaky           failures on either side, no significant difference;
 *   not-comparable  not run on one side, or too few runs for any result to
 *                   reach alpha (1 / C(n+m, n) >= alpha);
 *   pass            no failures on either side.
 *
 * A run is a pass or a failure (fail, timeout, crash, error); notrun and
 * expunged are counted apart and are not runs.
 */
#pragma once

#include <stdint.h>

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#define COMPARE_SCHEMA "fsagent-compare/1"

enum compare_side { SIDE_BASELINE, SIDE_CANDIDATE };

struct compare;

int compare_new(struct compare **ret);
void compare_free(struct compare *c);

/*
 * Add path's bundles to a side: path is a bundle (its directory or
 * bundle.json) or a directory searched (4 levels, symlinks not followed)
 * for bundle directories. A bad bundle fails the whole add with err naming
 * file, line and key. Returns 0, -errno, -ENOENT (no bundle found) or
 * -EBADMSG.
 */
int compare_add(struct compare *c, enum compare_side side, const char *path, char *err, size_t errsize);
/* compare_add, leaving out the tests named in except ("CONFIG\x1fTEST" strings; NULL: none). */
int compare_add_except(struct compare *c, enum compare_side side, const char *path, char *const *except, char *err,
		       size_t errsize);

/* The result document (schema COMPARE_SCHEMA), tests sorted by class then name. */
json_t *compare_result(struct compare *c, double alpha);

/* One-sided Fisher exact test: P(X >= a) for the 2x2 table [[a, b], [c, d]]. */
double compare_fisher_greater(uint64_t a, uint64_t b, uint64_t c, uint64_t d);
/* log C(n, k) (k <= n). */
double compare_lchoose(uint64_t n, uint64_t k);

/*
 * How many runs a side would decide a test whose two sides failed fb of rb
 * and fk of rk runs, if those rates held: the fewest n such that n runs a
 * side failing at those rates give a one-sided Fisher p-value below alpha
 * (before Holm's correction). 0 when the rates are the same or it would
 * take more than COMPARE_MAX_DECIDE runs.
 */
#define COMPARE_MAX_DECIDE 10000
uint64_t compare_runs_to_decide(uint64_t fb, uint64_t rb, uint64_t fk, uint64_t rk, double alpha);

/*
 * The result's "userspace": {baseline, candidate: the distinct userspace
 * records of each side's bundles (analysis/provenance.h), differs: what
 * differs between them}. Whether anything differs, and a warning naming it
 * ("fstests v1 / v2; mkfs.xfs ...") into buf.
 */
bool compare_userspace_differs(json_t *result, char *buf, size_t size);

/*
 * The verdict classes, most serious first: the order of a result's tests and
 * of its text; within a class, the strongest evidence first (the smallest
 * p_worse; for "fixed", p_better).
 */
#define COMPARE_CLASSES 6
extern const char *const compare_classes[COMPARE_CLASSES];
/* A class's place in compare_classes (most serious first); COMPARE_CLASSES for an unknown one. */
int compare_class_rank(const char *cls);

/* A result's string field ("" when absent) and count field (0 when absent). */
const char *compare_str(json_t *o, const char *key);
unsigned long long compare_num(json_t *o, const char *key);
/* Whether a result's test is a crash no test's record holds ("together": A+B, or none named). */
bool compare_together(json_t *t);

void compare_text(json_t *result, FILE *out);
/* Its tests worse on the candidate over their configs together (across_configs), a section; nothing when none. */
void compare_across_text(json_t *result, FILE *out);
/*
 * How a test of a result failed, for its row: the candidate's first failure
 * (else the baseline's), "candidate: output mismatch: +..." with a link to
 * its artifact (html) or its path (text, indent before it, a line). Nothing
 * when neither side failed.
 */
void compare_why_html(json_t *test, FILE *out);
void compare_why_text(json_t *test, const char *indent, FILE *out);
/* One self-contained HTML page (inline CSS and SVG, no scripts, no links out). */
void compare_html(json_t *result, FILE *out);

/*
 * The rerun plan: the candidate's failures and flakes (every test that
 * failed on the candidate and is not "failing" on both), to be run on the
 * baseline iterations times: plan file path (the launcher's --plan, or a
 * results disk's plan.conf) and, when the tests differ between configs, an
 * expunge file next to it keeping each config to its own suspects. Written
 * by temp file and rename. Returns the number of tests (0: no plan
 * written) or -errno.
 */
int compare_rerun_plan(json_t *result, const char *path, unsigned iterations, char *err, size_t errsize);
