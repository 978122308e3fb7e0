/* SPDX-License-Identifier: MIT */
/*
 * The commands of the fsagent binary (main.c's table), one file each, and
 * what their output shares. Each takes its argv from its own name on and
 * returns the exit status.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/qualify.h"
#include "util/output.h"

/* opt's value s as a number strictly between lo and hi. Returns 0 or -EINVAL (logged, naming opt). */
int parse_real(const char *opt, const char *s, double lo, double hi, double *ret);
/* opt's value s as a count from lo to hi. Returns 0 or -EINVAL (logged, naming opt). */
int parse_count(const char *opt, const char *s, unsigned long long lo, unsigned long long hi, unsigned long long *ret);
/*
 * A qualification's option by its long name (alpha, min-rate, miss, rounds,
 * baseline-runs, max-runs) into o, given[] marking it (QUALIFY_KEPT). Returns
 * 0, -EINVAL (logged, naming the option) or -ENOENT (not one of them).
 */
int parse_qualify_option(const char *name, const char *arg, struct qualify_opts *o, bool given[QUALIFY_KEPT]);
/* Their entries in a getopt_long table, each returning 'Q' (the name from the long index) */
#define PARSE_QUALIFY_OPTIONS                                                                         \
	{ "alpha", required_argument, NULL, 'Q' }, { "min-rate", required_argument, NULL, 'Q' },      \
		{ "miss", required_argument, NULL, 'Q' }, { "rounds", required_argument, NULL, 'Q' }, \
		{ "baseline-runs", required_argument, NULL, 'Q' },                                    \
	{                                                                                             \
		"max-runs", required_argument, NULL, 'Q'                                              \
	}
/* The length of a BUNDLE argument's directory: all of it, or its part before "/bundle.json". */
size_t bundle_dir_len(const char *path);

int cmd_caps(int argc, char **argv);
int cmd_unframe(int argc, char **argv);
int cmd_fixes(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_aggregate(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_upkeep(int argc, char **argv);
int cmd_durations(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_coverage(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_console(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_qualify(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_track(int argc, char **argv);
