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
	int log_fd; /* -1: the job's output is fsagent's */
	bool started;
};

#define JOB_INIT                             \
	{                                    \
		.p = PROC_INIT, .log_fd = -1 \
	}

/* SIGINT, SIGTERM and SIGHUP stop every job running, then fsagent as the signal would. */
void job_stop_on_signals(void);

/*
 * Start argv with env's NAME=VALUE strings (NULL-terminated, may be NULL)
 * set, its output appended to log (NULL: inherited; truncated first when
 * truncate). Returns 0 or -errno (logged, naming the command).
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

/* job_run within seconds (0: no limit). Returns 0, -ETIME (stopped at the limit, said in log) or -errno. */
int job_run_for(char *const *argv, const char *const *env, const char *log, unsigned seconds, int *status);
