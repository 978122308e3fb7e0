/* SPDX-License-Identifier: MIT */
/*
 * Expunge upkeep: from many bundles, the expunge rules the evidence asks
 * for, and the current rules it says can go.
 *
 * A test fails consistently on a config and kernel when at least min_rate
 * of its runs there failed (runs: passes and failures, as in compare.h).
 * Its rule gets a kernel range only where the evidence draws one (kernel>=
 * the first failing release when it passed on older ones, kernel<= the
 * last when it passed on newer ones) and a config= list only when it ran
 * elsewhere without failing so; the comment, which expunge files require,
 * gives the failures, runs and releases observed. A current rule can go
 * when the tests it matches (on the configs and kernels of the bundles) ran
 * at least min_runs times without a failure; rules with arch= or cap=
 * conditions are not judged (bundles do not say enough).
 */
#pragma once

#include <stdint.h>

#include <stdio.h>

#include "model/expunge.h"

struct upkeep;

struct upkeep_opts {
	double min_rate;   /* 0.9 */
	unsigned min_runs; /* 3 */
};

int upkeep_new(struct upkeep **ret);
void upkeep_free(struct upkeep *u);

/*
 * Add one run of test on config under kernel release: failed or not (runs
 * that were not run or expunged are not added). Returns 0 or -ENOMEM.
 */
int upkeep_add(struct upkeep *u, const char *config, const char *test, const char *release, uint64_t runs,
	       uint64_t fails);

/* Add path's bundles (a bundle or a directory holding them, as compare_add). */
int upkeep_add_bundles(struct upkeep *u, const char *path, char *err, size_t errsize);

/*
 * Write the suggested expunge file (it parses with expunge_parse) to out;
 * with current rules, a commented list of those that can go follows.
 * Returns the number of rules suggested, or -ENOMEM.
 */
int upkeep_write(struct upkeep *u, const struct upkeep_opts *o, const struct expunge_list *current, FILE *out);
