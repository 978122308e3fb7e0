/* SPDX-License-Identifier: MIT */
/*
 * Child processes, git run-command style. Fill a struct proc (PROC_INIT),
 * proc_start() forks and execs with everything prepared before fork; exec
 * failures come back over a close-on-exec pipe as -errno. Each child runs in
 * its own session/process group so a timeout can kill the whole tree.
 *
 * Lifecycle: PROC_INIT -> proc_start -> proc_wait (until it returns 0) ->
 * proc_release. proc_kill_group may be called between start and wait.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

struct proc {
	/* in */
	const char *const *argv; /* argv[0] is looked up in PATH if it has no '/' */
	const char *const *env;	 /* NULL: inherit */
	int stdin_fd;		 /* -1: /dev/null */
	int stdout_fd;		 /* -1: inherit */
	int stderr_fd;		 /* -1: inherit */
	const char *cwd;	 /* NULL: inherit */
	bool ctty;		 /* stdin (a terminal) becomes the new session's controlling terminal */
	bool new_mount_ns;	 /* a mount namespace of its own (private propagation): its mounts are its own */
	/* out */
	pid_t pid;
	int pidfd;
	int status; /* shell-style: exit code, or 128 + signal */
};

#define PROC_INIT                                                                        \
	{                                                                                \
		.stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1, .pid = -1, .pidfd = -1 \
	}

/* Start the child. Returns 0, or -errno from fork or exec (e.g. -ENOENT). */
int proc_start(struct proc *p);

/*
 * Wait up to timeout_ms (-1: forever) for the child to exit; sets p->status.
 * Returns 0, -ETIMEDOUT (child still running), or -errno.
 */
int proc_wait(struct proc *p, int timeout_ms);

/*
 * When process pid started (clock ticks after boot, /proc/PID/stat's 22nd
 * field): with the pid, it names one process, not a reused pid. Returns 0,
 * -ESRCH (no such process) or -errno.
 */
int proc_starttime(pid_t pid, unsigned long long *ret);

/*
 * This process's environment with each KEY=VALUE of sets (NULL-ended) in
 * place of KEY's entry: a strv for proc.env (strv_free it), NULL on no memory.
 */
char **proc_env_with(const char *const *sets);

/* Send sig to the child's process group. Returns 0 or -errno. */
int proc_kill_group(struct proc *p, int sig);

/* Close the pidfd. */
void proc_release(struct proc *p);

/*
 * Run argv to completion within timeout_ms; on timeout the group gets
 * SIGTERM, then SIGKILL after a grace period. *ret_status as above.
 * Returns 0 (the child ran; check status), -ETIMEDOUT or -errno.
 */
int proc_run(const char *const *argv, int timeout_ms, int *ret_status);
/* The same with its stdout and stderr on out_fd (-1: inherited). */
int proc_run_output(const char *const *argv, int out_fd, int timeout_ms, int *ret_status);

/*
 * Reap every child that has exited, without waiting (PID 1 adopts orphans);
 * those proc_start made keep their status for their proc_wait.
 */
void proc_reap_exited(void);
/* The same, telling whether want was among them (*status: its status; it is no one's to wait for). */
bool proc_sweep(pid_t want, int *status);
