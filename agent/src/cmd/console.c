// SPDX-License-Identifier: MIT
/*
 * fsagent console: a run followed through the VM's console log (once called
 * fsagent watch, a name kept as an alias: the branch watch is fsagent track).
 */
#include "cmd/cmd.h"
#include "analysis/watch.h"
#include "util/fileio.h"
#include "util/log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_uint(const char *opt, const char *arg, unsigned long long max, unsigned long long *ret)
{
	if (fileio_parse_u64(arg, ret) < 0 || *ret == 0 || *ret > max) {
		log_err("watch: %s '%s' is not a number from 1 to %llu", opt, arg, max);
		return -1;
	}
	return 0;
}

int cmd_console(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "follow", required_argument, NULL, 'f' },
		{ "max-boots", required_argument, NULL, 'b' },
		{ "state", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	unsigned long long pid = 0, max_boots = 0;
	const char *state = NULL;
	struct watch w;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (parse_uint("--follow", optarg, 4194304, &pid) < 0)
				return 2;
			break;
		case 'b':
			if (parse_uint("--max-boots", optarg, 100000, &max_boots) < 0)
				return 2;
			break;
		case 's': state = optarg; break;
		case 'h':
			printf("usage: fsagent console [--follow PID] [--max-boots N] [--state FILE] CONSOLE\n"
			       "Follow a run through its console log: one line per finished test with the\n"
			       "counts, elapsed time and ETA; the plan, crashes, the guest's panics and the final\n"
			       "status. --follow: read as the log grows until process PID (QEMU) has gone;\n"
			       "--max-boots: SIGTERM to PID past N boots without a final status; --state: what\n"
			       "was seen (run id, final status, boots) as JSON. Exit status: 0 final status OK,\n"
			       "1 TESTS FAILED, 3 FATAL or no final status, 4 NOTHING RAN.\n");
			return 0;
		default: return 2;
		}
	}
	if (optind != argc - 1) {
		log_err("console: one console log; see 'fsagent console --help'");
		return 2;
	}
	watch_init(&w, stdout);
	r = watch_follow(&w, argv[optind], (pid_t)pid, (unsigned)max_boots);
	if (r < 0) {
		log_err("watch: '%s': %s", argv[optind], strerror(-r));
		return 2;
	}
	if (state) {
		json_auto_t *doc = watch_state(&w);

		if (write_output(state, doc, dump_json) < 0)
			return 2;
	}
	return watch_exit_status(&w);
}
