// SPDX-License-Identifier: MIT
/*
 * Process spawning (see proc.h). The child side only calls async-signal-safe
 * functions and ends in _exit.
 */
#include "util/proc.h"
#include "util/macro.h"
#include "strv.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static _noreturn_ void child(const struct proc *p, int errfd)
{
	int e, nullfd = -1;
	sigset_t empty;

	setsid();
	/* PID 1 blocks every signal; the child must start with a clean mask */
	sigemptyset(&empty);
	sigprocmask(SIG_SETMASK, &empty, NULL);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	if (p->stdin_fd < 0)
		nullfd = open("/dev/null", O_RDWR);
	if (dup2(p->stdin_fd >= 0 ? p->stdin_fd : nullfd, 0) < 0)
		goto fail;
	/* an interactive shell's job control wants its terminal as the session's */
	if (p->ctty && ioctl(0, TIOCSCTTY, 1) < 0)
		goto fail;
	if (p->stdout_fd >= 0 && dup2(p->stdout_fd, 1) < 0)
		goto fail;
	if (p->stderr_fd >= 0 && dup2(p->stderr_fd, 2) < 0)
		goto fail;
	if (p->cwd && chdir(p->cwd) < 0)
		goto fail;
	/* mounts of its own, which nobody else sees, and none of theirs coming in */
	if (p->new_mount_ns && (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0))
		goto fail;
	if (p->env)
		execvpe(p->argv[0], (char *const *)p->argv, (char *const *)p->env);
	else
		execvp(p->argv[0], (char *const *)p->argv);
fail:
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0) {
		/* the parent sees a short read and reports -EIO */
	}
	_exit(127);
}

/*
 * The children proc_start made and nobody has waited for yet. As PID 1,
 * fsagent reaps whatever exits (proc_reap_exited: orphans are its
 * children too), its own children included; their statuses are kept here
 * for their proc_wait. At most KEPT_MAX at once; beyond, a sweep may take a
 * status (proc_wait then says -ECHILD). Threads that each run a child
 * (parallel runners) share the table under kept_lock: whoever reaps a
 * child keeps its status before anyone may look for it.
 */
#define KEPT_MAX 64
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	pid_t pid;
	int status;
	bool exited;
} kept[KEPT_MAX];

static int kept_index(pid_t pid)
{
	for (int i = 0; i < KEPT_MAX; i++)
		if (kept[i].pid == pid)
			return i;
	return -1;
}

static void keep(pid_t pid)
{
	int i = kept_index(0);

	if (i >= 0)
		kept[i].pid = pid, kept[i].status = 0, kept[i].exited = false;
}

static void unkeep(pid_t pid)
{
	int i = pid > 0 ? kept_index(pid) : -1;

	if (i >= 0)
		kept[i].pid = 0;
}

int proc_start(struct proc *p)
{
	int pipefd[2], e = 0;
	ssize_t n;

	if (!p->argv || !p->argv[0])
		return -EINVAL;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	p->pid = fork();
	if (p->pid < 0) {
		e = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return -e;
	}
	if (p->pid == 0)
		child(p, pipefd[1]);
	close(pipefd[1]);
	do
		n = read(pipefd[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == sizeof(e)) {
		/* exec failed: reap the child now */
		waitpid(p->pid, NULL, 0);
		p->pid = -1;
		return -e;
	}
	p->pidfd = pidfd_open_(p->pid);
	pthread_mutex_lock(&kept_lock);
	keep(p->pid);
	pthread_mutex_unlock(&kept_lock);
	return 0;
}

static int reap(struct proc *p, bool block)
{
	int st;
	pid_t r;

	do
		r = waitpid(p->pid, &st, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == ECHILD) {
		/* reaped by a sweep: its status was kept (the sweeper held the lock until then) */
		int i;

		pthread_mutex_lock(&kept_lock);
		i = kept_index(p->pid);
		if (i < 0 || !kept[i].exited) {
			pthread_mutex_unlock(&kept_lock);
			return -ECHILD;
		}
		p->status = kept[i].status;
		kept[i].pid = 0;
		pthread_mutex_unlock(&kept_lock);
		p->pid = -1;
		return 0;
	}
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	pthread_mutex_lock(&kept_lock);
	unkeep(p->pid);
	pthread_mutex_unlock(&kept_lock);
	p->pid = -1;
	return 0;
}

int proc_wait(struct proc *p, int timeout_ms)
{
	struct pollfd pfd;
	int r;

	if (p->pid < 0)
		return -ECHILD;
	if (p->pidfd < 0)
		return timeout_ms < 0 ? reap(p, true) : -ENOSYS;
	pfd.fd = p->pidfd;
	pfd.events = POLLIN;
	do
		r = poll(&pfd, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	return reap(p, true);
}

int proc_kill_group(struct proc *p, int sig)
{
	if (p->pid <= 0)
		return -ESRCH;
	if (kill(-p->pid, sig) < 0)
		return -errno;
	return 0;
}

void proc_release(struct proc *p)
{
	pthread_mutex_lock(&kept_lock);
	unkeep(p->pid);
	pthread_mutex_unlock(&kept_lock);
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
}

int proc_run(const char *const *argv, int timeout_ms, int *ret_status)
{
	return proc_run_output(argv, -1, timeout_ms, ret_status);
}

int proc_run_output(const char *const *argv, int out_fd, int timeout_ms, int *ret_status)
{
	struct proc p = PROC_INIT;
	int r;

	p.argv = argv;
	p.stdout_fd = out_fd;
	p.stderr_fd = out_fd;
	r = proc_start(&p);
	if (r < 0)
		return r;
	r = proc_wait(&p, timeout_ms);
	if (r == -ETIMEDOUT) {
		proc_kill_group(&p, SIGTERM);
		if (proc_wait(&p, 2000) == -ETIMEDOUT) {
			proc_kill_group(&p, SIGKILL);
			proc_wait(&p, -1);
		}
		proc_release(&p);
		return -ETIMEDOUT;
	}
	proc_release(&p);
	if (r == 0 && ret_status)
		*ret_status = p.status;
	return r;
}

bool proc_sweep(pid_t want, int *status)
{
	bool found = false;
	int w;

	pthread_mutex_lock(&kept_lock);
	/* another thread's sweep may have reaped it already */
	if (want > 0 && (w = kept_index(want)) >= 0 && kept[w].exited) {
		*status = kept[w].status;
		kept[w].pid = 0;
		found = true;
	}
	for (;;) {
		siginfo_t si;
		int st, i;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
			break;
		st = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
		i = kept_index(si.si_pid);
		if (si.si_pid == want) {
			*status = st;
			found = true;
			if (i >= 0)
				kept[i].pid = 0;
		} else if (i >= 0) {
			/* one of ours: its status kept for its proc_wait */
			kept[i].status = st;
			kept[i].exited = true;
		}
	}
	pthread_mutex_unlock(&kept_lock);
	return found;
}

void proc_reap_exited(void)
{
	proc_sweep(0, NULL);
}

char **proc_env_with(const char *const *sets)
{
	char **env = NULL;

	for (char **e = environ; e && *e; e++) {
		size_t klen = strcspn(*e, "=");
		bool replaced = false;

		for (const char *const *x = sets; x && *x && !replaced; x++)
			replaced = strncmp(*e, *x, klen + 1) == 0;
		if (!replaced && strv_push(&env, *e) < 0)
			goto fail;
	}
	for (const char *const *x = sets; x && *x; x++)
		if (strv_push(&env, *x) < 0)
			goto fail;
	return env ? env : calloc(1, sizeof(*env));
fail:
	strv_free(env);
	return NULL;
}

int proc_starttime(pid_t pid, unsigned long long *ret)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ESRCH;
	buf[n] = '\0';
	/* after the command's closing parenthesis: state is field 3, starttime field 22 */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			 ret) != 1)
		return -EBADMSG;
	return 0;
}
