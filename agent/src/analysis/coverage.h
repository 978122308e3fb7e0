/* SPDX-License-Identifier: MIT */
/*
 * Coverage-driven test selection, on the host: the .gcda files each test
 * saved (gcov.h, plan key coverage) become the source lines it covers
 * (gcov --json-format from Debian's gcc, against the .gcno files of the
 * kernel's build directory), and a greedy set cover picks the smallest or
 * the cheapest group of tests that covers a target share of all the lines
 * the run covered. Tests the cover leaves out but that have failed before
 * (a bundle history) are kept and flagged: coverage is not the only way a
 * test finds bugs.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/cover.h"

#define COVERAGE_SCHEMA "fsagent-coverage/1"

struct coverage;

int coverage_new(struct coverage **ret);
void coverage_free(struct coverage *c);

/*
 * Read the coverage the tests of path's bundles saved: gcov (gcov_tool, e.g.
 * "gcov") over each test's .gcda with the .gcno of build (the kernel's build
 * directory). Returns 0, -ENOENT (no test saved coverage) or -errno/-EBADMSG
 * with err naming the bundle, test or file.
 */
int coverage_add_bundles(struct coverage *c, const char *path, const char *build, const char *gcov_tool, char *err,
			 size_t errsize);

/*
 * The coverage that was lost: each .gcda a test saved that gcov could not
 * read (empty, cut short, refused by gcov), as [{test, bundle, file, why}],
 * left out of the lines. Borrowed; an empty array when none was lost.
 */
json_t *coverage_lost(const struct coverage *c);

/*
 * SIGINT, SIGTERM and SIGHUP stop the gcov running (its process group) and
 * make the reading return -EINTR ("stopped by a signal"), its scratch
 * directory removed on the way out.
 */
void coverage_stop_on_signals(void);

/*
 * Every line the .gcno files under build instrument (gcov without .gcda
 * files: none reached), so that files and functions no test touched are
 * known too (coverage --report, --diff). Returns 0 or -errno with err.
 */
int coverage_add_build(struct coverage *c, const char *build, const char *gcov_tool, char *err, size_t errsize);

/*
 * One line of gcov's data by hand (tests): file's line, in function fn
 * (NULL: none), instrumented; reached by test when test is not NULL and
 * count > 0. Returns 0 or -ENOMEM.
 */
int coverage_add_line(struct coverage *c, const char *test, const char *file, unsigned line, const char *fn,
		      long long count);

/* Tests that failed in path's bundles (any config): kept by the selection. */
int coverage_add_history(struct coverage *c, const char *path, char *err, size_t errsize);

/*
 * The selection reaching percent of the covered lines, by count of tests or
 * (by_time) by their durations: schema COVERAGE_SCHEMA, with the tests in
 * order, each one's lines and the lines it added, the kept bug finders, and
 * time and size against the whole group.
 */
json_t *coverage_select(struct coverage *c, double percent, bool by_time);

/* The selection as a test list: one test per line, '#' comments (check $(grep -v ^# FILE)). */
void coverage_write_list(json_t *result, FILE *out);
/* The same as a plan file (tests = ...), for fsagent-qemu --plan. */
void coverage_write_plan(json_t *result, FILE *out);
void coverage_text(json_t *result, FILE *out);
