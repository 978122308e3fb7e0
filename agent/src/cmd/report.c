// SPDX-License-Identifier: MIT
/*
 * fsagent report: a bundle summarised, or as JSON, or as JUnit in check's shape.
 */
#include "cmd/cmd.h"
#include "model/bundle.h"
#include "analysis/junit.h"
#include "analysis/reduce.h"
#include "analysis/report.h"
#include "model/fstests_config.h"
#include "model/result.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/output.h"
#include "util/strv.h"

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

/*
 * The fstests config the run wrote beside the bundle, as sections; NULL when
 * there is none, or (said once) when it is not what fsagent writes.
 */
static json_t *load_sections(const char *bundle)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX], err[512];
	json_t *sections = NULL;
	size_t len;
	int r;

	if (snprintf(path, sizeof(path), "%.*s/%s", (int)bundle_dir_len(bundle), bundle, FSTESTS_CONFIG_FILE) >=
	    (int)sizeof(path))
		return NULL;
	r = fileio_read_regular(path, FSTESTS_CONFIG_MAX, &text, &len);
	if (r == -ENOENT)
		return NULL;
	if (r < 0) {
		log_warn("%s: %s: JUnit goes without the section variables", path, strerror(-r));
		return NULL;
	}
	if (memchr(text, '\0', len) || fstests_config_parse(text, path, &sections, err, sizeof(err)) < 0) {
		log_warn("%s: JUnit goes without the section variables", memchr(text, '\0', len) ? path : err);
		return NULL;
	}
	return sections;
}

/* One results.xml per config, where xfstests-bld keeps them: DIR/FS/results-NAME/results.xml. */
static int write_xunit_dir(json_t *b, json_t *sections, const char *dir)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(b, "configs"), i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		_cleanup_free_ char *text = NULL;
		char sub[PATH_MAX], path[PATH_MAX + 16];
		size_t len = 0;
		FILE *m;
		int r;

		if (!name || !config_name_ok(name))
			continue; /* the loader refuses these; never a path of one */
		if (snprintf(sub, sizeof(sub), "%s/%.*s/results-%s", dir, (int)strcspn(name, "/"), name,
			     strchr(name, '/') + 1) >= (int)sizeof(sub))
			return -ENAMETOOLONG;
		m = open_memstream(&text, &len);
		if (!m)
			return -ENOMEM;
		r = junit_config_suite(b, sections, i, m);
		if (fclose(m) != 0 || r < 0)
			return r < 0 ? r : -ENOMEM;
		snprintf(path, sizeof(path), "%s/results.xml", sub);
		r = fileio_mkdir_p(sub);
		if (r == 0)
			r = fileio_write_atomic(path, text, len);
		if (r < 0) {
			log_err("write '%s' failed: %s", path, strerror(-r));
			return r;
		}
	}
	return 0;
}

static int write_junit(json_t *b, json_t *sections, const char *path)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int r;

	if (!m)
		return -ENOMEM;
	junit_suites(b, sections, m);
	if (fclose(m) != 0)
		return -ENOMEM;
	r = fileio_write_atomic(path, text, len);
	if (r < 0)
		log_err("write '%s' failed: %s", path, strerror(-r));
	return r;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "junit", required_argument, NULL, 'j' },
		{ "xunit-dir", required_argument, NULL, 'x' },
		{ "json", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *junit = NULL, *xunit_dir = NULL, *json_out = NULL;
	json_auto_t *b = NULL, *sections = NULL;
	char err[1024], path[PATH_MAX];
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': junit = optarg; break;
		case 'x': xunit_dir = optarg; break;
		case 'J': json_out = optarg; break;
		case 'h':
			printf("usage: fsagent report BUNDLE [--junit FILE] [--xunit-dir DIR] [--json FILE]\n"
			       "Summarise a run (BUNDLE: its bundle.json or directory; a directory of runs,\n"
			       "results/, reports each): its time, counts per status per config, each failing\n"
			       "test once with why it failed (check's reason, the output's first differing\n"
			       "line, the kernel's first report) and in how many runs and which iterations,\n"
			       "flaky tests, kernel findings, lockdep coverage.\n"
			       "--junit FILE writes JUnit XML in fstests' own shape (check -R xunit), a\n"
			       "<testsuite> per config and iteration under <testsuites>; --xunit-dir DIR writes\n"
			       "one results.xml per config as xfstests-bld keeps them (DIR/FS/results-NAME/),\n"
			       "for its gen_results_summary and get_stats.py; --json FILE writes the whole\n"
			       "bundle, each iteration's test records folded in from its journal (as compare's\n"
			       "--json writes its result); --json - prints it alone, one line, on stdout.\n"
			       "Exit status: 0 reported (whatever the tests did), 2 bad usage or a bundle\n"
			       "refused, 3 an output not written (docs/exit-status.md).\n");
			return 0;
		default: return 2;
		}
	}
	if (optind != argc - 1) {
		log_err("usage: fsagent report BUNDLE [--junit FILE] [--xunit-dir DIR] [--json FILE]");
		return 2;
	}
	/* a directory of runs (results/): each bundle in turn as text; JSON and JUnit take one */
	{
		char **list = NULL;
		size_t n, len = strlen(argv[optind]);
		int r;

		while (len > 1 && argv[optind][len - 1] == '/')
			argv[optind][--len] = '\0';
		r = bundle_find_all(argv[optind], &list, err, sizeof(err));

		if (r < 0) {
			log_err("%s", err);
			return 2;
		}
		n = strv_length(list);
		if (n > 1 && (json_out || junit || xunit_dir)) {
			log_err("%s holds %zu bundles (%s, ...): --json, --junit and --xunit-dir take one; name it",
				argv[optind], n, list[0]);
			strv_free(list);
			return 2;
		}
		if (n > 1) {
			int rc = 0;

			for (char **p = list; *p; p++) {
				json_auto_t *one = NULL;

				if (p != list)
					putchar('\n');
				printf("bundle: %s\n", *p);
				fflush(stdout);
				if (bundle_load(*p, &one, err, sizeof(err)) < 0) {
					log_err("%s", err);
					rc = 2;
					continue;
				}
				print_printable(report_text, one);
				print_reductions(*p);
			}
			strv_free(list);
			return rc;
		}
		snprintf(path, sizeof(path), "%s", list[0]);
		strv_free(list);
	}
	if (bundle_load(path, &b, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return 2;
	}
	/* --json -: the bundle alone on stdout, one line; --json FILE: written beside the text, as compare's */
	if (json_out && streq(json_out, "-")) {
		if (json_dumpf(b, stdout, JSON_COMPACT) < 0 || putchar('\n') == EOF)
			return 3;
	} else {
		print_printable(report_text, b);
		print_reductions(path);
		if (json_out && write_output(json_out, b, dump_json) < 0)
			return 3;
	}
	if (junit || xunit_dir)
		sections = load_sections(path);
	if (junit && write_junit(b, sections, junit) < 0)
		return 3;
	if (xunit_dir && write_xunit_dir(b, sections, xunit_dir) < 0)
		return 3;
	return 0;
}
