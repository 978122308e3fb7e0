/* SPDX-License-Identifier: MIT */
/*
 * Order-dependent failures reduced to their cause. A test that fails in a
 * random order but passes alone fails because of something a test before
 * it did; delta debugging (Zeller's ddmin) over the tests that ran before it
 * finds a minimal set that still makes it fail, each probe a fresh run of
 * some of them, in their order, with the suspect last. Probes are the
 * caller's (a fresh check, a fresh VM), bounded by a budget.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Run tests[0..n) in order (the suspect last). Returns 1 when the suspect failed, 0 when it passed, or -errno. */
typedef int (*reduce_probe)(void *data, char *const *tests, size_t n);

enum reduce_verdict {
	REDUCE_FOUND,	       /* culprits: the suspect fails after them, passes alone */
	REDUCE_FAILS_ALONE,    /* not order-dependent */
	REDUCE_NOT_REPRODUCED, /* passed after all the tests before it */
	REDUCE_BUDGET,	       /* culprits: the smallest failing set found before the budget ran out */
};

struct reduce_result {
	enum reduce_verdict verdict;
	char **culprits; /* strv, in their order; NULL unless FOUND or BUDGET */
	unsigned probes; /* probes made, the two checks included */
};

/*
 * Reduce before[0..n) for suspect with at most budget probes (>= 2).
 * Returns 0 with *ret filled (release with reduce_result_release), or the
 * first probe error.
 */
int reduce_order(char *const *before, size_t n, const char *suspect, unsigned budget, reduce_probe probe, void *data,
		 struct reduce_result *ret);

void reduce_result_release(struct reduce_result *r);

const char *reduce_verdict_to_string(enum reduce_verdict v);

/*
 * The results fsagent reduce keeps beside a bundle, order-dependence.json:
 * {"schema": REDUCE_SCHEMA, "reductions": [{config, test, iteration,
 * verdict, culprits, before, probes, command_runs, confirm_runs,
 * fails_with, fails_alone}]}.
 */
#define REDUCE_SCHEMA "fsagent-order/1"
#define REDUCE_FILE "order-dependence.json"

/* Load and check such a file (it sits in a bundle: anyone's). err names file and key. Returns 0 or -errno. */
int reduce_file_load(const char *path, json_t **ret, char *err, size_t es);

/* One reduction in words: "xfs/4k generic/123 fails after generic/045 (5 of 5), passes alone (5 of 5)". */
void reduce_print(json_t *res, FILE *out);
