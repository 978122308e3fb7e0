// SPDX-License-Identifier: MIT
/*
 * fsagent coverage: lines per test and the cover.
 */
#include "cmd/cmd.h"
#include "model/plan.h"
#include "analysis/coverage.h"
#include "analysis/coverage_diff.h"
#include "analysis/coverage_report.h"
#include "engine/coverage_change.h"
#include "model/bundle.h"
#include "model/patch.h"
#include "util/fileio.h"
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

static void diff_plan_out(json_t *res, FILE *f)
{
	coverage_diff_plan(res, f);
}

static void diff_list_out(json_t *res, FILE *f)
{
	coverage_diff_list(res, f);
}

static int diff_html_out(const void *cd, FILE *f)
{
	return coverage_diff_html(cd, f);
}

static int diff_json_out(const void *cd, FILE *f)
{
	return coverage_diff_json(cd, f);
}

/* Each .gcda that could not be read, said once; the count on the summary and the list in the JSON. */
static void say_lost(struct coverage *cv)
{
	json_t *e;
	size_t i;

	json_array_foreach(coverage_lost(cv), i, e)
		log_warn("%s: test %s: coverage lost: %s: %s", json_string_value(json_object_get(e, "bundle")),
			 json_string_value(json_object_get(e, "test")), json_string_value(json_object_get(e, "file")),
			 json_string_value(json_object_get(e, "why")));
}

static void add_lost(json_t *res, struct coverage *cv)
{
	size_t n = json_array_size(coverage_lost(cv));

	json_object_set(res, "coverage_lost", coverage_lost(cv));
	if (n)
		printf("coverage lost: %zu .gcda file%s that gcov could not read, left out (named above and in "
		       "coverage_lost)\n",
		       n, n == 1 ? "" : "s");
}

int cmd_coverage(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "build", required_argument, NULL, 'b' },
		{ "gcov", required_argument, NULL, 'g' },
		{ "target", required_argument, NULL, 't' },
		{ "by", required_argument, NULL, 'y' },
		{ "history", required_argument, NULL, 'H' },
		{ "out", required_argument, NULL, 'o' },
		{ "plan", required_argument, NULL, 'p' },
		{ "json", required_argument, NULL, 'j' },
		{ "diff", required_argument, NULL, 'd' },
		{ "git", required_argument, NULL, 'G' },
		{ "side", required_argument, NULL, 's' },
		{ "report", no_argument, NULL, 'r' },
		{ "html", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *build = NULL, *gcov_tool = "gcov", *out = NULL, *plan_out = NULL, *json_out = NULL;
	const char *diff = NULL, *git = NULL, *side = NULL, *html_out = NULL;
	bool report = false;
	struct patch *change = NULL, *rebase = NULL;
	char **history = strv_split("", ","), err[1024] = "";
	double target = 90;
	bool by_time = false;
	struct coverage *cv = NULL;
	struct coverage_diff *cd = NULL;
	json_auto_t *res = NULL;
	int c, r = 3; /* 2 bad input, 3 what could not be done (gcov, a write, memory) */

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
		case 'd': diff = optarg; break;
		case 'G': git = optarg; break;
		case 'r': report = true; break;
		case 'w': html_out = optarg; break;
		case 's':
			if (!streq(optarg, "base") && !streq(optarg, "result")) {
				log_err("--side: '%s' is not base or result", optarg);
				strv_free(history);
				return 2;
			}
			side = optarg;
			break;
		case 'h':
			printf("usage: fsagent coverage BUNDLES... --build DIR [--gcov TOOL] [--target PCT]\n"
			       "                        [--by size|time] [--history BUNDLES]... [--out FILE]\n"
			       "                        [--plan FILE] [--json FILE]\n"
			       "       fsagent coverage BUNDLES... --build DIR --report [--json FILE]\n"
			       "       fsagent coverage BUNDLES... --build DIR --diff FILE|A..B [--git TREE]\n"
			       "                        [--side base|result] [--by size|time] [--out FILE]\n"
			       "                        [--plan FILE] [--json FILE] [--html FILE]\n"
			       "From the gcov data each test saved (plan key coverage on a gcov kernel), the\n"
			       "lines each test covers (TOOL, default gcov, with the .gcno files of DIR, the\n"
			       "kernel's build directory) and the smallest (--by size) or fastest (--by time)\n"
			       "group of tests covering PCT (default 90) percent of all the lines the run\n"
			       "covered, chosen greedily. Tests that failed in the --history bundles are kept\n"
			       "and flagged. --out writes the group as a test list, --plan as a plan file\n"
			       "(fsagent-qemu --plan), --json the whole result.\n"
			       "\n"
			       "--report: the lines of code each profiled file and directory has and how many\n"
			       "the tests reached (files no test touched included); --json writes it.\n"
			       "\n"
			       "--diff FILE (a unified diff) or --diff A..B with --git TREE (git diff A B):\n"
			       "the tests whose coverage reaches the change's lines of code, ranked by lines\n"
			       "reached (--by time: per second), the group reaching every reached line, and\n"
			       "the changed lines no test reaches, by file and function (where new tests are\n"
			       "needed); changed files not profiled are named. The coverage kernel is taken as\n"
			       "the diff's base (its removed and rewritten lines), or its result with --side\n"
			       "result; with --git the bundles' kernel commit decides (A, B, or another commit\n"
			       "whose lines are carried to A through git diff), and a diff file's blob ids are\n"
			       "checked against it. --out writes the tests as a list (the group first; for\n"
			       "fsagent-qualify's TEST...), --plan as a plan, --json the result,\n"
			       "--html a page with each hunk's lines marked reached or not, and by which tests.\n"
			       "Exit status: 0 done, 2 bad usage or input (a bundle, the history, the diff),\n"
			       "3 gcov or a write failed, or a signal stopped it (docs/exit-status.md).\n");
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
	coverage_stop_on_signals();
	for (int i = optind; i < argc; i++)
		if ((r = coverage_add_bundles(cv, argv[i], build, gcov_tool, err, sizeof(err))) < 0) {
			say_lost(cv);
			log_err("%s", err);
			r = r == -EBADMSG || r == -ENOENT ? 2 : 3;
			goto out;
		}
	for (char **h = history; *h; h++)
		if ((r = coverage_add_history(cv, *h, err, sizeof(err))) < 0) {
			log_err("%s", err);
			r = 2;
			goto out;
		}
	r = 3;
	if ((report || diff) && coverage_add_build(cv, build, gcov_tool, err, sizeof(err)) < 0) {
		log_err("%s", err);
		goto out;
	}
	say_lost(cv);
	if (report) {
		res = coverage_report(cv);
		if (!res)
			goto out;
		coverage_report_text(res, stdout);
		add_lost(res, cv);
		if (json_out && write_output(json_out, res, dump_json) < 0)
			goto out;
		r = 0;
		goto out;
	}
	if (diff) {
		struct coverage_diff_opts o = { .name = diff, .by_time = by_time };
		char k[41];

		if (coverage_kernel_commit(argv + optind, k, err, sizeof(err)) < 0 ||
		    coverage_change_load(diff, git, side, k, &change, &rebase, &o, err, sizeof(err)) < 0) {
			log_err("%s", err);
			r = 2;
			goto out;
		}
		o.rebase = rebase;
		if (coverage_diff(cv, change, &o, &cd) < 0)
			goto out;
		res = json_incref(cd->summary);
		json_object_set_new(res, "kernel_commit", json_string(k));
		coverage_diff_text(res, stdout);
		add_lost(res, cv);
		if ((plan_out && write_output(plan_out, res, diff_plan_out) < 0) ||
		    (out && write_output(out, res, diff_list_out) < 0) ||
		    (html_out && write_output_by(html_out, diff_html_out, cd) < 0) ||
		    (json_out && write_output_by(json_out, diff_json_out, cd) < 0))
			goto out;
		r = 0;
		goto out;
	}
	res = coverage_select(cv, target, by_time);
	if (!res)
		goto out;
	coverage_text(res, stdout);
	add_lost(res, cv);
	if ((out && write_output(out, res, coverage_list_out) < 0) ||
	    (plan_out && write_output(plan_out, res, coverage_plan_out) < 0) ||
	    (json_out && write_output(json_out, res, dump_json) < 0))
		goto out;
	r = 0;
out:
	coverage_diff_free(cd);
	patch_free(change);
	patch_free(rebase);
	coverage_free(cv);
	strv_free(history);
	return r;
}
