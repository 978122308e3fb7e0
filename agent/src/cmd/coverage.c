// SPDX-License-Identifier: MIT
/*
 * fsagent coverage: lines per test and the cover.
 */
#include "cmd/cmd.h"
#include "model/plan.h"
#include "analysis/coverage.h"
#include "util/strv.h"
#include "util/log.h"
#include "util/macro.h"

#include <string.h>
#include <getopt.h>
#include <stdio.h>
#include <errno.h>

static void coverage_list_out(json_t *res, FILE *f)
{
	coverage_write_list(res, f);
}

static void coverage_plan_out(json_t *res, FILE *f)
{
	coverage_write_plan(res, f);
}

int cmd_coverage(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "build", required_argument, NULL, 'b' },   { "gcov", required_argument, NULL, 'g' },
		{ "target", required_argument, NULL, 't' },  { "by", required_argument, NULL, 'y' },
		{ "history", required_argument, NULL, 'H' }, { "out", required_argument, NULL, 'o' },
		{ "plan", required_argument, NULL, 'p' },    { "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },	     {},
	};
	const char *build = NULL, *gcov_tool = "gcov", *out = NULL, *plan_out = NULL, *json_out = NULL;
	char **history = strv_split("", ","), err[1024] = "";
	double target = 90;
	bool by_time = false;
	struct coverage *cv = NULL;
	json_auto_t *res = NULL;
	int c, r = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': build = optarg; break;
		case 'g': gcov_tool = optarg; break;
		case 't': {
			char *end;

			target = strtod(optarg, &end);
			if (*end || !(target > 0 && target <= 100)) {
				log_err("--target: '%s' is not a percentage in (0, 100]", optarg);
				strv_free(history);
				return 2;
			}
			break;
		}
		case 'y':
			if (!streq(optarg, "size") && !streq(optarg, "time")) {
				log_err("--by: '%s' is not size or time", optarg);
				strv_free(history);
				return 2;
			}
			by_time = streq(optarg, "time");
			break;
		case 'H': strv_push(&history, optarg); break;
		case 'o': out = optarg; break;
		case 'p': plan_out = optarg; break;
		case 'j': json_out = optarg; break;
		case 'h':
			printf("usage: fsagent coverage BUNDLES... --build DIR [--gcov TOOL] [--target PCT]\n"
			       "                        [--by size|time] [--history BUNDLES]... [--out FILE]\n"
			       "                        [--plan FILE] [--json FILE]\n"
			       "From the gcov data each test saved (plan key coverage on a gcov kernel), the\n"
			       "lines each test covers (TOOL, default gcov, with the .gcno files of DIR, the\n"
			       "kernel's build directory) and the smallest (--by size) or fastest (--by time)\n"
			       "group of tests covering PCT (default 90) percent of all the lines the run\n"
			       "covered, chosen greedily. Tests that failed in the --history bundles are kept\n"
			       "and flagged. --out writes the group as a test list, --plan as a plan file\n"
			       "(fsagent-qemu --plan), --json the whole result.\n");
			strv_free(history);
			return 0;
		default: strv_free(history); return 2;
		}
	}
	if (!build || optind >= argc) {
		log_err("usage: fsagent coverage BUNDLES... --build DIR (see --help)");
		strv_free(history);
		return 2;
	}
	if (!history || coverage_new(&cv) < 0)
		goto out;
	for (int i = optind; i < argc; i++)
		if (coverage_add_bundles(cv, argv[i], build, gcov_tool, err, sizeof(err)) < 0) {
			log_err("%s", err);
			goto out;
		}
	for (char **h = history; *h; h++)
		if (coverage_add_history(cv, *h, err, sizeof(err)) < 0) {
			log_err("%s", err);
			goto out;
		}
	res = coverage_select(cv, target, by_time);
	if (!res)
		goto out;
	coverage_text(res, stdout);
	if ((out && write_output(out, res, coverage_list_out) < 0) ||
	    (plan_out && write_output(plan_out, res, coverage_plan_out) < 0) ||
	    (json_out && write_output(json_out, res, dump_json) < 0))
		goto out;
	r = 0;
out:
	coverage_free(cv);
	strv_free(history);
	return r;
}
