/* SPDX-License-Identifier: MIT */
/*
 * A bundle's userspace record (machine/userspace.h writes it: fstests'
 * describe or commit, the image id, each filesystem tool's version words)
 * read back on the host: summarised, printed, and two sides' compared, so
 * that a difference in userspace is not taken for the kernel's. The record
 * is the guest's: only strings of bounded length are taken from it.
 */
#pragma once

#include <jansson.h>
#include <stdio.h>

/*
 * {"fstests": "v2026.01.05" (describe, else commit, else content id, else
 * null), "image": id or null, "tools": {name: version}} of a record (NULL:
 * an older bundle without one: all null and empty).
 */
json_t *provenance_summary(json_t *userspace);

/* One line: "fstests v2026.01.05, image 1a2b...; mkfs.xfs version 6.1.0, ..." ("not recorded" without a record). */
void provenance_text(json_t *userspace, FILE *out);

/*
 * What differs between two sides' summaries (arrays of distinct
 * summaries): [{"what": "fstests" | "image" | tool, "baseline": [values],
 * "candidate": [values]}], where the sets of values differ. A field no
 * bundle of a side recorded is left out: an old bundle is no difference.
 */
json_t *provenance_diff(json_t *baseline, json_t *candidate);

/* Add summary to a side's array unless an equal one is there. */
void provenance_add(json_t *side, json_t *summary);
