// SPDX-License-Identifier: MIT
/*
 * fsagent export: bundles in a format other systems collect (KCIDB).
 */
#include "cmd/cmd.h"
#include "analysis/kcidb.h"
#include "model/bundle.h"
#include "util/log.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kcidb", no_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "origin", required_argument, NULL, 'O' },
		{ "log-url", required_argument, NULL, 'l' },
		{ "tree-name", required_argument, NULL, 't' },
		{ "git-url", required_argument, NULL, 'u' },
		{ "git-commit", required_argument, NULL, 'c' },
		{ "git-branch", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct kcidb_opts o = { .origin = "fsagent" };
	const char *output = NULL;
	json_auto_t *sub = NULL;
	bool kcidb = false;
	char err[1024] = "";
	int c;

	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kcidb = true; break;
		case 'o': output = optarg; break;
		case 'O': o.origin = optarg; break;
		case 'l': o.log_base = optarg; break;
		case 't': o.tree_name = optarg; break;
		case 'u': o.git_url = optarg; break;
		case 'c': o.git_commit = optarg; break;
		case 'b': o.git_branch = optarg; break;
		case 'h':
			printf("usage: fsagent export --kcidb [-o FILE] [--origin NAME] [--log-url BASE]\n"
			       "                      [--tree-name NAME] [--git-url URL] [--git-commit HASH]\n"
			       "                      [--git-branch NAME] BUNDLE...\n"
			       "One KCIDB submission (I/O schema v5.3) of the bundles, to stdout or FILE:\n"
			       "each kernel a checkout and a build, each test record a test named\n"
			       "fstests.DIR.NUM with its config as the environment. --origin names the CI\n"
			       "system (default fsagent); --log-url BASE links each test's artifacts as\n"
			       "BASE/RUN_ID/artifacts/...; the git options describe the checkout of the\n"
			       "one kernel the bundles ran.\n");
			return 0;
		default: return 2;
		}
	}
	if (!kcidb || optind >= argc) {
		log_err("usage: fsagent export --kcidb [-o FILE] [options] BUNDLE...");
		return 2;
	}
	if (kcidb_opts_check(&o, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return 2;
	}
	sub = kcidb_new();
	if (!sub)
		return 1;
	for (int i = optind; i < argc; i++) {
		json_auto_t *b = NULL;

		if (bundle_load(argv[i], &b, err, sizeof(err)) < 0 || kcidb_add(sub, b, &o, err, sizeof(err)) < 0) {
			log_err("%s", *err ? err : "out of memory");
			return 1;
		}
	}
	if (output)
		return write_output(output, sub, dump_json) < 0;
	dump_json(sub, stdout);
	return fflush(stdout) != 0;
}
