// SPDX-License-Identifier: MIT
/*
 * fsagent report: a bundle summarised, or as JSON or JUnit.
 */
#include "cmd/cmd.h"
#include "model/bundle.h"
#include "analysis/reduce.h"
#include "analysis/report.h"
#include "util/log.h"

#include <getopt.h>
#include <limits.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>

static void reductions_text(json_t *doc, FILE *out)
{
	json_t *e;
	size_t i;

	fputs("\norder-dependent failures (fsagent reduce):\n", out);
	json_array_foreach(json_object_get(doc, "reductions"), i, e) {
		fputs("  ", out);
		reduce_print(e, out);
	}
}

/* What fsagent reduce found for this bundle, when it was run on it. */
static void print_reductions(const char *bundle)
{
	char path[PATH_MAX], err[512];
	json_t *doc = NULL;
	int r;

	if (snprintf(path, sizeof(path), "%.*s/%s", (int)bundle_dir_len(bundle), bundle, REDUCE_FILE) >=
	    (int)sizeof(path))
		return;
	r = reduce_file_load(path, &doc, err, sizeof(err));
	if (r == -ENOENT)
		return;
	if (r < 0) {
		log_warn("%s: left out", err);
		return;
	}
	print_printable(reductions_text, doc);
	json_decref(doc);
}

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
	} else {
		print_printable(report_text, b);
		print_reductions(argv[optind]);
	}
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
