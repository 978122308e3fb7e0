/* SPDX-License-Identifier: MIT */
/*
 * A log that cannot fill the disk: a job's output pumped from a pipe into
 * its log file, the first head bytes written as they come, the last tail
 * bytes kept in memory and written at the end, and what fell between them
 * named by a line in its place. A probe that prints 3 GB leaves a log of
 * head + tail bytes that still shows how it began and how it ended.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The caps of a job's log (engine/job.c): 32 MiB of its head, 32 MiB of its tail. */
#define LOGCAP_HEAD ((size_t)32 << 20)
#define LOGCAP_TAIL ((size_t)32 << 20)
/* A job's terminal says it still runs after this many seconds without progress. */
#define LOGCAP_QUIET 60

/*
 * Progress shown while a long job runs: each line of its output that is a
 * progress line ("[12/105] xfs/4k generic/004 pass", fsagent run's and the
 * launcher's, a "[  725.904] " stamp and "fsagent: " before it allowed) is
 * also written to fd after prefix, whole or not at all; a job quiet for long
 * is said to be still running, so a terminal never goes silent for hours.
 */
struct logcap_echo {
	int fd;
	const char *prefix;
	/*
	 * After this many seconds without a progress line (0: never), a line
	 * that the job still runs, with its last progress and how long ago:
	 * "round 1 baseline: still running, 3 min since [12/105] ...".
	 */
	unsigned quiet;
	bool utc; /* each line begins with the UTC time ("2026-12-07T01:02:03Z "): a loop that runs for weeks */
};

/*
 * Copy in to out until in's end, keeping head bytes and tail bytes as
 * above; progress lines echoed as echo says (NULL: none). Returns the
 * number of bytes cut (0: the log holds everything), or -errno (a failed
 * read or write; what was written stays).
 */
long long logcap_pump(int in, int out, size_t head, size_t tail, const struct logcap_echo *echo);

/* The progress part of a line ("[12/105] ..."), or NULL when it is no progress line. */
const char *logcap_progress(const char *line, size_t len);
