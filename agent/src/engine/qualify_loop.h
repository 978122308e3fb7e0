/* SPDX-License-Identifier: MIT */
/*
 * fsagent qualify's loop: a candidate kernel against its baseline in rounds
 * until every test is decided (analysis/qualify.h judges). Each round's
 * plans are written into DIR before any of it runs, and a side's round is
 * done once its runner has left its bundles; so stopping it anywhere and
 * starting it again with the same DIR goes on where it stopped: rounds done
 * are read back from their bundles, an interrupted side is run again (its
 * partial results kept aside), and the plans still to come follow from the
 * same evidence.
 *
 * DIR/plan/               the plan everything starts from, with its files
 * DIR/options.json        the options decisions depend on, fixed at the start
 * DIR/round-K/SIDE/       plan/plan.conf (and its files), results/, log, done
 * DIR/qualify.json, qualify.html, expunge-suggested.txt   the outcome
 *
 * Runs made before of the baseline's tests (prior: a watch's last revision,
 * and the ones before it for the tests that did not change) count as the
 * baseline's: round 0 runs the candidate alone, and later
 * rounds run the baseline only for the tests that want more of it.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "analysis/qualify.h"
#include "model/plan.h"

struct qualify_run {
	const char *dir;
	char *const *runner;
	struct qualify_opts o;
	unsigned long long budget; /* 0: a fixed 30-runs-per-side protocol's */
	unsigned jobs;
	char *base_text; /* DIR/plan/plan.conf */
	struct plan base;
	json_t *weights; /* config -> iterations.<config> / iterations */
	json_t *rounds;	 /* what each round ran, for the outcome */
	/* a watch's: results directories of runs made before of the baseline's tests (read as the baseline's, its
	 * round 0 then runs the candidate alone), each leaving out the tests in its except ("CONFIG\x1fTEST"), and
	 * each side's kernel for the runner (FSAGENT_QUALIFY_KERNEL) */
	struct qualify_prior {
		char *dir;
		char **except;
	} * prior;
	size_t nprior;
	const char *kernel[2];
};

/* DIR/plan from plan_arg (or as it was), DIR/options.json (given: which of the kept options were given).
 * Returns 0 or -errno (logged). */
int qualify_loop_setup(struct qualify_run *q, const char *plan_arg, const bool given[QUALIFY_KEPT]);

/* The rounds until every test is decided, the rounds or the budget spent; the outcome written. Returns the exit status:
 * 0, 1 a regression, 3 a runner failed. */
int qualify_loop_run(struct qualify_run *q);

void qualify_loop_release(struct qualify_run *q);
