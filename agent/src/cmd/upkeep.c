// SPDX-License-Identifier: MIT
/*
 * fsagent upkeep: an expunge file suggested from bundles.
 */
#include "cmd/cmd.h"
#include "model/expunge.h"
#include "analysis/upkeep.h"
#include "util/strv.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

#include <getopt.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>

int cmd_upkeep(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "current", required_argument, NULL, 'c' },  { "min-rate", required_argument, NULL, 'r' },
		{ "min-runs", required_argument, NULL, 'n' }, { "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },	      {},
	};
	struct upkeep_opts o = { 0.9, 3 };
	struct expunge_list cur = { 0 };
	struct upkeep *u = NULL;
	char **current = strv_split("", ","), err[1024] = "";
	const char *out = NULL;
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f;
	int c, r = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': strv_push(&current, optarg); break;
		case 'r': {
			char *end;

			o.min_rate = strtod(optarg, &end);
			if (*end || !(o.min_rate > 0 && o.min_rate <= 1)) {
				log_err("--min-rate: '%s' is not a number in (0, 1]", optarg);
				goto usage;
			}
			break;
		}
		case 'n': {
			unsigned long long v;

			if (fileio_parse_u64(optarg, &v) < 0 || v < 1 || v > 1000000) {
				log_err("--min-runs: '%s' is not a number from 1", optarg);
				goto usage;
			}
			o.min_runs = (unsigned)v;
			break;
		}
		case 'o': out = optarg; break;
		case 'h':
			printf("usage: fsagent upkeep BUNDLES... [--current EXPUNGE-FILE]... [--min-rate R]\n"
			       "                      [--min-runs N] [--out FILE]\n"
			       "Suggest an expunge file from bundles (BUNDLES: bundles or directories holding them):\n"
			       "a rule for each test that failed at least R (0.9) of at least N (3) runs on a\n"
			       "config and kernel, with kernel>= / kernel<= where it passed on older / newer\n"
			       "kernels, config= where it passed on other configs, and the failures, runs and\n"
			       "releases seen in the comment. With --current, list the current rules whose tests\n"
			       "passed every run (at least N) in the bundles: they can go. To stdout, or --out.\n");
			strv_free(current);
			return 0;
		default: goto usage;
		}
	}
	if (optind >= argc) {
		log_err("usage: fsagent upkeep BUNDLES... (see --help)");
		goto usage;
	}
	if (!current || upkeep_new(&u) < 0)
		goto done;
	for (int i = optind; i < argc; i++)
		if (upkeep_add_bundles(u, argv[i], err, sizeof(err)) < 0) {
			log_err("%s", err);
			goto done;
		}
	if (current[0] && expunge_load_files(&cur, NULL, current, err, sizeof(err)) < 0) {
		log_err("%s", err);
		goto done;
	}
	f = open_memstream(&text, &len);
	if (!f)
		goto done;
	if (upkeep_write(u, &o, current[0] ? &cur : NULL, f) < 0) {
		fclose(f);
		goto done;
	}
	if (fclose(f) != 0)
		goto done;
	if (out) {
		int w = fileio_write_atomic(out, text, len);

		if (w < 0) {
			log_err("write '%s' failed: %s", out, strerror(-w));
			goto done;
		}
	} else {
		log_printable(text, len);
		if (fwrite(text, 1, len, stdout) != len)
			goto done;
	}
	r = 0;
done:
	expunge_list_release(&cur);
	upkeep_free(u);
	strv_free(current);
	return r;
usage:
	strv_free(current);
	return 2;
}
