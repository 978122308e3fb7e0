// SPDX-License-Identifier: MIT
/*
 * Jobs started in their own sessions and stopped with the loop (see job.h).
 */
#include "engine/job.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/logcap.h"
#include "util/macro.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define JOBS_MAX 8

/* the process groups running, for the signal handler */
static volatile pid_t running[JOBS_MAX];

static int stop_status;

/* files a stop puts in place of others (rename is async-signal-safe): the pages without the step under way */
#define STOP_RENAMES 2
static char stop_from[STOP_RENAMES][PATH_MAX], stop_to[STOP_RENAMES][PATH_MAX];
static volatile sig_atomic_t stop_renames;

/*
 * Stop every job, wait until each and all it started have gone (a launcher
 * keeps what its VM finished on its way out: the next start reads it), say
 * so, and exit with the status that means "run it again to go on".
 * Async-signal-safe.
 */
static void stop_jobs(int sig)
{
	static const char said[] = "fsagent: stopped by a signal: its jobs were stopped and waited for; run it "
				   "again to go on\n";

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/*
	 * A job's own children outlive it when it dies of the signal (a probe's
	 * shell goes at once, its launcher still reading the results disk):
	 * as a subreaper they become ours, and every descendant is waited for,
	 * so that the next start finds what they kept.
	 */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (int i = 0; i < JOBS_MAX; i++)
		if (running[i] > 0)
			kill(-running[i], SIGTERM);
	/* five minutes at most: a process that ignores TERM must not hold the stop for ever */
	for (int t = 0; t < 3000; t++) {
		pid_t w = waitpid(-1, NULL, WNOHANG);

		if (w < 0 && errno != EINTR)
			break; /* ECHILD: none left */
		if (w == 0)
			nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	}
	for (int i = 0; i < stop_renames; i++)
		(void)rename(stop_from[i], stop_to[i]);
	(void)!write(STDERR_FILENO, said, sizeof(said) - 1);
	(void)sig;
	_exit(stop_status);
}

void job_on_stop_rename(unsigned n, const char *const *from, const char *const *to)
{
	stop_renames = 0;
	for (unsigned i = 0; i < n && i < STOP_RENAMES; i++) {
		snprintf(stop_from[i], sizeof(stop_from[i]), "%s", from[i]);
		snprintf(stop_to[i], sizeof(stop_to[i]), "%s", to[i]);
	}
	stop_renames = (sig_atomic_t)(n < STOP_RENAMES ? n : STOP_RENAMES);
}

void job_stop_on_signals(int status)
{
	stop_status = status;
	signal(SIGINT, stop_jobs);
	signal(SIGTERM, stop_jobs);
	signal(SIGHUP, stop_jobs);
}

static char record_path[PATH_MAX];

void job_record_in(const char *path)
{
	if (!record_path[0])
		snprintf(record_path, sizeof(record_path), "%s", path);
}

/* record_path rewritten from running[] (best effort: a job left unrecorded is only not stopped on resume) */
static void record(void)
{
	char text[JOBS_MAX * 48] = "";
	size_t len = 0;

	if (!record_path[0])
		return;
	for (int i = 0; i < JOBS_MAX; i++) {
		unsigned long long start;

		if (running[i] > 0 && proc_starttime(running[i], &start) == 0)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%d %llu\n", (int)running[i], start);
	}
	if (fileio_write_atomic(record_path, text, len) < 0)
		log_warn("cannot record the running jobs in '%s'", record_path);
}

static void track(pid_t pid, pid_t with)
{
	for (int i = 0; i < JOBS_MAX; i++)
		if (running[i] == with) {
			running[i] = pid;
			break;
		}
	record();
}

/* Whether pid still is the process that started at start. */
static bool same(pid_t pid, unsigned long long start)
{
	unsigned long long now;

	return proc_starttime(pid, &now) == 0 && now == start;
}

int job_stop_left(const char *path, unsigned grace)
{
	_cleanup_free_ char *text = NULL;
	int stopped = 0, r = fileio_read_full(path, &text, NULL);
	char *line, *save = NULL;

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start;
		int pid;

		if (sscanf(line, "%d %llu", &pid, &start) != 2 || pid <= 1 || !same(pid, start))
			continue;
		log_warn("%s: job %d, started by an fsagent that was killed, still runs: stopping its process group",
			 path, pid);
		kill(-pid, SIGTERM);
		for (unsigned t = 0; t < grace * 10 && same(pid, start); t++)
			usleep(100 * 1000);
		if (same(pid, start)) {
			/* a zombie keeps its /proc entry until its parent reaps it: 10 s at most */
			kill(-pid, SIGKILL);
			for (unsigned t = 0; t < 100 && same(pid, start); t++)
				usleep(100 * 1000);
		}
		stopped++;
	}
	return stopped;
}

/*
 * The pump of a job's log (util/logcap.h): a child of fsagent's that holds
 * nothing else open (not a state directory's lock: a kill -9 of fsagent
 * leaves the lock free), ignores the signals that stop the loop and ends
 * when the job's output does. Returns the pipe's end for the job, or -errno.
 */
static int start_pump(struct job *j)
{
	int fds[2], r;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	j->pump = fork();
	if (j->pump == 0) {
		int null = open("/dev/null", O_WRONLY), echo = j->echo ? fcntl(STDOUT_FILENO, F_DUPFD, 10) : -1;

		prctl(PR_SET_NAME, "fsagent-log");
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		if (null < 0 || dup2(fds[0], 0) < 0 || dup2(j->log_fd, 1) < 0 || dup2(null, 2) < 0 ||
		    (echo >= 0 && dup2(echo, 3) < 0))
			_exit(1);
		close_range(echo >= 0 ? 4 : 3, ~0U, 0);
		_exit(logcap_pump(0, 1, LOGCAP_HEAD, LOGCAP_TAIL,
				  echo >= 0 ? &(struct logcap_echo){ 3, j->echo, LOGCAP_QUIET, j->echo_utc } : NULL) <
		      0);
	}
	r = j->pump < 0 ? -errno : fds[1];
	close(fds[0]);
	if (r < 0)
		close(fds[1]);
	return r;
}

/* The pump gone once the job's output ended: 10 s for a process the job left holding it, then its tail is lost. */
static void wait_pump(struct job *j, const char *name)
{
	int pfd;

	if (j->pump <= 0)
		return;
	pfd = (int)syscall(SYS_pidfd_open, j->pump, 0);
	if (pfd >= 0 && poll(&(struct pollfd){ .fd = pfd, .events = POLLIN }, 1, 10000) == 0) {
		log_warn("'%s' ended, but a process it left holds its output open: its log's tail is lost", name);
		kill(j->pump, SIGKILL);
	}
	if (pfd >= 0)
		close(pfd);
	while (waitpid(j->pump, NULL, 0) < 0 && errno == EINTR)
		;
	j->pump = -1;
}

int job_start(struct job *j, char *const *argv, const char *const *env, const char *log, bool truncate)
{
	int r, out;

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
	out = j->log_fd >= 0 ? start_pump(j) : -1;
	if (out < -1) {
		log_err("cannot start the pump of '%s': %s", log, strerror(-out));
		close(j->log_fd);
		j->log_fd = -1;
		return out;
	}
	j->p.stdout_fd = out;
	j->p.stderr_fd = out;
	r = proc_start(&j->p);
	if (out >= 0)
		close(out);
	if (r < 0) {
		log_err("'%s' failed to start: %s", argv[0], strerror(-r));
		wait_pump(j, argv[0]);
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
		proc_kill_group(&j->p, SIGTERM);
		if (proc_wait(&j->p, 10000) == -ETIMEDOUT) {
			proc_kill_group(&j->p, SIGKILL);
			proc_wait(&j->p, -1);
		}
		r = -ETIME;
	}
	wait_pump(j, j->p.argv[0]);
	if (r == -ETIME && j->log_fd >= 0)
		dprintf(j->log_fd, "\nfsagent: stopped at its time limit of %u s\n", seconds);

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
	return job_run_echo(argv, env, log, seconds, NULL, false, status);
}

int job_run_echo(char *const *argv, const char *const *env, const char *log, unsigned seconds, const char *echo,
		 bool utc, int *status)
{
	struct job j = JOB_INIT;
	int r;

	j.echo = echo;
	j.echo_utc = utc;
	r = job_start(&j, argv, env, log, false);

	if (r == 0)
		r = job_wait_for(&j, seconds);
	*status = j.p.status;
	return r;
}
