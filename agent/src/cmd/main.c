// SPDX-License-Identifier: MIT
/*
 * The fsagent multicall binary: as PID 1 (or `fsagent init`) it boots the
 * test VM; otherwise it dispatches host and diagnostic subcommands from a
 * table (kmod's tools/kmod.c shape).
 */
#include "model/bundle.h"
#include "boot/config.h"
#include "model/expunge.h"
#include "model/order.h"
#include "model/plan.h"
#include "analysis/report.h"
#include "analysis/compare.h"
#include "analysis/upkeep.h"
#include "model/shard.h"
#include "analysis/merge.h"
#include "analysis/coverage.h"
#include "analysis/extract.h"
#include "run/run.h"
#include "run/runner.h"
#include "util/strv.h"
#include "model/frame.h"
#include "machine/inventory.h"
#include "boot/pid1.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/sysroot.h"
#include "util/version.h"

#include <getopt.h>
#include <limits.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/utsname.h>

/* fn's text, made printable (control characters as '?'), to stdout: a bundle's text is a guest's. */
static void print_printable(void (*fn)(json_t *, FILE *), json_t *doc)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	fn(doc, m);
	fclose(m);
	log_printable(text, len);
	fwrite(text, 1, len, stdout);
}

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static int cmd_help(int argc, char **argv);

static int cmd_init(int argc _unused_, char **argv _unused_)
{
	if (getpid() != 1) {
		log_err("'init' must run as PID 1 (the kernel's init= or rdinit=)");
		return 1;
	}
	pid1_main();
}

static int cmd_caps(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "cmdline", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *cmdline_arg = NULL;
	_cleanup_free_ char *cmdline = NULL, *release = NULL, *text = NULL;
	struct boot_config cfg;
	struct modules *mods = NULL;
	struct inventory inv;
	char err[256];
	int c, r;

	while ((c = getopt_long(argc, argv, "s:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (sysroot_set(optarg) < 0) {
				log_err("sysroot '%s' is too long", optarg);
				return 2;
			}
			break;
		case 'c':
			cmdline_arg = optarg;
			break;
		case 'h':
			printf("usage: fsagent caps [--sysroot DIR] [--cmdline WORDS]\n"
			       "Print the machine inventory (caps.json) that fsagent writes at boot.\n"
			       "  --sysroot DIR   read /sys, /proc, /dev, /boot and /lib/modules under DIR\n"
			       "  --cmdline WORDS use these fsagent.* words instead of /proc/cmdline\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		log_err("caps: unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (cmdline_arg)
		cmdline = strdup(cmdline_arg);
	else
		sysroot_read_line(&cmdline, "/proc/cmdline");
	r = config_parse_cmdline(cmdline, &cfg, err, sizeof(err));
	if (r < 0) {
		log_err("%s: %s", cmdline_arg ? "--cmdline" : "/proc/cmdline", err);
		return 1;
	}
	if (sysroot_read_line(&release, "/proc/sys/kernel/osrelease") == 0 &&
	    modules_new(sysroot_get(), release, &mods) < 0)
		mods = NULL;
	{
		struct roles_request req = boot_config_roles(&cfg, NULL);

		r = inventory_build(mods, &req, &inv);
	}
	if (r < 0) {
		log_err("inventory of '%s' failed: %s", sysroot_is_real() ? "/" : sysroot_get(),
			strerror(-r));
		modules_free(mods);
		boot_config_release(&cfg);
		return 1;
	}
	text = json_dumps(inv.doc, JSON_INDENT(2));
	if (text)
		puts(text);
	inventory_release(&inv);
	modules_free(mods);
	boot_config_release(&cfg);
	return text ? 0 : 1;
}

static int cmd_unframe(int argc, char **argv)
{
	_cleanup_free_ char *log = NULL, *doc = NULL;
	size_t len;
	int r;

	if (argc < 2 || argc > 3) {
		log_err("usage: fsagent unframe NAME [CONSOLE-LOG]");
		return 2;
	}
	r = fileio_read_full(argc == 3 ? argv[2] : "/dev/stdin", &log, NULL);
	if (r < 0) {
		log_err("read '%s' failed: %s", argc == 3 ? argv[2] : "stdin", strerror(-r));
		return 1;
	}
	r = frame_extract(log, argv[1], &doc, &len);
	if (r == -ENOENT) {
		log_err("no '%s' frame in the console log", argv[1]);
		return 1;
	}
	if (r < 0) {
		log_err("frame '%s' is damaged: %s", argv[1], strerror(-r));
		return 1;
	}
	/* the document is the guest's: on a terminal, no control characters */
	if (isatty(STDOUT_FILENO))
		log_printable(doc, len);
	fwrite(doc, 1, len, stdout);
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fstests", required_argument, NULL, 'f' }, { "results", required_argument, NULL, 'r' },
		{ "config", required_argument, NULL, 'c' },  { "host-options", required_argument, NULL, 'o' },
		{ "section", required_argument, NULL, 's' }, { "plan", required_argument, NULL, 'p' },
		{ "set", required_argument, NULL, 'S' },     { "kmsg", required_argument, NULL, 'k' },
		{ "run-id", required_argument, NULL, 'i' },  { "gcov", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *fstests = NULL, *results = NULL, *config = NULL, *hostopt = NULL, *section = NULL,
		   *planfile = NULL, *kmsg = NULL, *run_id = NULL, *gcov_root = NULL;
	char **sets = NULL, idbuf[64], err[512] = "", rbase[PATH_MAX];
	_cleanup_free_ char *planbuf = NULL, *plandir = NULL, *abs_hostopt = NULL, *abs_fstests = NULL;
	struct expunge_list expunges = { 0 };
	json_t *durations = NULL;
	struct inventory inv = { 0 };
	struct bundle b = { 0 };
	struct plan plan;
	struct run_config rc;
	unsigned bad = 0;
	int c, r, status = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': fstests = optarg; break;
		case 'r': results = optarg; break;
		case 'c': config = optarg; break;
		case 'o': hostopt = optarg; break;
		case 's': section = optarg; break;
		case 'p': planfile = optarg; break;
		case 'S': strv_push(&sets, optarg); break;
		case 'k': kmsg = streq(optarg, "none") ? "" : optarg; break;
		case 'i': run_id = optarg; break;
		case 'g': gcov_root = optarg; break;
		case 'h':
			printf("usage: fsagent run --fstests DIR --results DIR --config FS/NAME --host-options FILE\n"
			       "                  [--section NAME] [--plan FILE] [--set KEY=VALUE]... [--kmsg PATH|none]\n"
			       "                  [--run-id ID] [--gcov DIR]\n"
			       "Run a plan through fstests' check on this machine (devices already set up in\n"
			       "HOST_OPTIONS) and write the bundle to DIR/runs/<run id>/bundle.json. --gcov: the\n"
			       "kernel's gcov directory for plan key coverage (default /sys/kernel/debug/gcov).\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!fstests || !results || !config || !hostopt || optind < argc) {
		log_err("run: --fstests, --results, --config and --host-options are required; see 'fsagent run --help'");
		strv_free(sets);
		return 2;
	}
	abs_hostopt = realpath(hostopt, NULL);
	abs_fstests = realpath(fstests, NULL);
	if (!abs_hostopt || !abs_fstests) {
		log_err("run: '%s' not found", !abs_fstests ? fstests : hostopt);
		strv_free(sets);
		return 2;
	}
	if (plan_init(&plan) < 0)
		return 1;
	if (planfile) {
		r = fileio_read_full(planfile, &planbuf, NULL);
		if (r < 0) {
			log_err("read plan '%s' failed: %s", planfile, strerror(-r));
			goto out;
		}
		if (plan_apply_file(&plan, planfile, planbuf, err, sizeof(err)) < 0) {
			log_err("%s", err);
			goto out;
		}
		plandir = strdup(planfile);
		if (plandir && strrchr(plandir, '/'))
			*strrchr(plandir, '/') = '\0';
		else {
			free(plandir);
			plandir = NULL;
		}
	}
	for (char **s = sets; s && *s; s++) {
		char *eq = strchr(*s, '=');

		if (!eq) {
			log_err("--set '%s': want KEY=VALUE", *s);
			goto out;
		}
		*eq = '\0';
		if (plan_set(&plan, "command line", 0, *s, eq + 1, err, sizeof(err)) < 0) {
			log_err("%s", err);
			goto out;
		}
	}
	if (plan.order == ORDER_RANDOM && !plan.seed_set) {
		plan.seed = order_new_seed();
		plan.seed_set = true;
	}
	if (expunge_load_files(&expunges, plandir, plan.expunge_files, err, sizeof(err)) < 0 ||
	    shard_plan_durations(&plan, plandir, &durations, err, sizeof(err)) < 0) {
		log_err("%s", err);
		goto out;
	}
	if (inventory_build(NULL, NULL, &inv) < 0) {
		log_err("inventory of this machine failed");
		goto out;
	}
	/* a subreaper, so tests that daemonize are still ours to reap */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (!run_id) {
		run_new_id(idbuf, sizeof(idbuf));
		run_id = idbuf;
	}
	r = bundle_create(&b, results, run_id, plan_to_json(&plan), json_incref(json_object_get(inv.doc, "kernel")));
	if (r < 0) {
		log_err("create bundle in '%s' failed: %s", results, strerror(-r));
		goto out;
	}
	{
		_cleanup_free_ char *fstype = strndup(config, strcspn(config, "/"));
		char **caps = inventory_cap_names(&inv);
		struct run_opts ro = { .fstests = abs_fstests, .results = results, .kmsg = kmsg, .plan = &plan,
				       .expunges = &expunges, .durations = durations, .gcov_root = gcov_root,
				       .configs = &rc, .n_configs = 1 };

		snprintf(rbase, sizeof(rbase), "%s/results", abs_fstests);
		rc = (struct run_config){ config, fstype, abs_hostopt, section, rbase };
		ro.ctx.kernel = inv.caps.version;
		ro.ctx.arch = json_string_value(json_object_get(json_object_get(inv.doc, "machine"), "arch"));
		ro.ctx.caps = caps;
		r = run_execute(&ro, &b, &bad);
		bundle_set(&b, "kmsg_lost", json_integer((json_int_t)runner_kmsg_lost()));
		bundle_finish(&b, r < 0 ? "error" : "complete");
		strv_free(caps);
	}
	printf("%s/bundle.json\n", b.dir);
	if (bundle_records_lost(&b))
		log_err("%zu test records could not be written: the results disk is full (bundle.json: records_lost)",
			bundle_records_lost(&b));
	status = r < 0 || bad || bundle_records_lost(&b) ? 1 : 0;
out:
	bundle_release(&b);
	inventory_release(&inv);
	expunge_list_release(&expunges);
	json_decref(durations);
	plan_release(&plan);
	strv_free(sets);
	return status;
}

static int cmd_report(int argc, char **argv)
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

static int cmd_plan(int argc, char **argv)
{
	_cleanup_free_ char *buf = NULL;
	json_auto_t *j = NULL;
	char err[512];
	struct plan plan;
	int r;

	if (argc != 2 || streq(argv[1], "--help") || streq(argv[1], "-h")) {
		printf("usage: fsagent plan PLAN_FILE\n"
		       "Check a run plan and print it resolved, as JSON; a bad one gets one line\n"
		       "naming file, line and key, and exit status 1.\n");
		return argc == 2 ? 0 : 2;
	}
	r = fileio_read_full(argv[1], &buf, NULL);
	if (r < 0) {
		log_err("read plan '%s' failed: %s", argv[1], strerror(-r));
		return 1;
	}
	if (plan_init(&plan) < 0)
		return 1;
	r = plan_apply_file(&plan, argv[1], buf, err, sizeof(err));
	if (r < 0)
		log_err("%s", err);
	else if ((j = plan_to_json(&plan)))
		r = json_dumpf(j, stdout, JSON_INDENT(2)) < 0 || putchar('\n') == EOF ? -EIO : 0;
	plan_release(&plan);
	return r < 0 ? 1 : 0;
}

static int cmd_aggregate(int argc, char **argv)
{
	json_auto_t *doc = NULL;
	_cleanup_free_ char *text = NULL;
	json_t *seen, *agg;
	const char *into;
	char err[1024];

	if (argc < 4 || !streq(argv[1], "--into")) {
		printf("usage: fsagent aggregate --into FILE BUNDLE...\n"
		       "Add bundles to FILE's per config and test counts (runs, statuses, total and\n"
		       "longest duration); a bundle already in it is not counted twice.\n");
		return argc == 2 && (streq(argv[1], "--help") || streq(argv[1], "-h")) ? 0 : 2;
	}
	into = argv[2];
	if (access(into, F_OK) == 0) {
		json_error_t jerr;

		doc = json_load_file(into, 0, &jerr);
		if (!doc || !streq(json_string_value(json_object_get(doc, "schema")) ?: "", "fsagent-aggregate/1")) {
			log_err("%s: not an fsagent-aggregate/1 file%s%s", into, doc ? "" : ": ", doc ? "" : jerr.text);
			return 1;
		}
	} else
		doc = json_pack("{s:s, s:[], s:{}}", "schema", "fsagent-aggregate/1", "bundles", "aggregate");
	seen = json_object_get(doc, "bundles");
	agg = json_object_get(doc, "aggregate");
	for (int i = 3; i < argc; i++) {
		json_auto_t *b = NULL;
		const char *id;
		json_t *v;
		size_t k;
		bool dup = false;

		if (bundle_load(argv[i], &b, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return 1;
		}
		id = json_string_value(json_object_get(b, "run_id"));
		json_array_foreach(seen, k, v)
			dup |= streq(json_string_value(v), id);
		if (dup)
			continue;
		if (report_aggregate(agg, b) < 0)
			return 1;
		json_array_append_new(seen, json_string(id));
	}
	text = json_dumps(doc, JSON_INDENT(1));
	if (!text || fileio_write_atomic(into, text, strlen(text)) < 0) {
		log_err("write '%s' failed", into);
		return 1;
	}
	return 0;
}

static int write_output(const char *path, json_t *res, void (*fn)(json_t *, FILE *))
{
	char tmp[PATH_MAX];
	FILE *f;
	int bad;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "we");
	if (!f) {
		log_err("open '%s' failed: %s", tmp, strerror(errno));
		return -errno;
	}
	fn(res, f);
	bad = ferror(f) | (fflush(f) != 0) | (fsync(fileno(f)) != 0);
	if (fclose(f) != 0 || bad || rename(tmp, path) < 0) {
		log_err("write '%s' failed: %s", path, strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

static void dump_json(json_t *res, FILE *f)
{
	json_dumpf(res, f, JSON_INDENT(1));
	fputc('\n', f);
}

static int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "baseline", required_argument, NULL, 'b' },
		{ "candidate", required_argument, NULL, 'c' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "json", required_argument, NULL, 'j' },
		{ "html", required_argument, NULL, 'H' },
		{ "rerun-plan", required_argument, NULL, 'p' },
		{ "rerun-runs", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *json_out = NULL, *html_out = NULL, *plan_out = NULL;
	struct compare *cmp = NULL;
	json_auto_t *res = NULL;
	double alpha = 0.05;
	unsigned long long rerun = 20;
	bool have[2] = { false, false };
	char err[1024] = "";
	int c, r;

	if (compare_new(&cmp) < 0)
		return 1;
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
				return 1;
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
		case 'n':
			if (fileio_parse_u64(optarg, &rerun) < 0 || rerun < 1 || rerun > 100000) {
				log_err("--rerun-runs: '%s' is not a number from 1 to 100000", optarg);
				compare_free(cmp);
				return 2;
			}
			break;
		case 'h':
			printf("usage: fsagent compare --baseline DIR... --candidate DIR... [--alpha P]\n"
			       "                       [--json FILE] [--html FILE] [--rerun-plan FILE [--rerun-runs N]]\n"
			       "Which failures did the candidate cause? DIR: a bundle, or a directory holding\n"
			       "bundles (searched 4 levels down); each option may be given again. Per config\n"
			       "and test: runs, failures and failure rate on both sides, and a class:\n"
			       "regression, fixed (one-sided Fisher exact test, Holm-corrected, below alpha,\n"
			       "default 0.05), failing (every run on both sides), flaky, not-comparable (not\n"
			       "run on one side, or too few runs to reach alpha), pass. The text goes to\n"
			       "stdout; --json and --html write the result and a self-contained page;\n"
			       "--rerun-plan writes a plan of the candidate's failures and flakes to run on the\n"
			       "baseline N times (default 20; fsagent-qemu --plan FILE).\n"
			       "Exit status: 0 no regression, 1 regressions (or an error), 2 bad usage.\n");
			compare_free(cmp);
			return 0;
		default:
			compare_free(cmp);
			return 2;
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
		return 1;
	print_printable(compare_text, res);
	if (json_out && write_output(json_out, res, dump_json) < 0)
		return 1;
	if (html_out && write_output(html_out, res, compare_html) < 0)
		return 1;
	if (plan_out) {
		r = compare_rerun_plan(res, plan_out, (unsigned)rerun, err, sizeof(err));
		if (r < 0) {
			log_err("%s", err);
			return 1;
		}
		printf("\nrerun plan: %s (%d tests x %llu runs on the baseline)\n", r ? plan_out : "none needed", r,
		       rerun);
	}
	return json_integer_value(json_object_get(json_object_get(res, "counts"), "regression")) ? 1 : 0;
}

static int cmd_upkeep(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "current", required_argument, NULL, 'c' },
		{ "min-rate", required_argument, NULL, 'r' },
		{ "min-runs", required_argument, NULL, 'n' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{},
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

static int cmd_durations(int argc, char **argv)
{
	json_auto_t *d = NULL;
	const char *out = NULL;
	char err[1024] = "";
	char *text;
	int r;

	if (argc >= 2 && (streq(argv[1], "-h") || streq(argv[1], "--help"))) {
		printf("usage: fsagent durations BUNDLES... [--out FILE]\n"
		       "The mean duration of each config and test over the runs in the bundles (or\n"
		       "directories holding them), as a durations file for shards (plan key\n"
		       "'durations', fsagent-qemu --durations).\n");
		return 0;
	}
	if (argc >= 3 && streq(argv[argc - 2], "--out")) {
		out = argv[argc - 1];
		argc -= 2;
	}
	if (argc < 2) {
		log_err("usage: fsagent durations BUNDLES... [--out FILE]");
		return 2;
	}
	argv[argc] = NULL;
	if (shard_durations_from_bundles(argv + 1, &d, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return 1;
	}
	text = json_dumps(d, JSON_INDENT(1));
	if (!text)
		return 1;
	if (out) {
		r = fileio_write_atomic(out, text, strlen(text));
		if (r < 0)
			log_err("write '%s' failed: %s", out, strerror(-r));
	} else {
		r = puts(text) < 0 ? -EIO : 0;
	}
	free(text);
	return r < 0 ? 1 : 0;
}

static int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "into", required_argument, NULL, 'i' },
		{ "run-id", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *into = NULL, *run_id = NULL;
	char err[1024] = "", idbuf[64];
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': into = optarg; break;
		case 'r': run_id = optarg; break;
		case 'h':
			printf("usage: fsagent merge --into DIR [--run-id ID] BUNDLE...\n"
			       "Join the bundles of a sharded run (plan key 'shard', fsagent-qemu --shards)\n"
			       "into one bundle in DIR (new or empty): every shard once, each config's\n"
			       "iterations with the shards' orders and records joined, counts taken again,\n"
			       "artifacts copied. Prints the bundle's bundle.json path.\n");
			return 0;
		default: return 2;
		}
	}
	if (!into || optind >= argc) {
		log_err("usage: fsagent merge --into DIR [--run-id ID] BUNDLE...");
		return 2;
	}
	if (!run_id) {
		run_new_id(idbuf, sizeof(idbuf));
		run_id = idbuf;
	}
	argv[argc] = NULL;
	if (merge_bundles(argv + optind, into, run_id, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return 1;
	}
	printf("%s/bundle.json\n", into);
	return 0;
}

static void coverage_list_out(json_t *res, FILE *f)
{
	coverage_write_list(res, f);
}

static void coverage_plan_out(json_t *res, FILE *f)
{
	coverage_write_plan(res, f);
}

static int cmd_coverage(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "build", required_argument, NULL, 'b' },  { "gcov", required_argument, NULL, 'g' },
		{ "target", required_argument, NULL, 't' }, { "by", required_argument, NULL, 'y' },
		{ "history", required_argument, NULL, 'H' }, { "out", required_argument, NULL, 'o' },
		{ "plan", required_argument, NULL, 'p' },   { "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{},
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

static int cmd_extract(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "into", required_argument, NULL, 'i' },      { "run-id", required_argument, NULL, 'r' },
		{ "max-file", required_argument, NULL, 'f' },  { "max-total", required_argument, NULL, 't' },
		{ "max-entries", required_argument, NULL, 'e' }, { "help", no_argument, NULL, 'h' },
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
		case 'f': if (parse_cap("--max-file", optarg, &lim.max_file) < 0) return 2; break;
		case 't': if (parse_cap("--max-total", optarg, &lim.max_total) < 0) return 2; break;
		case 'e': if (parse_cap("--max-entries", optarg, &lim.max_entries) < 0) return 2; break;
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
		default:
			return 2;
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

static int cmd_version(int argc _unused_, char **argv _unused_)
{
	printf("fsagent %s\n", FSAGENT_VERSION);
	return 0;
}

static const struct command commands[] = {
	{ "init", cmd_init, "boot the test VM (run as PID 1)" },
	{ "caps", cmd_caps, "print the machine inventory as JSON" },
	{ "run", cmd_run, "run a plan through fstests' check here (subreaper, no VM)" },
	{ "report", cmd_report, "summarise a bundle; --junit FILE exports JUnit XML" },
	{ "plan", cmd_plan, "check a run plan file and print it resolved" },
	{ "aggregate", cmd_aggregate, "add bundles to per-test counts and durations (soaks)" },
	{ "coverage", cmd_coverage, "per-test kernel coverage: the smallest or fastest group reaching X%" },
	{ "durations", cmd_durations, "mean test durations from bundles, for balancing shards" },
	{ "merge", cmd_merge, "join the bundles of a sharded run into one" },
	{ "upkeep", cmd_upkeep, "suggest an expunge file from bundles; list rules that can go" },
	{ "compare", cmd_compare, "baseline bundles against candidate ones: regressions, flakes, rerun plan" },
	{ "extract", cmd_extract, "read a run off a results disk image, trusting nothing on it" },
	{ "unframe", cmd_unframe, "cut a framed document out of a console log" },
	{ "version", cmd_version, "print the version" },
	{ "help", cmd_help, "show this help" },
};

static int cmd_help(int argc _unused_, char **argv _unused_)
{
	printf("usage: fsagent COMMAND [ARGS]\n\nCommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		printf("  %-10s %s\n", commands[i].name, commands[i].help);
	printf("\nAs PID 1, fsagent runs 'init' whatever its arguments.\n");
	return 0;
}

int main(int argc, char **argv)
{
	/* the kernel may pass its own words to init; PID 1 always boots */
	if (getpid() == 1)
		pid1_main();
	if (argc < 2) {
		cmd_help(0, NULL);
		return 2;
	}
	if (streq(argv[1], "--help") || streq(argv[1], "-h"))
		return cmd_help(0, NULL);
	if (streq(argv[1], "--version"))
		return cmd_version(0, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (streq(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	log_err("unknown command '%s'; see 'fsagent help'", argv[1]);
	return 2;
}
