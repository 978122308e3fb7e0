/* SPDX-License-Identifier: MIT */
/*
 * fsagent track's status (schema fsagent-track/1, engine/track.h) as a
 * self-contained HTML page: one row per revision, the newest first, with
 * its build, verdict, regressions and their culprits, flakes, soak and
 * findings, and links to its qualification's and bisections' pages (paths
 * relative to the state directory, where the page lives).
 */
#pragma once

#include <jansson.h>
#include <stdio.h>

void track_html(json_t *status, FILE *out);
