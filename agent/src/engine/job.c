// SPDX-License-Identifier: MIT
/*
 * Jobs started in their own sessions and stopped with the loop (see job.h).
 */
#include "engine/job.h"
#include "util/log.h"
#include "util/macro.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JOBS_MAX 8

/* the process groups running, for the signal handler */
static volatile pid_t running[JOBS_MAX];

static void stop_jobs(int sig)
{
	for (int i = 0; i < JOBS_MAX; i++)
		if (running[i] > 0)
			kill(-running[i], SIGTERM);
	signal(sig, SIG_DFL);
	raise(sig);
}

void job_stop_on_signals(void)
{
	signal(SIGINT, stop_jobs);
	signal(SIGTERM, stop_jobs);
	signal(SIGHUP, stop_jobs);
}

static void track(pid_t pid, pid_t with)
{
	for (int i = 0; i < JOBS_MAX; i++)
		if (running[i] == with) {
			running[i] = pid;
			return;
		}
}

int job_start(struct job *j, char *const *argv, const char *const *env, const char *log, bool truncate)
{
	int r;

	/* the child inherits the environment as it is at fork */
	for (const char *const *e = env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		_cleanup_free_ char *name = eq ? strndup(*e, (size_t)(eq - *e)) : NULL;

		if (!name)
			return -EINVAL;
		if (setenv(name, eq + 1, 1) < 0)
			return -errno;
	}
	if (log) {
		j->log_fd = open(log, O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : O_APPEND), 0644);
		if (j->log_fd < 0) {
			r = -errno;
			log_err("open '%s' failed: %m", log);
			return r;
		}
	}
	j->p = (struct proc)PROC_INIT;
	j->p.argv = (const char *const *)argv;
	j->p.stdout_fd = j->log_fd;
	j->p.stderr_fd = j->log_fd;
	r = proc_start(&j->p);
	if (r < 0) {
		log_err("'%s' failed to start: %s", argv[0], strerror(-r));
		if (j->log_fd >= 0)
			close(j->log_fd);
		j->log_fd = -1;
		return r;
	}
	j->started = true;
	track(j->p.pid, 0);
	return 0;
}

int job_wait(struct job *j)
{
	return job_wait_for(j, 0);
}

int job_wait_for(struct job *j, unsigned seconds)
{
	pid_t pid = j->p.pid; /* proc_wait forgets it once reaped */
	int r = proc_wait(&j->p, seconds ? (int)(seconds > INT_MAX / 1000 ? INT_MAX : seconds * 1000) : -1);

	if (r == -ETIMEDOUT) {
		if (j->log_fd >= 0)
			dprintf(j->log_fd, "\nfsagent: stopped at its time limit of %u s\n", seconds);
		proc_kill_group(&j->p, SIGTERM);
		if (proc_wait(&j->p, 10000) == -ETIMEDOUT) {
			proc_kill_group(&j->p, SIGKILL);
			proc_wait(&j->p, -1);
		}
		r = -ETIME;
	}

	track(0, pid);
	j->started = false;
	proc_release(&j->p);
	if (j->log_fd >= 0)
		close(j->log_fd);
	j->log_fd = -1;
	return r;
}

int job_run(char *const *argv, const char *const *env, const char *log, int *status)
{
	return job_run_for(argv, env, log, 0, status);
}

int job_run_for(char *const *argv, const char *const *env, const char *log, unsigned seconds, int *status)
{
	struct job j = JOB_INIT;
	int r = job_start(&j, argv, env, log, false);

	if (r == 0)
		r = job_wait_for(&j, seconds);
	*status = j.p.status;
	return r;
}
