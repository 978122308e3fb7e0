/* SPDX-License-Identifier: MIT */
/*
 * One run of a plan: for each config, select the tests, and for each
 * iteration order them and drive check through the runner, recording every
 * result in the bundle as it comes. Shared by PID 1 and `fsagent run`.
 */
#pragma once

/* Free space on the results disk below which no config starts (besides the bundle's reserve). */
#define RUN_MIN_FREE (4U << 20)

#include <stdbool.h>

#include "model/bundle.h"
#include "model/expunge.h"
#include "model/plan.h"

struct run_config {
	const char *name;	  /* "xfs/4k" */
	const char *fstype;	  /* "xfs"; "overlay" for an overlay config (its tests, its expunge rules) */
	const char *host_options; /* the fstests config for it (absolute) */
	const char *section;	  /* its section, or NULL */
	const char *result_base;  /* check's RESULT_BASE, to collect artifacts */
	bool overlay;		  /* check -overlay over the section's FSTYP */
};

struct run_opts {
	const char *fstests;
	const char *results; /* where the plan's soak.stop_file is looked for */
	const char *kmsg;    /* as runner_opts.kmsg */
	bool sysrq;
	const struct plan *plan;
	const struct expunge_list *expunges;
	json_t *durations;	  /* fsagent durations' document for shards, or NULL */
	const char *gcov_root;	  /* debugfs' gcov directory; NULL: /sys/kernel/debug/gcov */
	const char *pool;	  /* where parallel runners' places go (plan key jobs): POOL/<config>/runner-K */
	const char *parallel_why; /* why the plan's jobs cannot be had (one test at a time, said), or NULL */
	struct expunge_ctx ctx;	  /* config and fs are set per config */
	const struct run_config *configs;
	size_t n_configs;
	/*
	 * Called before a config runs (format devices, check they mount):
	 * 0 to run it (why, when not empty, says what serves it: recorded
	 * as the config's "setup"), >0 to record it not run, <0 to record an
	 * error; why holds the reason. NULL: every config runs.
	 */
	int (*prepare)(void *data, const struct run_config *cfg, char *why, size_t size);
	/*
	 * Called after each test, before its result is recorded: >0 when what
	 * the config runs beside check (a loopback server) failed during it,
	 * note saying what (recorded with the test as "server"). NULL: none.
	 */
	int (*after_test)(void *data, const struct run_config *cfg, const char *test, char *note, size_t size);
	void *data;
};

/*
 * Run everything into b, again and again while the plan's soak conditions
 * (duration, deadline, stop file) let it, each round numbering its
 * iterations after the last one's. b is created by the caller, or reopened to resume:
 * configs and iterations already in it are continued, with their recorded
 * order, and tests already recorded are not run again). *ret_bad gets the number of
 * tests that failed, timed out, crashed or errored. Returns 0,
 * RUNNER_UNKILLABLE, or -errno.
 */
int run_execute(const struct run_opts *o, struct bundle *b, unsigned *ret_bad);

/* A run id: UTC time plus 4 random hex digits ("20261203T100102Z-3fa2"). */
void run_new_id(char *buf, size_t size);
