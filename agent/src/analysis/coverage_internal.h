/* SPDX-License-Identifier: MIT */
/*
 * What coverage.c reads and coverage_diff.c and coverage_report.c look
 * up: the lines gcov instruments (with their functions), the lines each
 * test reached, and the source root the gcov file names share.
 */
#pragma once

#include "analysis/coverage.h"
#include "util/strmap.h"

#include <stdint.h>

struct coverage_test {
	char *name;
	uint32_t *ids; /* lines reached (ids in coverage.lines), sorted and unique once read */
	size_t n, cap;
	double dur_total;
	unsigned records;
	char **configs;
	unsigned failures; /* in the history */
};

#define COVERAGE_NO_FN UINT32_MAX

struct coverage {
	struct strmap lines; /* "file:line" some test reached -> id */
	struct coverage_test *t;
	size_t nt, capt;
	unsigned records;   /* test records with coverage */
	struct strmap code; /* "file:line" gcov instruments -> id */
	uint32_t *code_fn;  /* by code id: its function's index in fns, or COVERAGE_NO_FN */
	size_t code_fn_cap;
	struct strmap fns;   /* function names */
	struct strmap files; /* gcov's source file names */
	char root[4096];     /* the directory they are under ("/usr/src/linux/"), or "" */
	json_t *lost;	     /* coverage lost: [{test, bundle, file, why}] */
	const char *bundle;  /* the bundle being read */
};

/* Each test's lines sorted and unique (after reading, before looking up). */
void coverage_settle(struct coverage *c);

/* A test's estimated seconds: its mean duration times the configs it ran in. */
double coverage_test_seconds(const struct coverage_test *t);

/* Whether test t reached covered line id. */
bool coverage_test_reached(const struct coverage_test *t, uint32_t id);

/* Text from a diff or the coverage data as JSON: bytes that are not UTF-8 become '?'. NULL on no memory. */
json_t *coverage_text_json(const char *s, size_t len);

/* A line gcov instruments (file, line, its function or NULL) into c; reached (count > 0) by t when t. 0 or -ENOMEM. */
int coverage_add_line_of(struct coverage *c, struct coverage_test *t, const char *file, long long line, const char *fn,
			 long long count);

/* One test record's saved coverage (abs: its directory, absent when it touched nothing) into t, through gcov. */
int coverage_gcov_test(struct coverage *c, struct coverage_test *t, const char *abs, const char *build,
		       const char *gcov_tool, char *err, size_t es);

/* A gcov file name relative to the source root (as a diff names it). */
const char *coverage_rel(const struct coverage *c, const char *file);
