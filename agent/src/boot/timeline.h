/* SPDX-License-Identifier: MIT */
/*
 * The boot's timeline: named events with their CLOCK_BOOTTIME milliseconds,
 * kept in time order (udev's settle time comes when it is read), written to
 * caps.json at the end.
 */
#pragma once

#include <jansson.h>
#include <stddef.h>

#define TIMELINE_MAX 32

struct timeline {
	struct {
		const char *event; /* a string literal */
		long ms;
	} v[TIMELINE_MAX];
	size_t n;
};

/* Milliseconds since boot (CLOCK_BOOTTIME). */
long boottime_ms(void);

/* Add event at ms, in time order, and log it; beyond TIMELINE_MAX only logged. */
void timeline_mark_at(struct timeline *t, const char *event, long ms);

/* Add event now. */
void timeline_mark(struct timeline *t, const char *event);

/* [{"event": E, "ms": N}, ...] */
json_t *timeline_to_json(const struct timeline *t);
