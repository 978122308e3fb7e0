// SPDX-License-Identifier: MIT
/*
 * fsagent qualify: its options; the loop is engine/qualify_loop.h's.
 */
#include "cmd/cmd.h"
#include "engine/job.h"
#include "engine/qualify_loop.h"
#include "engine/statedir.h"
#include "util/fileio.h"
#include "util/log.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

int cmd_qualify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "plan", required_argument, NULL, 'p' },
		PARSE_QUALIFY_OPTIONS,
		{ "budget", required_argument, NULL, 'b' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct qualify_run q = { .jobs = 1 };
	const char *plan_arg = NULL;
	bool given[QUALIFY_KEPT] = { false };
	unsigned long long n;
	int c, rc, li = 0;

	qualify_opts_default(&q.o);
	while ((c = getopt_long(argc, argv, "+h", opts, &li)) != -1) {
		switch (c) {
		case 'd': q.dir = optarg; break;
		case 'p': plan_arg = optarg; break;
		case 'Q':
			if (parse_qualify_option(opts[li].name, optarg, &q.o, given) < 0)
				return 2;
			break;
		case 'b':
			if (parse_count("--budget", optarg, 1, 1000000000, &q.budget) < 0)
				return 2;
			given[6] = true;
			break;
		case 'j':
			if (parse_count("--jobs", optarg, 1, 2, &n) < 0)
				return 2;
			q.jobs = (unsigned)n;
			break;
		case 'h':
			printf("usage: fsagent qualify --dir DIR [--plan PLAN] [--alpha P] [--min-rate R] [--miss P]\n"
			       "                       [--rounds N] [--baseline-runs N] [--max-runs N] [--budget "
			       "RUNS]\n"
			       "                       [--jobs 1|2] -- RUNNER [ARG...]\n"
			       "A candidate kernel against its baseline, in rounds until every test is decided.\n"
			       "Round 0 runs PLAN's tests on the candidate often enough to catch a regression\n"
			       "failing --min-rate of its runs (default 0.2) but for a chance of --miss (0.01),\n"
			       "and --baseline-runs times (3) on the baseline; each later round reruns only the\n"
			       "undecided tests, on the side that needs it, until each is a regression, fixed,\n"
			       "flaky, failing, pass or not-comparable at --alpha (0.01, shared by the --rounds\n"
			       "+ 1 looks, default 8 rounds), or --budget test runs are spent (default: what a\n"
			       "fixed 30-runs-per-side protocol spends). RUNNER runs one side's round: it gets\n"
			       "FSAGENT_QUALIFY_SIDE (baseline or candidate), FSAGENT_QUALIFY_PLAN (a plan\n"
			       "file), FSAGENT_QUALIFY_RESULTS (a directory for its bundles) and\n"
			       "FSAGENT_QUALIFY_ROUND, and exits 0, 1 (tests failed) or 4 (nothing ran).\n"
			       "With --jobs 2 both sides run at once. Started again with the same DIR, it goes\n"
			       "on from the bundles there. Writes DIR/qualify.json, DIR/qualify.html and, for\n"
			       "the tests failing every run on both sides, DIR/expunge-suggested.txt.\n"
			       "Exit status: 0 no regression, 1 a regression, 2 bad usage, 3 a runner failed\n"
			       "(run it again to go on).\n");
			return 0;
		default: return 2;
		}
	}
	if (!q.dir || optind >= argc) {
		log_err("usage: fsagent qualify --dir DIR [--plan PLAN] ... -- RUNNER [ARG...] (see --help)");
		return 2;
	}
	q.runner = argv + optind;
	if (statedir_lock(q.dir, "fsagent qualify") < 0)
		return 2;
	job_stop_on_signals(3);
	rc = qualify_loop_setup(&q, plan_arg, given) < 0 ? 2 : qualify_loop_run(&q);
	qualify_loop_release(&q);
	return rc;
}
