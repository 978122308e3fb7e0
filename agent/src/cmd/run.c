// SPDX-License-Identifier: MIT
/*
 * fsagent run: a plan through check on this machine.
 */
#include "cmd/cmd.h"
#include "model/bundle.h"
#include "model/plan_resolve.h"
#include "run/run.h"
#include "run/runner.h"
#include "util/strv.h"
#include "machine/inventory.h"
#include "machine/userspace.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

#include <getopt.h>
#include <limits.h>
#include <sys/prctl.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>

/*
 * The plan: planfile (when given) then each --set KEY=VALUE, logging the
 * error. *ret_dir is planfile's directory (NULL: the current one), where the
 * files it names are. Returns 0 or -errno.
 */
static int load_plan(struct plan *plan, const char *planfile, char **sets, char **ret_dir)
{
	_cleanup_free_ char *buf = NULL;
	char err[512] = "";
	int r;

	*ret_dir = NULL;
	if (planfile) {
		r = fileio_read_full(planfile, &buf, NULL);
		if (r < 0) {
			log_err("read plan '%s' failed: %s", planfile, strerror(-r));
			return r;
		}
		r = plan_apply_file(plan, planfile, buf, err, sizeof(err));
		if (r < 0) {
			log_err("%s", err);
			return r;
		}
		if (strrchr(planfile, '/')) {
			*ret_dir = strndup(planfile, (size_t)(strrchr(planfile, '/') - planfile));
			if (!*ret_dir)
				return -ENOMEM;
		}
	}
	for (char **s = sets; s && *s; s++) {
		char *eq = strchr(*s, '=');

		if (!eq) {
			log_err("--set '%s': want KEY=VALUE", *s);
			return -EINVAL;
		}
		*eq = '\0';
		r = plan_set(plan, "command line", 0, *s, eq + 1, err, sizeof(err));
		if (r < 0) {
			log_err("%s", err);
			return r;
		}
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fstests", required_argument, NULL, 'f' }, { "results", required_argument, NULL, 'r' },
		{ "config", required_argument, NULL, 'c' },  { "host-options", required_argument, NULL, 'o' },
		{ "section", required_argument, NULL, 's' }, { "plan", required_argument, NULL, 'p' },
		{ "set", required_argument, NULL, 'S' },     { "kmsg", required_argument, NULL, 'k' },
		{ "run-id", required_argument, NULL, 'i' },  { "gcov", required_argument, NULL, 'g' },
		{ "jobs", required_argument, NULL, 'j' },    { "pool", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },	     {},
	};
	const char *fstests = NULL, *results = NULL, *hostopt = NULL, *section = NULL, *planfile = NULL, *kmsg = NULL,
		   *run_id = NULL, *gcov_root = NULL, *pool = NULL;
	char **sets = NULL, **configs = NULL, **fstypes = NULL, idbuf[64], err[512] = "", rbase[PATH_MAX],
	     poolbuf[PATH_MAX], jobsbuf[64];
	_cleanup_free_ char *plandir = NULL, *abs_hostopt = NULL, *abs_fstests = NULL;
	struct plan_files files = { 0 };
	struct inventory inv = { 0 };
	struct bundle b = { 0 };
	struct plan plan;
	struct run_config rc[16];
	size_t nc = 0;
	unsigned bad = 0;
	int c, r, status = 2; /* bad input until the plan is read; then 3 until the run ends */

	while ((c = getopt_long(argc, argv, "hj:", opts, NULL)) != -1) {
		switch (c) {
		case 'f': fstests = optarg; break;
		case 'r': results = optarg; break;
		case 'c': strv_push(&configs, optarg); break;
		case 'o': hostopt = optarg; break;
		case 's': section = optarg; break;
		case 'p': planfile = optarg; break;
		case 'S': strv_push(&sets, optarg); break;
		case 'k': kmsg = streq(optarg, "none") ? "" : optarg; break;
		case 'i': run_id = optarg; break;
		case 'g': gcov_root = optarg; break;
		/* the plan key's checks say what is wrong with -j 0 */
		case 'j': snprintf(jobsbuf, sizeof(jobsbuf), "jobs=%s", optarg), strv_push(&sets, jobsbuf); break;
		case 'P': pool = optarg; break;
		case 'h':
			printf("usage: fsagent run --fstests DIR --results DIR --config FS/NAME[:SECTION]...\n"
			       "                  --host-options FILE"
			       " [--section NAME] [--plan FILE] [--set KEY=VALUE]...\n"
			       "                  [--kmsg PATH|none]"
			       " [--run-id ID] [--gcov DIR] [-j N [--pool DIR]]\n"
			       "Run a plan through fstests' check on this machine (devices already set up in\n"
			       "HOST_OPTIONS) and write the bundle to DIR/runs/<run id>/bundle.json. --gcov: the\n"
			       "kernel's gcov directory for plan key coverage (default /sys/kernel/debug/gcov).\n"
			       "--config again: several configs, each its SECTION of HOST_OPTIONS (--section's\n"
			       "where none is said), in turn, or with -j in one queue over the runners.\n"
			       "-j N: N tests at once (plan key jobs), each runner's directories under --pool\n"
			       "(default $TMPDIR/fsagent-runners-<run id>): docs/parallel.md.\n"
			       "Exit status: 0 every test that ran passed, 1 one failed (or a record was lost),\n"
			       "2 bad usage or input (the plan, the tree), 3 the run could not be made or did\n"
			       "not finish, 4 no test ran (every one not run or expunged): docs/exit-status.md.\n");
			return 0;
		default: return 2;
		}
	}
	if (!fstests || !results || !configs || !hostopt || optind < argc) {
		log_err("run: --fstests, --results, --config and --host-options are required; see 'fsagent run "
			"--help'");
		goto out_args;
	}
	for (char **cf = configs; *cf; cf++) {
		char *colon = strchr(*cf, ':');

		if (nc == ARRAY_SIZE(rc) || !(*cf)[0] || colon == *cf || (colon && !colon[1])) {
			log_err("run: --config '%s': %s", *cf,
				nc == ARRAY_SIZE(rc) ? "more configs than 16" : "not FS/NAME or FS/NAME:SECTION");
			goto out_args;
		}
		if (colon)
			*colon = '\0';
		if (strv_push(&fstypes, *cf) < 0)
			goto out_args;
		fstypes[nc][strcspn(fstypes[nc], "/")] = '\0';
		rc[nc] = (struct run_config){ *cf, fstypes[nc], NULL, colon ? colon + 1 : section, NULL };
		nc++;
	}
	abs_hostopt = realpath(hostopt, NULL);
	abs_fstests = realpath(fstests, NULL);
	if (!abs_hostopt || !abs_fstests) {
		log_err("run: '%s' not found", !abs_fstests ? fstests : hostopt);
		goto out_args;
	}
	if (plan_init(&plan) < 0) {
		status = 3;
		goto out_args;
	}
	if (load_plan(&plan, planfile, sets, &plandir) < 0)
		goto out;
	if (plan_resolve(&plan, plandir, &files, err, sizeof(err)) < 0) {
		log_err("%s", err);
		goto out;
	}
	status = 3;
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
	if (!pool) {
		snprintf(poolbuf, sizeof(poolbuf), "%s/fsagent-runners-%s", getenv("TMPDIR") ?: "/tmp", run_id);
		pool = poolbuf;
	}
	r = bundle_create(&b, results, run_id, plan_to_json(&plan), json_incref(json_object_get(inv.doc, "kernel")));
	if (r < 0) {
		log_err("create bundle in '%s' failed: %s", results, strerror(-r));
		goto out;
	}
	/* the machine it ran on, as the boot session records it, and the userspace (fsagent compare weighs it) */
	userspace_add_fstests(json_object_get(inv.doc, "userspace"), abs_fstests);
	bundle_set(&b, "caps", json_incref(inv.doc));
	bundle_set(&b, "userspace", json_incref(json_object_get(inv.doc, "userspace")));
	{
		char **caps = inventory_cap_names(&inv);
		struct run_opts ro = { .fstests = abs_fstests,
				       .results = results,
				       .kmsg = kmsg,
				       .plan = &plan,
				       .expunges = &files.expunges,
				       .durations = files.durations,
				       .gcov_root = gcov_root,
				       .pool = pool,
				       .configs = rc,
				       .n_configs = nc };

		snprintf(rbase, sizeof(rbase), "%s/results", abs_fstests);
		for (size_t i = 0; i < nc; i++)
			rc[i].host_options = abs_hostopt, rc[i].result_base = rbase;
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
	/* 4: no test ran (no config served, every test skipped): not a pass a CI job could take */
	if (r < 0)
		status = 3;
	else
		switch (bad ? BUNDLE_FAILED : bundle_outcome_of(&b)) {
		case BUNDLE_FAILED: status = 1; break;
		case BUNDLE_NOTHING_RAN: status = 4; break;
		case BUNDLE_PASSED: status = 0; break;
		}
out:
	bundle_release(&b);
	inventory_release(&inv);
	plan_files_release(&files);
	plan_release(&plan);
out_args:
	strv_free(sets);
	strv_free(configs);
	strv_free(fstypes);
	return status;
}
