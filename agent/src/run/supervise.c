// SPDX-License-Identifier: MIT
/*
 * Daemons started in order, kept running, stopped (see supervise.h).
 */
#include "run/supervise.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/proc.h"
#include "util/utctime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct daemon {
	const struct daemon_spec *spec;
	struct proc p;
	bool running;
};

struct supervisor {
	char logdir[PATH_MAX];
	unsigned ready_ms;
	struct daemon *d;
	size_t n;
};

int supervisor_new(const char *logdir, unsigned ready_ms, struct supervisor **ret)
{
	struct supervisor *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	snprintf(s->logdir, sizeof(s->logdir), "%s", logdir);
	s->ready_ms = ready_ms;
	*ret = s;
	return 0;
}

void supervise_last_lines(const char *path, unsigned n, char *buf, size_t size)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0, w = 0;
	const char *p;
	unsigned seen = 0;

	buf[0] = '\0';
	if (fileio_read_full(path, &text, &len) < 0 || !len)
		return;
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	/* back to the start of the n-th line from the end */
	for (p = text + len; p > text; p--)
		if (p[-1] == '\n' && ++seen == n)
			break;
	for (; *p; p++) {
		if (*p == '\n') {
			if (w + 4 >= size)
				break;
			memcpy(buf + w, " | ", 3);
			w += 3;
			continue;
		}
		if (w + 1 >= size)
			break;
		buf[w++] = (*p >= 0x20 && *p != 0x7f) || *p == '\t' ? *p : '?';
	}
	buf[w < size ? w : size - 1] = '\0';
}

static void log_path(const struct supervisor *s, const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s.log", s->logdir, name);
}

/* Run argv with its output appended to the log fd; -1 on -errno, else 0 with *ret_status. */
static int run_step(const char *const *argv, int fd, int timeout_ms, int *status)
{
	struct proc p = PROC_INIT;
	int r;

	p.argv = argv;
	p.stdout_fd = fd;
	p.stderr_fd = fd;
	r = proc_start(&p);
	if (r < 0)
		return r;
	r = proc_wait(&p, timeout_ms);
	if (r == -ETIMEDOUT) {
		proc_kill_group(&p, SIGKILL);
		proc_wait(&p, -1);
	}
	*status = p.status;
	proc_release(&p);
	return r;
}

/* Start daemon d and wait until its probe answers. */
static int start_one(struct supervisor *s, struct daemon *d, char *why, size_t ws)
{
	const struct daemon_spec *sp = d->spec;
	char path[PATH_MAX + 64], last[512];
	double deadline = utctime_monotonic() + s->ready_ms / 1000.0;
	int fd, r, st = 0;

	log_path(s, sp->name, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		snprintf(why, ws, "%s: cannot open its log %s: %s", sp->name, path, strerror(-r));
		return r;
	}
	if (sp->oneshot) {
		r = run_step(sp->argv, fd, (int)s->ready_ms, &st);
		close(fd);
		if (r == 0 && st == 0)
			return 0;
		supervise_last_lines(path, 3, last, sizeof(last));
		if (r == -ETIMEDOUT)
			snprintf(why, ws, "%s did not finish in %u ms; its last lines: %s", sp->name, s->ready_ms,
				 last);
		else if (r < 0)
			snprintf(why, ws, "%s cannot run: %s", sp->name, strerror(-r));
		else
			snprintf(why, ws, "%s exited with status %d; its last lines: %s", sp->name, st, last);
		return r < 0 ? r : -ECHILD;
	}
	d->p = (struct proc)PROC_INIT;
	d->p.argv = sp->argv;
	d->p.stdout_fd = fd;
	d->p.stderr_fd = fd;
	r = proc_start(&d->p);
	if (r < 0) {
		close(fd);
		snprintf(why, ws, "%s cannot start: %s", sp->name, strerror(-r));
		return r;
	}
	d->running = true;
	for (;;) {
		int pr = 0, w = proc_wait(&d->p, 0);

		/* exited; or gone without a status, reaped by PID 1's sweep of orphans */
		if (w != -ETIMEDOUT) {
			if (w < 0)
				d->p.status = -1;
			d->running = false;
			close(fd);
			supervise_last_lines(path, 3, last, sizeof(last));
			snprintf(why, ws, "%s exited with status %d before it answered; its last lines: %s", sp->name,
				 d->p.status, last);
			proc_release(&d->p);
			return -ECHILD;
		}
		if (!sp->ready || (run_step(sp->ready, fd, 5000, &pr) == 0 && pr == 0))
			break;
		if (utctime_monotonic() > deadline) {
			close(fd);
			supervise_last_lines(path, 3, last, sizeof(last));
			snprintf(why, ws, "%s did not answer in %u ms; its last lines: %s", sp->name, s->ready_ms,
				 last);
			return -ETIMEDOUT;
		}
		nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	}
	close(fd);
	return 0;
}

int supervisor_start(struct supervisor *s, const struct daemon_spec *d, size_t n, char *why, size_t ws)
{
	struct daemon *nv = realloc(s->d, (s->n + n) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	s->d = nv;
	for (size_t i = 0; i < n; i++) {
		struct daemon *x = &s->d[s->n];
		int r;

		*x = (struct daemon){ .spec = &d[i], .p = PROC_INIT };
		s->n++;
		r = start_one(s, x, why, ws);
		if (r < 0)
			return r;
	}
	return 0;
}

int supervisor_check(struct supervisor *s, char *why, size_t ws)
{
	int died = 0;
	size_t w = 0;

	why[0] = '\0';
	for (size_t i = 0; i < s->n; i++) {
		struct daemon *d = &s->d[i];
		char path[PATH_MAX + 64], last[512], again[512] = "";
		int r;

		if (!d->running || (r = proc_wait(&d->p, 0)) == -ETIMEDOUT)
			continue;
		if (r < 0)
			d->p.status = -1; /* reaped by PID 1's sweep of orphans: no status */
		d->running = false;
		died++;
		log_path(s, d->spec->name, path, sizeof(path));
		supervise_last_lines(path, 3, last, sizeof(last));
		if (w < ws)
			w += (size_t)snprintf(why + w, ws - w, "%s%s died (status %d); its last lines: %s",
					      w ? "; " : "", d->spec->name, d->p.status, last);
		proc_release(&d->p);
		r = start_one(s, d, again, sizeof(again));
		if (r < 0) {
			if (w < ws)
				snprintf(why + w, ws - w, "; started again: %s", again);
			return r;
		}
	}
	return died;
}

void supervisor_stop(struct supervisor *s)
{
	for (size_t i = s->n; i-- > 0;) {
		struct daemon *d = &s->d[i];

		if (!d->running)
			continue;
		proc_kill_group(&d->p, SIGTERM);
		if (proc_wait(&d->p, 5000) == -ETIMEDOUT) {
			proc_kill_group(&d->p, SIGKILL);
			proc_wait(&d->p, -1);
		}
		proc_release(&d->p);
		d->running = false;
	}
}

void supervisor_free(struct supervisor *s)
{
	if (!s)
		return;
	supervisor_stop(s);
	free(s->d);
	free(s);
}
