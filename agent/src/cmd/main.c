// SPDX-License-Identifier: MIT
/*
 * The fsagent multicall binary: as PID 1 (or `fsagent init`) it boots the
 * test VM; otherwise it dispatches host and diagnostic subcommands from a
 * table (kmod's tools/kmod.c shape), one file of cmd/ per command.
 */
#include "cmd/cmd.h"
#include "boot/pid1.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/version.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static int cmd_help(int argc, char **argv);

static int cmd_init(int argc, char **argv)
{
	if (getpid() != 1 && argc >= 2 && (streq(argv[1], "--help") || streq(argv[1], "-h"))) {
		printf("usage: fsagent init (as PID 1: the kernel's init= or rdinit=)\n"
		       "Boots the test VM: mounts, modules and devices, finds the results disk, then runs\n"
		       "its plan (docs/boot.md). As PID 1 it boots whatever its arguments,\n"
		       "and never exits.\n");
		return 0;
	}
	if (getpid() != 1) {
		log_err("'init' must run as PID 1 (the kernel's init= or rdinit=)");
		return 1;
	}
	pid1_main();
}

static int cmd_version(int argc _unused_, char **argv _unused_)
{
	printf("fsagent %s\n", fsagent_version);
	return 0;
}

/* "fsagent watch" followed a console, while scripts/fsagent-watch watches a branch: one name, two things */
static int cmd_watch_old(int argc, char **argv)
{
	log_warn("'fsagent watch' is now 'fsagent console' (a run followed through its console log); a kernel "
		 "branch is watched by scripts/fsagent-watch (fsagent track)");
	return cmd_console(argc, argv);
}

static const struct command commands[] = {
	{ "init", cmd_init, "boot the test VM (run as PID 1)" },
	{ "caps", cmd_caps, "print the machine inventory as JSON" },
	{ "run", cmd_run, "run a plan through fstests' check here (subreaper, no VM)" },
	{ "report", cmd_report, "summarise a bundle; --junit/--xunit-dir export JUnit in check's shape" },
	{ "plan", cmd_plan, "check a run plan file and print it resolved" },
	{ "aggregate", cmd_aggregate, "add bundles to per-test counts and durations (soaks)" },
	{ "coverage", cmd_coverage, "per-test kernel coverage: the smallest or fastest group reaching X%" },
	{ "durations", cmd_durations, "mean test durations from bundles, for balancing shards" },
	{ "merge", cmd_merge, "join the bundles of a sharded run into one" },
	{ "export", cmd_export, "bundles as one KCIDB submission (--kcidb), for KernelCI" },
	{ "upkeep", cmd_upkeep, "suggest an expunge file from bundles; list rules that can go" },
	{ "compare", cmd_compare, "baseline bundles against candidate ones: regressions, flakes, rerun plan" },
	{ "extract", cmd_extract, "read a run off a results disk image, trusting nothing on it" },
	{ "console", cmd_console, "follow a run through its console log: progress, ETA, final status" },
	{ "qualify", cmd_qualify, "a candidate kernel against its baseline, rerunning the undecided until decided" },
	{ "reduce", cmd_reduce, "an order-dependent failure reduced to the tests before it that cause it" },
	{ "bisect", cmd_bisect, "the commit that raised a test's failure rate, weighing every run" },
	{ "fixes", cmd_fixes, "the upstream commits that fix a stable tree's culprit, and which it lacks" },
	{ "track", cmd_track, "watch a kernel branch tag by tag: built, qualified, bisected (scripts/fsagent-watch)" },
	/* old names: still taken, not listed, and said */
	{ "watch", cmd_watch_old, NULL },
	{ "unframe", cmd_unframe, "cut a framed document out of a console log" },
	{ "version", cmd_version, "print the version" },
	{ "help", cmd_help, "show this help" },
};

static int cmd_help(int argc _unused_, char **argv _unused_)
{
	printf("usage: fsagent COMMAND [ARGS]\n\nCommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (commands[i].help)
			printf("  %-10s %s\n", commands[i].name, commands[i].help);
	printf("\nAs PID 1, fsagent runs 'init' whatever its arguments.\n");
	return 0;
}

int main(int argc, char **argv)
{
	/* the kernel may pass its own words to init; PID 1 always boots */
	if (getpid() == 1)
		pid1_main();
	if (argc < 2) {
		cmd_help(0, NULL);
		return 2;
	}
	if (streq(argv[1], "--help") || streq(argv[1], "-h"))
		return cmd_help(0, NULL);
	if (streq(argv[1], "--version"))
		return cmd_version(0, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (streq(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	log_err("unknown command '%s'; see 'fsagent help'", argv[1]);
	return 2;
}
