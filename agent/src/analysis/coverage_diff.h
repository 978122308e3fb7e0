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

/* How one line of a hunk was judged (context lines, and lines of the other side that a block of this side's covers, are
 * not). */
struct coverage_diff_line {
	uint32_t at;	/* the coverage kernel's line it is judged by, 0: none */
	int32_t code;	/* at's id among the lines of code (coverage.code), -1: not code (or not judged) */
	int32_t id;	/* at's id among the lines some test reached (coverage.lines), -1: none did */
	bool judged_by; /* a pure insertion, judged by the next line of code (at) */
	bool unmapped;	/* not in the coverage kernel's source (rebase) */
};

struct coverage_diff_file {
	const struct patch_file *f;
	const char *path;   /* as shown: the new path, else the old */
	const char *status; /* "profiled", "not profiled", "not in the coverage data", "not source", "binary", ... */
	unsigned code, hit, unmapped;	  /* its changed lines of code, reached, not in the kernel's source */
	struct coverage_diff_line *lines; /* by f->lines' index; NULL unless profiled */
};

struct coverage_diff {
	/*
	 * All but the files: schema, diff, side, rebased, not_covered_files,
	 * unreached, tests, group, group_seconds, lines_code, lines_reached,
	 * lines_unmapped; a caller may add keys (written first).
	 */
	json_t *summary;
	const struct coverage *c;
	const struct patch *p;
	struct coverage_diff_file *files; /* by p->files' index */
	size_t nfiles;
};

/*
 * The change against the coverage: every changed file's status, every
 * changed line judged (code or not, reached or not), the tests ranked by
 * changed lines reached, the smallest (or fastest) group reaching every
 * reached line, and the lines of code no test reaches, by file and
 * function. c and p must outlive *ret. 0 or -ENOMEM.
 */
int coverage_diff(struct coverage *c, const struct patch *p, const struct coverage_diff_opts *o,
		  struct coverage_diff **ret);
void coverage_diff_free(struct coverage_diff *cd);
/* The function a judged line of code is in, or "". */
const char *coverage_diff_function(const struct coverage *c, const struct coverage_diff_line *dl);

/* The summary (cd->summary) as text, a plan file (tests = ..., the group first), a test list ('#' comments). */
void coverage_diff_text(json_t *summary, FILE *out);
void coverage_diff_plan(json_t *summary, FILE *out);
void coverage_diff_list(json_t *summary, FILE *out);
/*
 * The whole result as JSON, written as it goes (10^6 changed lines are
 * never a tree in memory): the summary's keys, then files: [{path, status,
 * lines_code, lines_reached, lines_unmapped, hunks: [{old_start, old_len,
 * new_start, new_len, section, lines: [{kind, old, new, text, at |
 * judged_by, code, function, tests, unmapped}]}]}], one line a line.
 * 0 or -ENOMEM (the output is then cut short).
 */
int coverage_diff_json(const struct coverage_diff *cd, FILE *out);
/* A self-contained page: the summary, the tests, the lines none reaches, each hunk's lines marked. */
int coverage_diff_html(const struct coverage_diff *cd, FILE *out);
