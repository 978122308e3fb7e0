/* SPDX-License-Identifier: MIT */
/*
 * What each round of a qualification runs: DIR/plan, the plan everything
 * starts from (with the files it names), and round K's plans for each side,
 * written into DIR/round-K.new and renamed to DIR/round-K, so that a round
 * is there whole or not at all. Round 0 runs every test (the candidate
 * clean_runs times, weighted per config; the baseline baseline_runs); a
 * later round only the tests that want runs on that side, each config kept
 * to its own by an expunge file.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/qualify_loop.h"

extern const char *const qualify_sides[2]; /* "baseline", "candidate" */

/* DIR/plan from plan_arg at the start, the same or none when going on; the weights. Returns 0 or -errno (logged). */
int qualify_plan_setup(struct qualify_run *q, const char *plan_arg);

/*
 * Round k's plans from judged (NULL for round 0), left runs of the budget
 * to spend. *none when no side wants a run (nothing written). Returns 0 or
 * -errno (logged).
 */
int qualify_plan_round(struct qualify_run *q, unsigned k, json_t *judged, uint64_t left, bool *none);

/* The plan in DIR/plan (made by qualify_plan_setup), its files copied into to. Returns 0 or -errno (logged). */
int qualify_plan_copy_files(const char *dir, const char *to);
