/* SPDX-License-Identifier: MIT */
/*
 * fsagent console: a run followed from the host through the VM's console log
 * (the protocol in model/console.h). Each finished test prints one line
 * with the counts so far, the elapsed time and an ETA: the test time the
 * guest says is left by the durations history (when the plan has one)
 * stretched by how wall time compared with test time so far, else the wall
 * time per finished test times the tests left; the plan, crashes, the guest's panics and the final status are
 * shown too, made printable (the console is the guest's). The watch counts
 * the kernel's boots, ends a VM that keeps rebooting without a final
 * status, and leaves what it saw as a small JSON state (schema
 * fsagent-watch/1) for the launcher.
 */
#pragma once

#include "model/console.h"
#include "model/result.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define WATCH_SCHEMA "fsagent-watch/1"

struct watch {
	FILE *out;
	double (*now)(void);	      /* the clock, s (a seam for tests) */
	double start;		      /* when the watch began */
	double tests_start;	      /* when the last plan line came: the tests' wall time starts there */
	unsigned long counts[TS_MAX]; /* finished tests by status, crashes from the crash lines */
	unsigned long done;	      /* progress lines */
	double spent;		      /* their durations, s */
	unsigned boots;		      /* "Linux version" banners */
	bool have_final, gave_up;
	enum console_final final;
	char final_text[512]; /* the final status line, printable */
	char run_id[64];
};

void watch_init(struct watch *w, FILE *out);

/* Take one console line (without its newline): print what it says, count it. */
void watch_line(struct watch *w, const char *line, size_t len);

/*
 * Read the console log at path: to its end when pid is 0, else as it grows
 * until process pid (QEMU) has gone. With max_boots, a VM past that many
 * boots without a final status gets SIGTERM. Returns 0 or -errno (path
 * unreadable).
 */
int watch_follow(struct watch *w, const char *path, pid_t pid, unsigned max_boots);

/* What the watch saw: run_id, final, final_line, boots, counts, gave_up. */
json_t *watch_state(const struct watch *w);

/* 0: final status OK; 1: TESTS FAILED; 3: FATAL, or no final status; 4: NOTHING RAN. */
int watch_exit_status(const struct watch *w);
