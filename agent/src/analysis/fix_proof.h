/* SPDX-License-Identifier: MIT */
/*
 * Does a patch fix a failure? The judgement of fsagent fixes --prove, pure
 * over run counts: the failing revision failed fb of rb runs of the test,
 * the revision with the patch fk of rk.
 *
 * With z the one-sided level alpha / looks (Bonferroni over the looks), and
 * [lo, hi] Wilson's interval of the failing revision's rate at it:
 *   fixes          even at min_rate x lo, the patched revision's failures
 *                  would be that few with less than that chance
 *                  (P(X <= fk; rk, min_rate x lo) < alpha / looks): its rate
 *                  is shown to be below min_rate of the old one;
 *   does not fix   even at min_rate x hi, they would be that many with less
 *                  (P(X >= fk; rk, min_rate x hi) < alpha / looks): a patch
 *                  that lowers the rate without taking it below min_rate of
 *                  the old one (a part of a flaky failure fixed) does not fix;
 *   undecided      neither: the runs each side wants next (both grow by half,
 *                  at least 5; the failing revision no further than the
 *                  patched one once it has failed twice), none once both
 *                  have max_runs or the failing revision never failed in
 *                  max_runs (nothing to fix: why says so).
 */
#pragma once

#include <stddef.h>

struct fix_proof_opts {
	double min_rate;   /* the share of the old failure rate a fix may leave (0.2) */
	double alpha;	   /* the chance of a wrong verdict over all looks (0.1) */
	unsigned looks;	   /* the judgements made at most: rounds + 1 (10) */
	unsigned max_runs; /* a side's runs at most (200) */
};

void fix_proof_opts_default(struct fix_proof_opts *o);

enum fix_verdict { FIX_UNDECIDED, FIX_FIXES, FIX_DOES_NOT_FIX };

struct fix_proof {
	enum fix_verdict verdict;
	unsigned want_head, want_patched; /* the runs each side should get next (undecided) */
	char why[200];			  /* undecided with no runs wanted: why not */
};

/* "fixes", "does not fix", "undecided". */
const char *fix_verdict_name(enum fix_verdict v);

void fix_proof_judge(const struct fix_proof_opts *o, unsigned fb, unsigned rb, unsigned fk, unsigned rk,
		     struct fix_proof *out);
