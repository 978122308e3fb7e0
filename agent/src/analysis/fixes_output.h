/* SPDX-License-Identifier: MIT */
/* fsagent fixes' answer (schema fsagent-fixes/1, engine/fixes.h) in words, for the terminal. */
#pragma once

#include <jansson.h>
#include <stdio.h>

void fixes_text(json_t *res, FILE *out);

/* A candidate's proof's runs (engine/fixes_prove.h): "0 of 40 runs fail with it (was 11 of 28)". */
void fixes_proof_runs(json_t *proof, FILE *out);

/* One self-contained HTML page of the same: the conclusion, the culprit, each candidate with how it applied and was
 * proven. */
void fixes_html(json_t *res, FILE *out);
