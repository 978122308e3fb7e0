/* SPDX-License-Identifier: MIT */
/*
 * A parser of fstests check's stdout, fed as bytes arrive. check prints a
 * test's name (padded) before running it, with no newline, so the running
 * test is the partial last line; the verdict completes that line, then an
 * indented diff excerpt may follow. Parsing is pure: events go to a
 * callback. check's summary is never trusted; the runner judges from these
 * events and the per-test files.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum checkout_verdict {
	CV_PASS,
	CV_NOTRUN,
	CV_EXPUNGED,
	CV_FAIL, /* output mismatch, exit status, dmesg, fsck, core */
	CV_UNKNOWN_TEST,
	CV_MAX
};

enum checkout_event_kind { CE_START, CE_RESULT, CE_EXCERPT, CE_AGGREGATE };

struct checkout_event {
	enum checkout_event_kind kind;
	const char *test;
	enum checkout_verdict verdict; /* CE_RESULT */
	long seconds;		       /* CE_RESULT pass: the time check measured, else -1 */
	const char *text;	       /* CE_RESULT: the verdict text; CE_EXCERPT: one line */
	unsigned fails, passes;	       /* CE_AGGREGATE */
};

typedef void (*checkout_cb)(void *data, const struct checkout_event *ev);

struct checkout {
	char line[8192];
	size_t len;
	bool started;	    /* a CE_START was sent for the partial line */
	char current[128];  /* the test whose result was last seen (for excerpts) */
	char *const *tests; /* the names check was asked to run, NULL-terminated */
	/* check's own words: its first lines that are no test's, no excerpt, no header or summary */
	char said[400];
	checkout_cb cb;
	void *data;
};

void checkout_init(struct checkout *p, char *const *tests, checkout_cb cb, void *data);
void checkout_feed(struct checkout *p, const char *buf, size_t len);
/* Flush a last line without newline (check died mid-line: only a START is known). */
void checkout_finish(struct checkout *p);

/* Parse a verdict text (after the name and time columns). */
enum checkout_verdict checkout_parse_verdict(const char *text, long *ret_seconds);
