/* SPDX-License-Identifier: MIT */
/*
 * What a run knows of its tests' durations: the plan's durations file
 * (fsagent durations) and what this run has seen them take. It gives
 * timeout = auto its histories (model/timeout.h) and estimates the test
 * time a round has left for the progress lines (model/console.h).
 */
#pragma once

#include "model/result.h"
#include "run/select.h"

#include <jansson.h>

struct history {
	json_t *doc;	 /* the durations file (fsagent durations' document; borrowed), or NULL */
	json_t *learned; /* config -> test -> the longest this run saw */
	/* the round's test time left by the file (< 0: no estimate), and how this run compares with it */
	double left, hist_done, actual_done;
};

/* durations: fsagent durations' document, or NULL. Returns 0 or -ENOMEM. */
int history_init(struct history *h, json_t *durations);
void history_release(struct history *h);

/* The longer of the file's and this run's history of test under config; -1: none. */
double history_of(const struct history *h, const char *config, const char *test);

/* What t took under config, for the limits of its later runs (a timeout's duration is the limit, not the test's). */
void history_learn(struct history *h, const char *config, const struct test_result *t);

/* A config's tests by the file alone: their total (tests it does not know at its median) and that median. */
struct history_config {
	json_t *tests; /* test -> seconds (borrowed), or NULL */
	double median;
	double total; /* one iteration's; < 0: the file knows none of them */
};

void history_config(const struct history *h, const char *config, const struct selection *sel,
		    struct history_config *ret);

/* Start a round of total test time by the file (< 0: none), of which done of tests tests are done already. */
void history_round(struct history *h, double total, size_t done, size_t tests);

/* Take share (a config not run) off the round's estimate. */
void history_drop(struct history *h, double share);

/*
 * t finished under the config hc describes: the round's test time left,
 * scaled by how this run's tests compare with the file so far; < 0 when
 * there is no estimate.
 */
double history_left_after(struct history *h, const struct history_config *hc, const struct test_result *t);
