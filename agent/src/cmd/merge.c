// SPDX-License-Identifier: MIT
/*
 * fsagent merge: a sharded run's bundles joined.
 */
#include "cmd/cmd.h"
#include "analysis/merge.h"
#include "run/run.h"
#include "util/log.h"

#include <getopt.h>
#include <stdio.h>

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "into", required_argument, NULL, 'i' },
		{ "run-id", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *into = NULL, *run_id = NULL;
	char err[1024] = "", idbuf[64];
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': into = optarg; break;
		case 'r': run_id = optarg; break;
		case 'h':
			printf("usage: fsagent merge --into DIR [--run-id ID] BUNDLE...\n"
			       "Join the bundles of a sharded run (plan key 'shard', fsagent-qemu --shards)\n"
			       "into one bundle in DIR (new or empty): every shard once, each config's\n"
			       "iterations with the shards' orders and records joined, counts taken again,\n"
			       "artifacts copied. Prints the bundle's bundle.json path.\n");
			return 0;
		default: return 2;
		}
	}
	if (!into || optind >= argc) {
		log_err("usage: fsagent merge --into DIR [--run-id ID] BUNDLE...");
		return 2;
	}
	if (!run_id) {
		run_new_id(idbuf, sizeof(idbuf));
		run_id = idbuf;
	}
	argv[argc] = NULL;
	if (merge_bundles(argv + optind, into, run_id, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return 1;
	}
	printf("%s/bundle.json\n", into);
	return 0;
}
