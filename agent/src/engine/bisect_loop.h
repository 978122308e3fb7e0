/* SPDX-License-Identifier: MIT */
/*
 * fsagent bisect's loop: the line of commits between a good and a bad
 * revision, each step analysis/bisect.h's, each commit built by a build
 * command (once: a finished build is never repeated) and run by a probe
 * command; every run kept in the state directory as it ends, so that a
 * stop at any instant loses no finished run, and starting again with the
 * same directory replays what was recorded and goes on.
 *
 * DIR/line.json        the tree, ends, tests, config and the commits, fixed at the start;
 *                      with ends_from, the ends' runs taken from that qualification
 * DIR/options.json     confidence (fixed at the start)
 * DIR/runs.jsonl       one line per build, probe result or skip, appended and fsync'd: the decisions in order
 * DIR/kernels/SHA/     the build's output (kernel/) and log
 * DIR/probes/N/        step.json (what was asked), results/ (the probe's bundles), log
 * DIR/bisect.json, bisect.html   the outcome
 *
 * The build command gets FSAGENT_BISECT_COMMIT, FSAGENT_BISECT_TREE and
 * FSAGENT_BISECT_KERNEL (a directory to fill) and exits 0 when built. The
 * probe gets FSAGENT_BISECT_COMMIT, FSAGENT_BISECT_KERNEL (empty without a
 * build command), FSAGENT_BISECT_TESTS (space separated),
 * FSAGENT_BISECT_CONFIG, FSAGENT_BISECT_RUNS (runs to make in one boot),
 * FSAGENT_BISECT_STOP (1: it may stop at the first failure) and
 * FSAGENT_BISECT_RESULTS (a directory for its bundles), plus fsagent
 * reduce's FSAGENT_REDUCE_TESTS and FSAGENT_REDUCE_CONFIG; it exits 0 (the
 * tests passed), 1 (one failed), or 125 (this commit cannot be tested, as
 * git bisect run's). When it leaves bundles, their runs of the tests count
 * (each run of each named test); when not, the call is one run, and the
 * probe is called again up to FSAGENT_BISECT_RUNS times.
 */
#pragma once

#include <stdbool.h>

#include "analysis/bisect.h"

struct bisect_run {
	/* in: the line (NULL on a resume: line.json's), the commands, the budgets */
	const char *dir, *tree, *bad, *config;
	char **goods, **tests;
	char *const *probe;
	const char *build; /* a shell command line, or NULL */
	/*
	 * fsagent qualify's directory whose baseline ran the good end's kernel
	 * and whose candidate the bad end's: their runs of the tests are the
	 * ends' (not counted in max_runs), so the ends are not measured again.
	 */
	const char *ends_from;
	struct bisect_opts o;
	bool confidence_given;
	unsigned long max_runs, max_kernels, max_seconds; /* 0: no limit */
	unsigned long probe_timeout;			  /* a probe call's seconds at most (0: no limit) */
	unsigned long build_timeout;			  /* a build's seconds at most (0: no limit) */
	bool probe_bundles; /* the probe always leaves bundles (a VM's): asked for a step's runs from the first call */
	/*
	 * Forward: the first commit from which the test passes, between bad
	 * (where it fails, an ancestor) and the one good (where it passes).
	 * The line is made from bad to good and turned round, so that the
	 * engine's good end is where it passes: the engine's first bad commit
	 * is the last that fails, and the one after it (its parent in the
	 * engine's line, which must run clean as often as the old rate needs
	 * to show) is the fix.
	 */
	bool forward;
};

/*
 * Set up DIR (line, options), replay its runs, and go on until a verdict
 * or a budget. Returns the exit status: 0 found, 1 the ends do not differ,
 * 2 bad input (named), 3 a command failed (run again to go on), 4 a budget
 * spent or no commit left to tell.
 */
int bisect_loop(struct bisect_run *r);
