/* SPDX-License-Identifier: MIT */
/*
 * Reading a bundle back: a human summary (counts per status per config,
 * failures with reasons, flaky tests, kernel findings, lockdep coverage).
 * Pure functions over a bundle read whole by bundle_load(); JUnit is
 * junit.h's.
 */
#pragma once

#include <jansson.h>
#include <stdio.h>

void report_text(json_t *bundle, FILE *out);

/*
 * Add a bundle (read whole by bundle_load) to agg: per config and test,
 * runs, counts per status, total and longest duration, the same shape as a
 * soak bundle's "aggregate", which is taken as it is for the iterations it
 * covers. For a launcher's soak across boots. Returns 0 or -ENOMEM.
 */
int report_aggregate(json_t *agg, json_t *bundle);
