/* SPDX-License-Identifier: MIT */
/*
 * Jobs: the commands a loop runs (a runner, a probe, a build), each in its
 * own session (util/proc.h), out of reach of the terminal's ^C. A signal
 * that stops the loop stops them first: no job goes on writing into what
 * the next start runs again, and a batch system's or a watch's TERM
 * reaches everything the loop started.
 */
#pragma once

#include <stdbool.h>

#include "util/proc.h"

struct job {
	struct proc p;
	int log_fd;	  /* -1: the job's output is fsagent's */
	pid_t pump;	  /* the process that writes its output into the log, capped (util/logcap.h) */
	const char *echo; /* set before job_start: its progress lines also on fsagent's stdout, after this */
	bool echo_utc;	  /* ... each beginning with the UTC time */
	bool started;
};

#define JOB_INIT                                         \
	{                                                \
		.p = PROC_INIT, .log_fd = -1, .pump = -1 \
	}

/*
 * SIGINT, SIGTERM and SIGHUP stop every job running and wait for each to go
 * (a launcher on its way out keeps what its VM finished), then fsagent exits
 * with status: the command's "did not finish, run it again to go on".
 */
void job_stop_on_signals(int status);
/*
 * When a signal stops the jobs: rename from[i] to to[i] (i < n, at most 2)
 * before exiting, so that a page saying a step is under way is replaced by
 * one prepared without it. n = 0: nothing.
 */
void job_on_stop_rename(unsigned n, const char *const *from, const char *const *to);

/*
 * Start argv with env's NAME=VALUE strings (NULL-terminated, may be NULL)
 * set, its output appended to log (NULL: inherited; truncated first when
 * truncate) through a pump that keeps the log's head and tail
 * (util/logcap.h). Returns 0 or -errno (logged, naming the command).
 */
int job_start(struct job *j, char *const *argv, const char *const *env, const char *log, bool truncate);

/* Wait for the job, then forget it. Returns 0 with j->p.status set, or -errno. */
int job_wait(struct job *j);

/*
 * The same within seconds (0: no limit): past it the job's process group
 * gets SIGTERM, then SIGKILL 10 s on, and -ETIME is returned (the job gone).
 */
int job_wait_for(struct job *j, unsigned seconds);

/* job_start then job_wait: the exit status into *status. Returns 0 or -errno (logged). */
int job_run(char *const *argv, const char *const *env, const char *log, int *status);

/*
 * Keep the jobs running listed in path (pid, start time, a line each),
 * rewritten as they start and end: what a kill -9 of fsagent leaves running
 * is named there. The first call of a process wins (a watch's bisection
 * records in the watch's directory).
 */
void job_record_in(const char *path);

/*
 * The jobs path lists that still run (an earlier fsagent killed before it
 * could stop them): each process group stopped (TERM, then KILL when its
 * leader has not gone within grace seconds), so that no two writers share a
 * directory. Returns how many were stopped, or -errno.
 */
int job_stop_left(const char *path, unsigned grace);

/* job_run within seconds (0: no limit). Returns 0, -ETIME (stopped at the limit, said in log) or -errno. */
int job_run_for(char *const *argv, const char *const *env, const char *log, unsigned seconds, int *status);
/*
 * job_run_for with its progress lines on fsagent's stdout after echo, and a
 * line a minute while it prints none ("still running", util/logcap.h).
 */
int job_run_echo(char *const *argv, const char *const *env, const char *log, unsigned seconds, const char *echo,
		 bool utc, int *status);
