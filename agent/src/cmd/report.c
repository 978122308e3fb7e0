// SPDX-License-Identifier: MIT
/*
 * fsagent report: a bundle summarised, or as JSON or JUnit.
 */
#include "cmd/cmd.h"
#include "model/bundle.h"
#include "analysis/report.h"
#include "util/log.h"

#include <getopt.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "junit", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *junit = NULL;
	json_auto_t *b = NULL;
	bool as_json = false;
	char err[1024];
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': junit = optarg; break;
		case 'J': as_json = true; break;
		case 'h':
			printf("usage: fsagent report BUNDLE [--junit FILE] [--json]\n"
			       "Summarise a run (BUNDLE: its bundle.json or directory): counts per status per\n"
			       "config, failures with reasons, flaky tests, kernel findings, lockdep coverage;\n"
			       "--junit writes JUnit XML too; --json prints the whole bundle instead, each\n"
			       "iteration's test records folded in from its journal.\n");
			return 0;
		default: return 2;
		}
	}
	if (optind != argc - 1) {
		log_err("usage: fsagent report BUNDLE [--junit FILE] [--json]");
		return 2;
	}
	if (bundle_load(argv[optind], &b, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return 1;
	}
	if (as_json) {
		if (json_dumpf(b, stdout, JSON_COMPACT) < 0 || putchar('\n') == EOF)
			return 1;
	} else
		print_printable(report_text, b);
	if (junit) {
		FILE *f = fopen(junit, "we");

		if (!f) {
			log_err("open '%s' failed: %s", junit, strerror(errno));
			return 1;
		}
		report_junit(b, f);
		fclose(f);
	}
	return 0;
}
