/* SPDX-License-Identifier: MIT */
/*
 * Which tests reach what a change changes (fsagent coverage --diff): the
 * changed lines of a unified diff (model/patch.h) looked up in the lines
 * gcov instruments and the lines each test reached (coverage.h).
 *
 * The coverage kernel is one side of the diff: its base (the lines the
 * change removes or rewrites, "-") or, result_side, its result (the lines
 * it adds, "+"); rebase, when given, carries that side's line numbers back
 * to the coverage kernel's (a diff from the coverage kernel's source to
 * that side; a line it changed cannot be carried: "unmapped"). Lines
 * added on the other side only (a pure insertion) are judged once, by
 * this side's next line of code after the point they go in ("judged_by":
 * control passes that point to reach it). A changed line gcov does not instrument (a comment, a
 * declaration) is not code and counts for nothing.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "analysis/coverage.h"
#include "model/patch.h"

#define COVERAGE_DIFF_SCHEMA "fsagent-coverage-diff/1"

struct coverage_diff_opts {
	const char *name;	    /* the diff, as the output names it */
	bool result_side;	    /* the coverage kernel is the diff's result, not its base */
	const struct patch *rebase; /* the coverage kernel's source -> that side, or NULL: the same */
	bool by_time;		    /* rank and group by lines per second */
};

/*
 * The change against the coverage: every changed file's status
 * ("profiled", "not profiled", "not in the coverage data", "not on this
 * side", "binary"), every hunk's lines marked code or not and reached by
 * which tests, the tests ranked by changed lines reached, the smallest
 * (or fastest) group reaching every reached line, and the lines of code
 * no test reaches, by file and function. NULL on no memory.
 */
json_t *coverage_diff(struct coverage *c, const struct patch *p, const struct coverage_diff_opts *o);

void coverage_diff_text(json_t *res, FILE *out);
/* A self-contained page: the summary, the tests, the lines none reaches, each hunk's lines marked. */
void coverage_diff_html(json_t *res, FILE *out);
/* A plan file of the tests reaching the change (tests = ..., the group first). */
void coverage_diff_plan(json_t *res, FILE *out);
/* The same as a test list, one a line ('#' comments): check $(grep -v ^# FILE), fsagent-qualify's TEST... */
void coverage_diff_list(json_t *res, FILE *out);
