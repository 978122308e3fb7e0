/* SPDX-License-Identifier: MIT */
/*
 * Between run.c (the rounds over configs, the callbacks a test's result
 * goes through) and iterations.c (a queue's iterations over one config or
 * several sharing runners).
 */
#pragma once

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/bundle.h"
#include "run/gcov.h"
#include "run/history.h"
#include "run/pool.h"
#include "run/run.h"
#include "run/shard_keep.h"

/* A config of a queue: one alone, or several sharing the runners (plan key jobs). */
struct run_member {
	struct run_ctx *c;
	const struct run_config *cfg;
	const struct config_sel *cs;
	json_t *config, *iteration; /* its bundle record, and this iteration's */
	char result_dir[PATH_MAX];  /* where a serial check leaves a test's files */
	struct runner_pool *pool;   /* its runners (n 0: one test at a time); run_execute's, shared by its lanes */
	/* this iteration: its queue order (made, or what a resumed one has left), and its parts */
	char **order;
	size_t head, parallel;
	bool active; /* runs this iteration */
	bool failed; /* an error recorded: no more iterations */
	/* a queue spanning iterations: this copy is config origin's at iteration k (its label "xfs/4k#3") */
	struct run_member *origin;
	unsigned k;
	char label[96];
};

struct run_ctx {
	const struct run_opts *o;
	struct bundle *b;
	/* the config whose test is being recorded (run_use) */
	const struct run_config *cfg;
	json_t *config, *iteration;
	const char *result_dir;
	const struct config_sel *cur;
	const struct runner_pool *pool;
	unsigned bad;
	unsigned base;	   /* the first iteration index of this round */
	long long soak_t0; /* when the run started, for soak.duration */
	const char *stopped_by;
	/* progress through this round, for the "[k/N]" console lines hosts follow */
	size_t done, total;
	struct gcov *gcov;    /* per-test coverage, or NULL */
	double timeout_scale; /* the kernel's slowdown, for timeout = auto */
	struct history hist;  /* the tests' durations: the plan's file and this run's */
};

/* m is the config whose tests are recorded next. */
void run_use(struct run_ctx *c, struct run_member *m);

/* m's config failed (r, err saying why, or NULL): said, recorded as an error, counted. */
void run_config_error(struct run_ctx *c, const struct run_member *m, int r, const char *err);

/* The runner callbacks (run.c), their data a struct run_member. */
unsigned run_timeout_for(void *data, const char *test);
int run_on_result(void *data, struct test_result *t);
void run_before_check(void *data, const char *test);

bool run_soak_active(const struct plan *p);

/*
 * The round's iterations of ms[0..n) (one config, or several sharing
 * runners: every pool the same runners), each config's tests in one
 * queue; where an iteration has fewer tests than twice the runners (a
 * probe's runs of one test), the queue spans as many iterations as that
 * takes, each iteration's record its own. A config that fails is recorded
 * as an error and left out of the rest. Returns 0, RUNNER_UNKILLABLE or
 * -errno.
 */
int iterations_run(struct run_ctx *c, struct run_member *ms, size_t n);
