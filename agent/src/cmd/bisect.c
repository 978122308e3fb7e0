// SPDX-License-Identifier: MIT
/*
 * fsagent bisect: its options; the loop is engine/bisect_loop.h's, the
 * judgement analysis/bisect.h's.
 */
#include "cmd/cmd.h"
#include "engine/bisect_loop.h"
#include "engine/build.h"
#include "model/result.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/strv.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static void usage(void)
{
	printf("usage: fsagent bisect --dir DIR [--git TREE --good REV [--good REV...] --bad REV\n"
	       "                      --test TEST [--test TEST...] --config CONFIG [--ends-from QDIR]\n"
	       "                      [--forward]]\n"
	       "                      [--build CMD] [--build-timeout SECONDS]\n"
	       "                      [--confidence P] [--max-runs N] [--max-kernels N] [--max-time SECONDS]\n"
	       "                      [--probe-timeout SECONDS] [--probe-bundles]\n"
	       "                      -- PROBE [ARG...]\n"
	       "The first commit between the good revisions and the bad one whose failure rate of\n"
	       "TEST (several: every run of each counts) is higher, flaky tests included: the bad\n"
	       "end runs until it failed twice, the good end as long as that rate needs to show,\n"
	       "then every run updates a posterior over the culprit (both rates estimated with it)\n"
	       "and the next runs go where they tell most, batched per boot, until one commit holds\n"
	       "--confidence (0.99); the culprit must then have failed, its parent passed as often\n"
	       "as the rates say. Commits that cannot be built or tested are skipped (\"one of A, B\").\n"
	       "--forward: the other way, the first commit from which TEST passes (a fix), --bad\n"
	       "where it fails (an ancestor), one --good where it passes; the fix must then have\n"
	       "run clean as often as the old rate needs to show, the commit before it failed.\n"
	       "--build CMD (a shell command line) builds FSAGENT_BISECT_COMMIT of FSAGENT_BISECT_TREE\n"
	       "into the directory FSAGENT_BISECT_KERNEL and exits 0 when built (scripts/fsagent-bisect\n"
	       "passes scripts/build-kernel --commit); without it the probe gets the commit alone.\n"
	       "A build is stopped (its process group) after --build-timeout seconds (14400; 0: no\n"
	       "limit), the commit then skipped as \"cannot build\", or where --max-time runs out.\n"
	       "--ends-from QDIR takes the ends' runs from fsagent qualify's directory QDIR, whose\n"
	       "baseline ran the good revision and whose candidate the bad one: its runs of TEST on\n"
	       "CONFIG count as the ends' (not against --max-runs), so the ends are not run again.\n"
	       "PROBE runs FSAGENT_BISECT_TESTS on FSAGENT_BISECT_CONFIG with the kernel in\n"
	       "FSAGENT_BISECT_KERNEL, FSAGENT_BISECT_RUNS times in one boot (FSAGENT_BISECT_STOP=1:\n"
	       "it may stop at the first failure), leaving its bundles in FSAGENT_BISECT_RESULTS, and\n"
	       "exits 0 passed, 1 failed, 125 cannot test this commit. A probe of fsagent reduce's\n"
	       "kind (FSAGENT_REDUCE_TESTS, FSAGENT_REDUCE_CONFIG, no bundles) is one run a call:\n"
	       "until a call has left bundles the probe is asked for one run (--probe-bundles: the\n"
	       "probe always leaves them, a call without is no result). A call is stopped\n"
	       "(its process group) at --probe-timeout, or where --max-time runs out; the runs its\n"
	       "bundles hold count, and a call stopped at --probe-timeout with none skips the commit.\n"
	       "Every build and run is kept in DIR as it ends: given DIR again (with the same or no\n"
	       "revisions) it replays them and goes on. Writes DIR/bisect.json and DIR/bisect.html.\n"
	       "Exit status: 0 found, 1 the ends do not differ, 2 bad usage or input, 3 a command\n"
	       "failed (run again to go on), 4 a budget spent or no commit left to tell.\n");
}

int cmd_bisect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "git", required_argument, NULL, 'g' },
		{ "good", required_argument, NULL, 'G' },
		{ "bad", required_argument, NULL, 'B' },
		{ "test", required_argument, NULL, 't' },
		{ "config", required_argument, NULL, 'c' },
		{ "build", required_argument, NULL, 'b' },
		{ "ends-from", required_argument, NULL, 'E' },
		{ "confidence", required_argument, NULL, 'C' },
		{ "max-runs", required_argument, NULL, 'R' },
		{ "probe-timeout", required_argument, NULL, 'P' },
		{ "build-timeout", required_argument, NULL, 'W' },
		{ "probe-bundles", no_argument, NULL, 'U' },
		{ "forward", no_argument, NULL, 'F' },
		{ "max-kernels", required_argument, NULL, 'K' },
		{ "max-time", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct bisect_run r = { .build_timeout = BUILD_TIMEOUT };
	unsigned long long n;
	int c, rc = 2;

	bisect_opts_default(&r.o);
	r.max_runs = 2000;
	r.max_kernels = 40;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': r.dir = optarg; break;
		case 'g': r.tree = optarg; break;
		case 'B': r.bad = optarg; break;
		case 'c': r.config = optarg; break;
		case 'b': r.build = optarg; break;
		case 'E': r.ends_from = optarg; break;
		case 'G':
			if (strv_push(&r.goods, optarg) < 0)
				goto out;
			break;
		case 't':
			if (!test_name_ok(optarg, NULL)) {
				log_err("--test: '%s' is not a test name (DIR/NNN)", optarg);
				goto out;
			}
			if (strv_push(&r.tests, optarg) < 0)
				goto out;
			break;
		case 'C':
			if (parse_real("--confidence", optarg, 0.5, 1, &r.o.confidence) < 0)
				goto out;
			r.confidence_given = true;
			break;
		case 'R':
		case 'K':
		case 'T':
			if (parse_count(c == 'R'   ? "--max-runs"
					: c == 'K' ? "--max-kernels"
						   : "--max-time",
					optarg, 1, 100000000, &n) < 0)
				goto out;
			*(c == 'R' ? &r.max_runs : c == 'K' ? &r.max_kernels : &r.max_seconds) = (unsigned long)n;
			break;
		case 'P':
			if (parse_count("--probe-timeout", optarg, 1, 100000000, &n) < 0)
				goto out;
			r.probe_timeout = (unsigned long)n;
			break;
		case 'W':
			if (parse_count("--build-timeout", optarg, 0, 100000000, &n) < 0)
				goto out;
			r.build_timeout = (unsigned long)n;
			break;
		case 'U': r.probe_bundles = true; break;
		case 'F': r.forward = true; break;
		case 'h':
			usage();
			rc = 0;
			goto out;
		default: goto out;
		}
	}
	if (!r.dir || optind >= argc) {
		log_err("usage: fsagent bisect --dir DIR [--git TREE --good REV --bad REV --test TEST --config CONFIG] "
			"-- PROBE [ARG...] (see --help)");
		goto out;
	}
	if ((r.goods || r.tree || r.tests || r.config || r.ends_from) && !r.bad) {
		log_err("--bad REV is needed with --git, --good, --test, --config and --ends-from");
		goto out;
	}
	if (r.forward && r.ends_from) {
		log_err("--forward takes no --ends-from: a qualification's ends are a regression's");
		goto out;
	}
	r.probe = argv + optind;
	rc = bisect_loop(&r);
out:
	strv_free(r.goods);
	strv_free(r.tests);
	return rc;
}
