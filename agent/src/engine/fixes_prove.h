/* SPDX-License-Identifier: MIT */
/*
 * The candidates fsagent fixes --apply made, proven on the kernel (issue
 * 35's second part): the failing revision and each patched one built by
 * the user's build command (engine/build.h, each commit once) and run by a
 * probe (engine/probe.h) until analysis/fix_proof.h says the patch fixes
 * the test's failure or does not. The failing revision's runs are every
 * candidate's baseline, made once. Everything is kept in the --apply
 * directory:
 *
 * DIR/options.json    min_rate, alpha, max_runs (fixed at the start)
 * DIR/prove.jsonl     the test and config first, then one line per build or probe call as it ends, fsync'd
 * DIR/kernels/SHA/    a build's kernel/ and build.log
 * DIR/probes/N/       step.json (what was asked), results/ (the probe's bundles), log
 *
 * Stopped at any moment and run again, it replays the record, takes the
 * finished runs of an interrupted probe call from its bundles, and builds
 * and runs nothing recorded again.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "analysis/fix_proof.h"
#include "engine/fixes_apply.h"

struct fixes_prove_opts {
	const char *dir;    /* the --apply directory (locked by the caller) */
	const char *tree;   /* the stable tree, for the build command */
	const char *build;  /* a shell command line (engine/build.h), or NULL: the probe gets no kernel */
	char *const *probe; /* the probe's argv */
	const char *test, *config;
	struct fix_proof_opts o;
	bool given[3];	    /* min_rate, alpha, max_runs given on the command line */
	bool all;	    /* every candidate, not only up to the first that fixes */
	bool probe_bundles; /* the probe always leaves bundles: asked for all a side's runs at once */
	unsigned long probe_timeout, build_timeout; /* a call's seconds at most (0: none) */
	/* the failing revision's runs of the test made before (a watch's qualification): counted, not run again */
	unsigned prior_runs, prior_fails;
};

/*
 * Each candidate of fixes that applied ("apply".commit), in order, proven
 * against head: its "proof" set to {verdict: "fixes", "does not fix",
 * "cannot build" or "undecided", why, head: {commit, runs, fails}, patched:
 * {commit, runs, fails, why, artifact (its first failure's)}}; after the
 * first that fixes, the rest are left unproven unless o->all. o->o becomes
 * the options DIR was begun with. Returns 0, -EINVAL (err says: the failing
 * revision cannot be built or tested, the directory was begun for another
 * test), -EEXIST or -EBADMSG (logged: other options than the directory's, a
 * damaged record), or -errno.
 */
int fixes_prove(struct fixes_prove_opts *o, const char *head, json_t *fixes, char *err, size_t es);

/*
 * What fsagent fixes and the watch do with an answer (fixes_find's or an
 * mbox's): its candidates applied (ao, when it has any), proven with po
 * (NULL: not proven; its "proof": {test, config, min_rate, alpha,
 * max_runs} set), and the answer kept in ao->dir as fixes.json (schema
 * fsagent-fixes/1) and fixes.html. Returns 0, or fixes_apply's or
 * fixes_prove's error (err says, but for -EEXIST and -EBADMSG: logged).
 */
int fixes_settle(json_t *res, const struct fixes_apply_opts *ao, struct fixes_prove_opts *po, char *err, size_t es);

/* The first candidate of res proven to fix it, or NULL. */
json_t *fixes_proven(json_t *res);
