/* SPDX-License-Identifier: MIT */
/*
 * A bisection's outcome (schema BISECT_SCHEMA): the culprit (or the group
 * it is one of), its confidence, the rates, the runs, kernels and time
 * spent, every commit that ran or was skipped with its runs, failures and
 * posterior, and the decisions in order; as JSON, text and one
 * self-contained HTML page. Commit subjects are the repository's and are
 * escaped.
 */
#pragma once

#include <jansson.h>
#include <stdio.h>

#include "analysis/bisect.h"

/*
 * The document: line is the bisection's line ({tree, good, bad, tests,
 * config, commits: [{sha, subject}]}), b the engine after its last
 * bisect_next (st), verdict "found", "no-difference", "stuck" or "budget",
 * log the records in order. NULL on ENOMEM.
 */
json_t *bisect_output_doc(json_t *line, const struct bisect *b, const struct bisect_step *st, const char *verdict,
			  json_t *log, unsigned long runs, unsigned long kernels, double seconds);

void bisect_output_text(json_t *doc, FILE *out);
void bisect_output_html(json_t *doc, FILE *out);
