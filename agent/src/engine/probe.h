/* SPDX-License-Identifier: MIT */
/*
 * A probe: the command a bisection (and a fix's proof) calls to run tests
 * on one commit's kernel, as git bisect run's, and what its bundles say.
 * It gets FSAGENT_BISECT_COMMIT, FSAGENT_BISECT_KERNEL (empty without a
 * build command), FSAGENT_BISECT_TESTS (space separated),
 * FSAGENT_BISECT_CONFIG, FSAGENT_BISECT_RUNS (runs to make in one call),
 * FSAGENT_BISECT_STOP (1: it may stop at the first failure) and
 * FSAGENT_BISECT_RESULTS (a directory for its bundles), plus fsagent
 * reduce's FSAGENT_REDUCE_TESTS and FSAGENT_REDUCE_CONFIG; it exits 0 (the
 * tests passed), 1 (one failed), or 125 (this commit cannot be tested).
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>

struct probe {
	char *const *argv;
	json_t *tests;	    /* the tests' names (strings) */
	const char *config; /* their config */
	const char *dir;    /* the loop's directory: a failure's artifact is named under it */
};

/*
 * One call for runs runs of commit sha on the kernel in kdir (may be ""),
 * its results and log in pdir, within seconds (0: no limit). Returns its
 * exit status (one not 0, 1 or 125 logged with its log), -ETIME (stopped at
 * the limit) or -errno.
 */
int probe_call(const struct probe *p, const char *sha, const char *kdir, unsigned runs, bool stop, const char *pdir,
	       unsigned long seconds);

/*
 * What a call is about to do, written before it as pdir/step.json (pdir
 * made), so that a loop stopped during the call finds it; step is taken
 * (may be NULL: -ENOMEM). Returns 0 or -errno.
 */
int probe_write_step(const char *pdir, json_t *step);

/*
 * The probe's tests' runs and failures in the bundles under res: 0, -ENOENT
 * (none), or -errno (logged, named). With how, the first failure's why and
 * its artifact (relative to p->dir) as {why, artifact}, or NULL when none
 * failed.
 */
int probe_count(const struct probe *p, const char *res, unsigned *runs, unsigned *fails, json_t **how);
