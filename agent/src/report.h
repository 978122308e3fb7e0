/* SPDX-License-Identifier: MIT */
/*
 * Reading a bundle back: a human summary (counts per status per config,
 * failures with reasons, flaky tests, kernel findings, lockdep coverage)
 * and a JUnit XML export for CI systems. Pure functions over the parsed
 * bundle.json.
 */
#pragma once

#include <jansson.h>
#include <stdio.h>

/* Check the bundle's shape; on error err names the key. Returns 0 or -EBADMSG. */
int report_check_bundle(json_t *bundle, char *err, size_t errsize);

void report_text(json_t *bundle, FILE *out);
void report_junit(json_t *bundle, FILE *out);
