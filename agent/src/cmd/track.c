// SPDX-License-Identifier: MIT
/*
 * fsagent track: its options; the loop is engine/track_loop.h's.
 */
#include "cmd/cmd.h"
#include "engine/build.h"
#include "engine/track_loop.h"
#include "util/log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static void usage(void)
{
	printf("usage: fsagent track --dir DIR [--git TREE (--tags PATTERN | --branch BRANCH) [--start REV]\n"
	       "                     --plan PLAN] --build CMD [--probe CMD [--upstream TREE]] [--notify CMD]\n"
	       "                     [--fetch]\n"
	       "                     [--interval SECONDS] [--once] [--no-soak] [--stop-file FILE]\n"
	       "                     [qualify's --alpha --min-rate --miss --rounds (5 here) --baseline-runs\n"
	       "                      --max-runs --budget --jobs] [--bisect-max-runs N]\n"
	       "                     [--bisect-max-kernels N] [--probe-timeout SECONDS]\n"
	       "                     [--probe-bundles] [--notify-timeout SECONDS]\n"
	       "                     [--build-timeout SECONDS] -- RUNNER [ARG...]\n"
	       "A kernel branch followed revision by revision: the tags of TREE matching PATTERN in\n"
	       "version order (v6.1.10 after v6.1.9, -rcN before the release) or each new head of\n"
	       "BRANCH. The first (--start, default the newest tag or the branch's head) is the\n"
	       "baseline; each new revision, the oldest first, is built (--build CMD, a shell command\n"
	       "line with fsagent bisect's contract: FSAGENT_BISECT_COMMIT, FSAGENT_BISECT_TREE,\n"
	       "FSAGENT_BISECT_KERNEL), qualified against the last revision qualified with PLAN as\n"
	       "fsagent qualify does (RUNNER is its runner, with FSAGENT_QUALIFY_KERNEL the side's\n"
	       "kernel directory; the baseline's earlier runs count, so its kernel runs again only\n"
	       "for the tests that want more), every regression bisected between the two with\n"
	       "--probe CMD (fsagent bisect's probe, as a shell command line), with --upstream TREE\n"
	       "each culprit's upstream fix looked for there and applied to the revision (fsagent\n"
	       "fixes --apply), then the baseline moves on. A revision that cannot be built (or not within "
	       "--build-timeout seconds, 14400;\n"
	       "0: no limit) is recorded and skipped. While none waits, the\n"
	       "baseline soaks (unless --no-soak): RUNNER with FSAGENT_QUALIFY_SIDE=soak runs PLAN in\n"
	       "random order, a boot at a time, each boot's seed recorded; its runs count as the\n"
	       "baseline's next time, its failures are the revision's findings; a new revision ends\n"
	       "the soak when the boot ends. --notify CMD runs once per revision and once per soak\n"
	       "boot that found what the qualification never saw fail, with FSAGENT_TRACK_REV, FSAGENT_TRACK_SHA, "
	       "FSAGENT_TRACK_VERDICT,\n"
	       "FSAGENT_TRACK_SUMMARY (a file) and FSAGENT_TRACK_STATUS (status.json), stopped after\n"
	       "--notify-timeout seconds (300); a revision's notification is recorded once it ran, and\n"
	       "one a stop cut off is sent when the watch starts again. --probe-timeout and\n"
	       "--probe-bundles are each bisection's (fsagent bisect's). It looks again\n"
	       "after each soak boot, or every --interval seconds (60; --fetch runs git fetch first,\n"
	       "waiting longer while it fails) until FILE exists; --once takes what is there and\n"
	       "ends. Everything is kept in DIR as it ends: given DIR again it goes on. Writes\n"
	       "DIR/status.json.\n"
	       "Exit status: 0 no regression, 1 a regression, 2 bad usage or input, 3 a command failed\n"
	       "(run again to go on).\n");
}

int cmd_track(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "git", required_argument, NULL, 'g' },
		{ "tags", required_argument, NULL, 't' },
		{ "branch", required_argument, NULL, 'B' },
		{ "start", required_argument, NULL, 's' },
		{ "plan", required_argument, NULL, 'p' },
		{ "build", required_argument, NULL, 'b' },
		{ "probe", required_argument, NULL, 'P' },
		{ "upstream", required_argument, NULL, 'F' },
		{ "notify", required_argument, NULL, 'N' },
		{ "fetch", no_argument, NULL, 'f' },
		{ "interval", required_argument, NULL, 'i' },
		{ "once", no_argument, NULL, 'o' },
		{ "no-soak", no_argument, NULL, 'O' },
		{ "stop-file", required_argument, NULL, 'S' },
		PARSE_QUALIFY_OPTIONS,
		{ "budget", required_argument, NULL, 'u' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "bisect-max-runs", required_argument, NULL, 'r' },
		{ "bisect-max-kernels", required_argument, NULL, 'K' },
		{ "probe-timeout", required_argument, NULL, 'T' },
		{ "build-timeout", required_argument, NULL, 'W' },
		{ "probe-bundles", no_argument, NULL, 'U' },
		{ "notify-timeout", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct track_run t = {
		.jobs = 1, .interval = 60, .soak = true, .notify_timeout = 300, .build_timeout = BUILD_TIMEOUT
	};
	unsigned long long n;
	int c, li = 0;

	qualify_opts_default(&t.qo);
	t.qo.grow_smaller = true;
	t.qo.regressions_only = true;
	/* with the baseline's earlier runs a watch's qualifications end sooner: alpha and miss shared by 6 looks,
	 * not 9, let a flake be decided on fewer runs */
	t.qo.rounds = 5;
	while ((c = getopt_long(argc, argv, "+h", opts, &li)) != -1) {
		switch (c) {
		case 'd': t.dir = optarg; break;
		case 'g': t.tree = optarg; break;
		case 't': t.tags = optarg; break;
		case 'B': t.branch = optarg; break;
		case 's': t.start = optarg; break;
		case 'p': t.plan = optarg; break;
		case 'b': t.build = optarg; break;
		case 'P': t.probe = optarg; break;
		case 'F': t.upstream = optarg; break;
		case 'N': t.notify = optarg; break;
		case 'f': t.fetch = true; break;
		case 'o': t.once = true; break;
		case 'O': t.soak = false; break;
		case 'S': t.stop_file = optarg; break;
		case 'i':
			if (parse_count("--interval", optarg, 1, 86400, &n) < 0)
				return 2;
			t.interval = (unsigned)n;
			break;
		case 'Q':
			if (parse_qualify_option(opts[li].name, optarg, &t.qo, t.qgiven) < 0)
				return 2;
			break;
		case 'u':
			if (parse_count("--budget", optarg, 1, 1000000000, &t.budget) < 0)
				return 2;
			break;
		case 'j':
			if (parse_count("--jobs", optarg, 1, 2, &n) < 0)
				return 2;
			t.jobs = (unsigned)n;
			break;
		case 'r':
			if (parse_count("--bisect-max-runs", optarg, 1, 1000000, &n) < 0)
				return 2;
			t.bisect_runs = (unsigned long)n;
			break;
		case 'K':
			if (parse_count("--bisect-max-kernels", optarg, 1, 100000, &n) < 0)
				return 2;
			t.bisect_kernels = (unsigned long)n;
			break;
		case 'T':
			if (parse_count("--probe-timeout", optarg, 1, 100000000, &n) < 0)
				return 2;
			t.probe_timeout = (unsigned long)n;
			break;
		case 'W':
			if (parse_count("--build-timeout", optarg, 0, 100000000, &n) < 0)
				return 2;
			t.build_timeout = (unsigned long)n;
			break;
		case 'n':
			if (parse_count("--notify-timeout", optarg, 1, 86400, &n) < 0)
				return 2;
			t.notify_timeout = (unsigned)n;
			break;
		case 'U': t.probe_bundles = true; break;
		case 'h': usage(); return 0;
		default: return 2;
		}
	}
	if (!t.dir || !t.build || optind >= argc) {
		log_err("usage: fsagent track --dir DIR ... --build CMD -- RUNNER [ARG...] (see --help)");
		return 2;
	}
	if (t.tags && t.branch) {
		log_err("track: --tags and --branch: one or the other");
		return 2;
	}
	t.runner = argv + optind;
	return track_loop(&t);
}
