/* SPDX-License-Identifier: MIT */
/*
 * fsagent track's loop: a kernel branch followed revision by revision. The
 * revisions are a repository's tags matching a pattern, in version order
 * (git's version:refname with -rc before the release), or the successive
 * heads of a branch. The first is the starting baseline; each new one, the
 * oldest first, is built, qualified against the last revision qualified
 * (engine/qualify_loop.h, the baseline's own earlier runs counting as its
 * side, so its kernel runs again only for the tests that want more), and
 * each regression found bisected between the two (engine/bisect_loop.h);
 * then the baseline moves on. A revision that cannot be built is recorded
 * and the next one compared with the last baseline. While no revision
 * waits, the baseline soaks: a boot at a time in random order, each boot's
 * seed derived and recorded, its runs counting as the baseline's for the
 * next qualification, its failures the revision's findings; a new revision
 * ends the soak at the boot's end.
 *
 * DIR/track.json        the tree, what is followed, the start: fixed at the start
 * DIR/plan/             the plan every qualification runs, with its files
 * DIR/track.jsonl       one record per event (seen, built, unbuildable, qualified, bisected, done),
 *                       appended and fsync'd: what is done is never done again
 * DIR/revs/NNN-NAME/    kernel/, build.log, qualify/ (a qualification's state), bisect-N/ (one per regression),
 *                       soak/N/ (a soak boot: plan.conf, results/, log)
 * DIR/status.json       every revision's state and outcome (schema fsagent-track/1), rewritten after each event
 *
 * The build command is bisect's (FSAGENT_BISECT_COMMIT, FSAGENT_BISECT_TREE,
 * FSAGENT_BISECT_KERNEL: a directory to fill; exit 0 when built); the
 * runner is qualify's, with FSAGENT_QUALIFY_KERNEL the side's kernel
 * directory; the probe is bisect's.
 */
#pragma once

#include <stdbool.h>

#include "analysis/qualify.h"

struct track_run {
	const char *dir, *tree;
	const char *tags, *branch, *start; /* given at the start (track.json's after) */
	const char *plan;		   /* at the start */
	const char *build;		   /* a shell command line */
	char *const *runner;
	const char *probe;	     /* a shell command line; NULL: regressions are not bisected */
	const char *upstream;	     /* the upstream tree where a culprit's fix is looked for, or NULL */
	const char *notify;	     /* a shell command line run after each revision, or NULL */
	unsigned notify_timeout;     /* its seconds at most (0: no limit) */
	unsigned long probe_timeout; /* a bisection probe call's seconds at most (0: no limit) */
	unsigned long build_timeout; /* a build's seconds at most (0: no limit) */
	bool probe_bundles;	     /* the probe always leaves bundles (fsagent bisect --probe-bundles) */
	struct qualify_opts qo;
	bool qgiven[QUALIFY_KEPT]; /* which of a qualification's kept options were given (budget: never) */
	unsigned long long budget;
	unsigned jobs;
	bool fetch;		      /* git fetch before each look */
	bool once;		      /* take what is there, then return */
	bool soak;		      /* between revisions the baseline soaks, a boot at a time */
	unsigned interval;	      /* seconds between looks */
	const char *stop_file;	      /* its existence ends the watch */
	unsigned long bisect_runs;    /* a bisection's --max-runs */
	unsigned long bisect_kernels; /* its --max-kernels */
};

/*
 * Follow until --once has taken what there is, or the stop file appears.
 * Returns the exit status: 0 (no regression in the revisions taken), 1 (a
 * regression), 2 bad input (named), 3 a command failed (run again to go on).
 */
int track_loop(struct track_run *t);
