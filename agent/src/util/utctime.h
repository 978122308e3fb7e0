/* SPDX-License-Identifier: MIT */
/*
 * UTC times the way fsagent writes them in bundles and plans:
 * "2026-12-05T06:56:35Z" (RFC 3339, seconds, Z); and the monotonic clock
 * that durations and deadlines are measured on.
 */
#pragma once

#include <stddef.h>

#define UTCTIME_SIZE 32

/* t (seconds since the epoch) as "YYYY-MM-DDTHH:MM:SSZ" into buf (UTCTIME_SIZE). */
void utctime_format(long long t, char *buf, size_t size);

/* Parse that form (strptime's, nothing after it). Returns 0 or -EINVAL. */
int utctime_parse(const char *s, long long *ret);

/* Seconds on CLOCK_MONOTONIC (durations, deadlines: never the wall clock). */
double utctime_monotonic(void);
