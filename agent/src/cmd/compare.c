// SPDX-License-Identifier: MIT
/*
 * fsagent compare: baseline bundles against candidate ones.
 */
#include "cmd/cmd.h"
#include "model/plan.h"
#include "analysis/compare.h"
#include "util/fileio.h"
#include "util/log.h"

#include <getopt.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "baseline", required_argument, NULL, 'b' },
		{ "candidate", required_argument, NULL, 'c' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "json", required_argument, NULL, 'j' },
		{ "html", required_argument, NULL, 'H' },
		{ "rerun-plan", required_argument, NULL, 'p' },
		{ "rerun-runs", required_argument, NULL, 'n' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *json_out = NULL, *html_out = NULL, *plan_out = NULL;
	struct compare *cmp = NULL;
	json_auto_t *res = NULL;
	double alpha = 0.05;
	unsigned long long rerun = 20;
	bool have[2] = { false, false }, strict = false;
	char err[1024] = "";
	int c, r;

	if (compare_new(&cmp) < 0)
		return 3;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
		case 'c': {
			enum compare_side side = c == 'b' ? SIDE_BASELINE : SIDE_CANDIDATE;

			err[0] = '\0';
			r = compare_add(cmp, side, optarg, err, sizeof(err));
			if (r < 0) {
				log_err("%s: %s", c == 'b' ? "--baseline" : "--candidate", err);
				compare_free(cmp);
				return 2;
			}
			have[side] = true;
			break;
		}
		case 'a': {
			char *end;

			alpha = strtod(optarg, &end);
			if (*end || !(alpha > 0 && alpha < 1)) {
				log_err("--alpha: '%s' is not a number between 0 and 1", optarg);
				compare_free(cmp);
				return 2;
			}
			break;
		}
		case 'j': json_out = optarg; break;
		case 'H': html_out = optarg; break;
		case 'p': plan_out = optarg; break;
		case 's': strict = true; break;
		case 'n':
			if (fileio_parse_u64(optarg, &rerun) < 0 || rerun < 1 || rerun > 100000) {
				log_err("--rerun-runs: '%s' is not a number from 1 to 100000", optarg);
				compare_free(cmp);
				return 2;
			}
			break;
		case 'h':
			printf("usage: fsagent compare --baseline DIR... --candidate DIR... [--alpha P]\n"
			       "                       [--json FILE] [--html FILE] [--rerun-plan FILE [--rerun-runs "
			       "N]] [--strict]\n"
			       "Which failures did the candidate cause? DIR: a bundle, or a directory holding\n"
			       "bundles (searched 4 levels down); each option may be given again. Per config\n"
			       "and test: runs, failures and failure rate on both sides, and a class:\n"
			       "regression, fixed (one-sided Fisher exact test, Holm-corrected, below alpha,\n"
			       "default 0.05), failing (every run on both sides), flaky, not-comparable (not\n"
			       "run on one side, or too few runs to reach alpha), pass. A test run on two or\n"
			       "more configs is also judged over them together (each side's runs pooled):\n"
			       "one worse on the candidate there is listed first (across_configs) and counts\n"
			       "as a regression for the exit status. The text goes to\n"
			       "stdout; --json and --html write the result and a self-contained page;\n"
			       "--rerun-plan writes a plan of the candidate's failures and flakes to run on the\n"
			       "baseline N times (default 20; fsagent-qemu --plan FILE). When the sides' bundles\n"
			       "record different userspace (fstests, image, mkfs and other tools' versions)\n"
			       "it warns; --strict refuses to compare them.\n"
			       "Exit status: 0 no regression, 1 a regression, 2 bad usage or input (a bundle\n"
			       "refused, --strict's userspace), 3 an output not written (docs/exit-status.md).\n");
			compare_free(cmp);
			return 0;
		default: compare_free(cmp); return 2;
		}
	}
	if (optind != argc || !have[SIDE_BASELINE] || !have[SIDE_CANDIDATE]) {
		log_err("usage: fsagent compare --baseline DIR... --candidate DIR... (see --help)");
		compare_free(cmp);
		return 2;
	}
	res = compare_result(cmp, alpha);
	compare_free(cmp);
	if (!res)
		return 3;
	if (strict) {
		char us[1024];

		if (compare_userspace_differs(res, us, sizeof(us))) {
			log_printable(us, strlen(us));
			log_err("--strict: the sides ran different userspace (%s); compare bundles of one userspace",
				us);
			return 2;
		}
	}
	print_printable(compare_text, res);
	if (json_out && write_output(json_out, res, dump_json) < 0)
		return 3;
	if (html_out && write_output(html_out, res, compare_html) < 0)
		return 3;
	if (plan_out) {
		r = compare_rerun_plan(res, plan_out, (unsigned)rerun, err, sizeof(err));
		if (r < 0) {
			log_err("%s", err);
			return 3;
		}
		printf("\nrerun plan: %s (%d tests x %llu runs on the baseline)\n", r ? plan_out : "none needed", r,
		       rerun);
	}
	return json_integer_value(json_object_get(json_object_get(res, "counts"), "regression")) ||
			       json_array_size(json_object_get(res, "across_configs"))
		       ? 1
		       : 0;
}
