/* SPDX-License-Identifier: MIT */
/*
 * How much of the profiled source a run reached (fsagent coverage
 * --report): per source file and per directory, the lines gcov instruments
 * and those some test reached, from coverage.h's data (with
 * coverage_add_build, files no test touched count too).
 */
#pragma once

#include <jansson.h>
#include <stdio.h>

#include "analysis/coverage.h"

#define COVERAGE_REPORT_SCHEMA "fsagent-coverage-report/1"

/* {schema, lines_code, lines_reached, dirs: [{path, lines_code, lines_reached}], files: [...]}, or NULL */
json_t *coverage_report(struct coverage *c);
void coverage_report_text(json_t *res, FILE *out);
