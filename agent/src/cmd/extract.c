// SPDX-License-Identifier: MIT
/*
 * fsagent extract: a run read off a results disk image.
 */
#include "cmd/cmd.h"
#include "analysis/extract.h"
#include "util/fileio.h"
#include "util/log.h"

#include <getopt.h>
#include <limits.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>
#include <stdint.h>

static int parse_cap(const char *opt, const char *arg, uint64_t *ret)
{
	unsigned long long v;

	if (fileio_parse_u64(arg, &v) < 0 || v == 0) {
		log_err("extract: %s '%s' is not a number above 0", opt, arg);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int cmd_extract(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "into", required_argument, NULL, 'i' },
		{ "run-id", required_argument, NULL, 'r' },
		{ "max-file", required_argument, NULL, 'f' },
		{ "max-total", required_argument, NULL, 't' },
		{ "max-entries", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *into = NULL, *run_id = NULL;
	struct extract_limits lim;
	struct extract_result res;
	char err[PATH_MAX * 2 + 256] = "";
	int c, r;

	extract_limits_default(&lim);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': into = optarg; break;
		case 'r': run_id = optarg; break;
		case 'f':
			if (parse_cap("--max-file", optarg, &lim.max_file) < 0)
				return 2;
			break;
		case 't':
			if (parse_cap("--max-total", optarg, &lim.max_total) < 0)
				return 2;
			break;
		case 'e':
			if (parse_cap("--max-entries", optarg, &lim.max_entries) < 0)
				return 2;
			break;
		case 'h':
			printf("usage: fsagent extract IMAGE --into DIR [--run-id ID] [--max-file BYTES]\n"
			       "                      [--max-total BYTES] [--max-entries N]\n"
			       "Read a run off a results disk image (ext2/3/4) without root or mounting it, into\n"
			       "DIR/<run id>/ (which must not exist), trusting nothing on it: only regular files\n"
			       "and directories with plain names are created; symlinks, devices, FIFOs, odd\n"
			       "names, duplicates, sparse giants and what passes a cap are refused and listed\n"
			       "in extraction.json. Without --run-id, the disk's /current-run names the run;\n"
			       "its bundle.json must name the same. Caps: --max-file (default %llu),\n"
			       "--max-total (%llu), --max-entries (%llu). Prints the run's directory.\n",
			       EXTRACT_MAX_FILE, EXTRACT_MAX_TOTAL, EXTRACT_MAX_ENTRIES);
			return 0;
		default: return 2;
		}
	}
	if (!into || optind != argc - 1) {
		log_err("usage: fsagent extract IMAGE --into DIR [--run-id ID]; see 'fsagent extract --help'");
		return 2;
	}
	r = extract_run(argv[optind], run_id, into, &lim, &res, err, sizeof(err));
	if (r < 0) {
		log_err("extract: %s", err[0] ? err : strerror(-r));
		return 1;
	}
	if (res.refused)
		log_warn("extract: %s: %llu entries refused (listed in extraction.json)", res.dest,
			 (unsigned long long)res.refused);
	printf("%s\n", res.dest);
	return 0;
}
