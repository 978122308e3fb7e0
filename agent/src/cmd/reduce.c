// SPDX-License-Identifier: MIT
/*
 * fsagent reduce: an order-dependent failure reduced to the tests before it
 * that cause it (analysis/reduce.h), each probe a run of a command the user
 * gives (a fresh check through fsagent run, a fresh VM through the
 * launcher), as git bisect run does.
 */
#include "analysis/reduce.h"
#include "cmd/cmd.h"
#include "engine/job.h"
#include "model/bundle.h"
#include "model/result.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * res into the bundle's order-dependence.json (or out), replacing an earlier
 * result for the same config and test: temp file, fsync, rename.
 */
static int record(const char *bundle, const char *out, json_t *res)
{
	char path[PATH_MAX];
	json_t *doc = NULL, *list, *e;
	size_t i;
	int r;

	if (out)
		snprintf(path, sizeof(path), "%s", out);
	else if (snprintf(path, sizeof(path), "%.*s/%s", (int)bundle_dir_len(bundle), bundle, REDUCE_FILE) >=
		 (int)sizeof(path))
		return -ENAMETOOLONG;
	r = reduce_file_load(path, &doc, NULL, 0);
	if (r == -ENOENT)
		doc = json_pack("{s:s, s:[]}", "schema", REDUCE_SCHEMA, "reductions");
	else if (r < 0) {
		log_err("%s: not a file of reductions fsagent would add to: %s", path, strerror(-r));
		return r;
	}
	list = json_object_get(doc, "reductions");
	json_array_foreach(list, i, e)
		if (json_equal(json_object_get(e, "config"), json_object_get(res, "config")) &&
		    json_equal(json_object_get(e, "test"), json_object_get(res, "test"))) {
			json_array_remove(list, i);
			break;
		}
	json_array_append(list, res);
	r = write_output(path, doc, dump_json);
	json_decref(doc);
	return r;
}

struct prober {
	char *const *cmd;
	const char *config;
	unsigned runs;	/* each probe's runs; it fails when any of them does */
	unsigned total; /* command runs so far */
	unsigned probes;
};

/* One run of the probe command over tests. Returns 1 the suspect failed, 0 passed, or -errno (logged). */
static int run_once(struct prober *pr, char *const *tests)
{
	_cleanup_free_ char *list = strv_join(tests, ' '), *e_tests = NULL, *e_config = NULL;
	struct job j = JOB_INIT;
	int r;

	if (!list || asprintf(&e_tests, "FSAGENT_REDUCE_TESTS=%s", list) < 0 ||
	    asprintf(&e_config, "FSAGENT_REDUCE_CONFIG=%s", pr->config) < 0)
		return -ENOMEM;
	pr->total++;
	r = job_start(&j, pr->cmd, (const char *const[]){ e_tests, e_config, NULL }, NULL, false);
	if (r < 0)
		return r;
	r = job_wait(&j);
	if (r < 0) {
		log_err("probe '%s' failed: %s", pr->cmd[0], strerror(-r));
		return r;
	}
	if (j.p.status > 1) {
		log_err("probe '%s' exited %d (0: the suspect passed, 1: it failed): stopping", pr->cmd[0], j.p.status);
		return -ECHILD;
	}
	return j.p.status;
}

static int probe(void *data, char *const *tests, size_t n)
{
	struct prober *pr = data;
	int r = 0;

	for (unsigned i = 0; i < pr->runs && r == 0; i++)
		r = run_once(pr, tests);
	/* a reduction can take hours: each probe said as it ends */
	if (r >= 0) {
		printf("reduce: probe %u: %s with %zu test%s before it: %s\n", ++pr->probes, tests[n - 1], n - 1,
		       n == 2 ? "" : "s", r ? "failed" : "passed");
		fflush(stdout);
	}
	return r;
}

/* How many of runs runs of tests the suspect failed. Returns the count or -errno. */
static int confirm(struct prober *pr, char *const *tests, unsigned runs)
{
	int fails = 0;

	for (unsigned i = 0; i < runs; i++) {
		int r = run_once(pr, tests);

		if (r < 0)
			return r;
		fails += r;
	}
	return fails;
}

/* The order before test in the config's iteration (the first where it failed when iteration < 0). */
static int order_before(json_t *doc, const char *config, const char *test, long *iteration, char ***ret, char *err,
			size_t es)
{
	json_t *c, *it, *t;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "configs"), i, c) {
		if (!streq(json_string_value(json_object_get(c, "name")) ?: "", config))
			continue;
		json_array_foreach(json_object_get(c, "iterations"), k, it) {
			json_t *order = json_object_get(it, "order");
			bool failed = false;
			size_t j;

			if (*iteration >= 0 && json_integer_value(json_object_get(it, "index")) != *iteration)
				continue;
			json_array_foreach(json_object_get(it, "tests"), j, t)
				if (streq(json_string_value(json_object_get(t, "name")) ?: "", test))
					failed = test_status_failed(test_status_from_string(
						json_string_value(json_object_get(t, "status")) ?: ""));
			if (*iteration < 0 && !failed)
				continue;
			*ret = strv_split("", ",");
			json_array_foreach(order, j, t) {
				const char *name = json_string_value(t);

				if (!name || !test_name_ok(name, NULL))
					break;
				if (streq(name, test)) {
					*iteration = json_integer_value(json_object_get(it, "index"));
					return 0;
				}
				strv_push(ret, name);
			}
			strv_free(*ret);
			*ret = NULL;
			snprintf(err, es, "%s iteration %lld: %s is not in its order", config,
				 (long long)json_integer_value(json_object_get(it, "index")), test);
			return -ENOENT;
		}
		snprintf(err, es, "%s: %s", config,
			 *iteration >= 0 ? "no such iteration" : "no iteration where the test failed");
		return -ENOENT;
	}
	snprintf(err, es, "no config '%s' in the bundle", config);
	return -ENOENT;
}

int cmd_reduce(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "test", required_argument, NULL, 't' },
		{ "iteration", required_argument, NULL, 'i' },
		{ "runs", required_argument, NULL, 'r' },
		{ "max-probes", required_argument, NULL, 'b' },
		{ "budget", required_argument, NULL, 'B' }, /* its old name: a budget elsewhere counts test runs */
		{ "confirm", required_argument, NULL, 'C' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *config = NULL, *test = NULL, *out = NULL;
	unsigned long long budget = 40, confirm_runs = 5, runs = 1, v;
	long iteration = -1;
	char err[512] = "", **before = NULL, **with = NULL, *alone[2] = { NULL, NULL };
	json_t *doc = NULL, *res = NULL;
	struct reduce_result rr = { 0 };
	struct prober pr = { 0 };
	int c, r, fails_with = 0, fails_alone = 0;
	int status;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': config = optarg; break;
		case 't': test = optarg; break;
		case 'o': out = optarg; break;
		case 'B':
			log_warn("reduce: --budget is now --max-probes (it counts probes; qualify's --budget counts "
				 "test "
				 "runs)");
			c = 'b';
			/* fall through */
		case 'i':
		case 'r':
		case 'b':
		case 'C':
			if (fileio_parse_u64(optarg, &v) < 0 || v > 100000 || (c != 'i' && c != 'C' && v < 1) ||
			    (c == 'b' && v < 2)) {
				log_err("--%s: '%s' is not a count it takes",
					c == 'b'   ? "max-probes"
					: c == 'r' ? "runs"
					: c == 'C' ? "confirm"
						   : "iteration",
					optarg);
				return 2;
			}
			if (c == 'i')
				iteration = (long)v;
			else
				*(c == 'r' ? &runs : c == 'b' ? &budget : &confirm_runs) = v;
			break;
		case 'h':
			printf("usage: fsagent reduce BUNDLE --config CONFIG --test TEST [--iteration K] [--runs R]\n"
			       "                      [--max-probes N] [--confirm M] [--out FILE] -- PROBE COMMAND...\n"
			       "A test that failed in a run's order: which of the tests before it make it fail?\n"
			       "Delta debugging over them (at most N probes, default 40; each probe R runs of the\n"
			       "command, failing when any does), then M runs (default 5) with the culprits and\n"
			       "alone to say how sure. The command runs the tests in FSAGENT_REDUCE_TESTS (space\n"
			       "separated, in order, the suspect last) on FSAGENT_REDUCE_CONFIG and exits 0 when\n"
			       "the suspect passed, 1 when it failed (anything else stops the reduction). The\n"
			       "result goes to FILE (default BUNDLE's directory, order-dependence.json, merged)\n"
			       "and stdout. Exit status: 0 culprits found, 1 none (fails alone, not reproduced),\n"
			       "2 bad usage or input, 3 a probe or a write failed, 4 the budget spent first\n"
			       "(the smallest failing set so far in its record; docs/exit-status.md).\n");
			return 0;
		default: return 2;
		}
	}
	if (optind + 1 >= argc || !config || !test || !test_name_ok(test, NULL)) {
		log_err("usage: fsagent reduce BUNDLE --config CONFIG --test TEST [...] -- PROBE COMMAND... (--help)");
		return 2;
	}
	r = bundle_load(argv[optind], &doc, err, sizeof(err));
	if (r == 0)
		r = order_before(doc, config, test, &iteration, &before, err, sizeof(err));
	if (r < 0) {
		log_err("%s", err[0] ? err : strerror(-r));
		json_decref(doc);
		return 2;
	}
	pr = (struct prober){ .cmd = argv + optind + 1, .config = config, .runs = (unsigned)runs };
	job_stop_on_signals(1);
	r = reduce_order(before, strv_length(before), test, (unsigned)budget, probe, &pr, &rr);
	if (r == 0 && (rr.verdict == REDUCE_FOUND || rr.verdict == REDUCE_BUDGET) && confirm_runs) {
		r = strv_extend(&with, rr.culprits);
		alone[0] = (char *)test;
		if (r == 0 && strv_push(&with, test) < 0)
			r = -ENOMEM;
		if (r == 0 && (fails_with = confirm(&pr, with, (unsigned)confirm_runs)) < 0)
			r = fails_with;
		if (r == 0 && (fails_alone = confirm(&pr, alone, (unsigned)confirm_runs)) < 0)
			r = fails_alone;
	}
	if (r < 0) {
		log_err("reduce %s %s: %s", config, test, strerror(-r));
		goto out;
	}
	res = json_pack("{s:s, s:s, s:I, s:s, s:o, s:i, s:i, s:i, s:i, s:i}", "config", config, "test", test,
			"iteration", (json_int_t)iteration, "verdict", reduce_verdict_to_string(rr.verdict), "culprits",
			strv_to_json(rr.culprits), "before", (int)strv_length(before), "probes", (int)rr.probes,
			"command_runs", (int)pr.total, "confirm_runs", (int)confirm_runs, "fails_with", fails_with);
	if (res)
		json_object_set_new(res, "fails_alone", json_integer(fails_alone));
	r = res ? record(argv[optind], out, res) : -ENOMEM;
	if (res)
		reduce_print(res, stdout);
out:
	/* the exit status every command shares (docs/exit-status.md) */
	status = r < 0 ? 3 : rr.verdict == REDUCE_FOUND ? 0 : rr.verdict == REDUCE_BUDGET ? 4 : 1;
	json_decref(res);
	json_decref(doc);
	reduce_result_release(&rr);
	strv_free(before);
	strv_free(with);
	return status;
}
