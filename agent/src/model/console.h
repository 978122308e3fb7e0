/* SPDX-License-Identifier: MIT */
/*
 * The guest-to-host console protocol: the lines fsagent prints on the VM's
 * serial console for the host to follow, defined once. The agent formats
 * them here (run.c, session.c, finish.c) and the host parses them here
 * (fsagent console); documents travel framed (frame.h).
 *
 *   fsagent: plan: N tests to run (C configs x I iterations)[, ...]
 *   fsagent: [K/N] CONFIG TEST: STATUS (S.Ss[; ~Rs left])[: REASON]
 *     (R: the test time the rest will take by the durations history, when the plan has one)
 *   fsagent: warning: CONFIG TEST: crash: resuming after it
 *   fsagent: final status: OK|TESTS FAILED|NOTHING RAN|FATAL[: SUMMARY]; ACTION at MS ms
 *
 * plus the kernel's own "Linux version" banner (one per boot) and "Kernel
 * panic - not syncing". A line may carry the kernel's "[ seconds] " stamp
 * and the serial port's CR. Everything on the console is the guest's:
 * parsing is bounded and never trusts a field's length.
 */
#pragma once

#include "model/result.h"

#include <stddef.h>

#define CONSOLE_PREFIX "fsagent: "
#define CONSOLE_PLAN "plan: "
#define CONSOLE_CRASH ": crash: resuming after it"
#define CONSOLE_FINAL "final status: "
#define CONSOLE_LINE_MAX 4096 /* longer lines are cut there */

enum console_kind {
	CONSOLE_OTHER,
	CONSOLE_BOOT,
	CONSOLE_PLAN_LINE,
	CONSOLE_PROGRESS,
	CONSOLE_CRASH_LINE,
	CONSOLE_PANIC,
	CONSOLE_FINAL_LINE
};

enum console_final { CONSOLE_OK, CONSOLE_TESTS_FAILED, CONSOLE_FATAL, CONSOLE_NOTHING_RAN, CONSOLE_FINAL_MAX };

struct console_event {
	enum console_kind kind;
	/* the message: after "fsagent: " (and "warning: "), or the kernel's line after its stamp */
	const char *text;
	size_t text_len;
	/* CONSOLE_PROGRESS */
	unsigned long done, total;
	char config[64], test[64];
	enum test_status status;
	double seconds;
	double left; /* seconds of tests left by their history; < 0 when the line says none */
	/* CONSOLE_FINAL_LINE */
	enum console_final final;
	char run_id[64]; /* the bundle's run id ("bundle runs/<id>"), "" when it names none */
};

/* Classify one line (without its newline) and fill ev. Returns ev->kind. */
enum console_kind console_parse_line(const char *line, size_t len, struct console_event *ev);

/* "OK", "TESTS FAILED", "FATAL", "NOTHING RAN". */
const char *console_final_word(enum console_final f);

/* The progress message (after CONSOLE_PREFIX). Returns 0 or -ENOBUFS (cut). */
int console_format_progress(char *buf, size_t size, size_t done, size_t total, const char *config, const char *test,
			    enum test_status st, double seconds, double left, const char *reason);

/* The final status message (after CONSOLE_PREFIX); summary may be "". Returns 0 or -ENOBUFS (cut). */
int console_format_final(char *buf, size_t size, enum console_final f, const char *summary, const char *action,
			 long ms);
