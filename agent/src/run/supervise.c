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
	bool started; /* a step that ran (its stop command undoes it) */
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

/* Start daemon d and wait until its probe answers. */
static int start_one(struct supervisor *s, struct daemon *d, char *why, size_t ws)
{
	const struct daemon_spec *sp = d->spec;
	char path[PATH_MAX + 64], last[512];
	double deadline = utctime_monotonic() + s->ready_ms / 1000.0;
	int fd, quiet, r, st = 0;

	log_path(s, sp->name, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		snprintf(why, ws, "%s: cannot open its log %s: %s", sp->name, path, strerror(-r));
		return r;
	}
	if (sp->oneshot) {
		r = proc_run_output(sp->argv, fd, (int)s->ready_ms, &st);
		close(fd);
		d->started = true; /* even a failed step may have half done its work */
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
	quiet = open("/dev/null", O_WRONLY | O_CLOEXEC);
	for (r = 0;;) {
		int pr = 0, w = proc_wait(&d->p, 0);

		/* exited; or gone without a status, reaped by PID 1's sweep of orphans */
		if (w != -ETIMEDOUT) {
			if (w < 0)
				d->p.status = -1;
			d->running = false;
			supervise_last_lines(path, 3, last, sizeof(last));
			snprintf(why, ws, "%s exited with status %d before it answered; its last lines: %s", sp->name,
				 d->p.status, last);
			proc_release(&d->p);
			r = -ECHILD;
			break;
		}
		/* the probe's complaints while the daemon comes up are not the daemon's */
		if (!sp->ready || (proc_run_output(sp->ready, quiet, 5000, &pr) == 0 && pr == 0))
			break;
		if (utctime_monotonic() > deadline) {
			supervise_last_lines(path, 3, last, sizeof(last));
			snprintf(why, ws, "%s did not answer in %u ms; its last lines: %s", sp->name, s->ready_ms,
				 last);
			r = -ETIMEDOUT;
			break;
		}
		nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	}
	if (quiet >= 0)
		close(quiet);
	close(fd);
	return r;
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
		char path[PATH_MAX + 64];
		int st = 0, fd;

		if (!d->running && !(d->started && d->spec->stop))
			continue;
		log_path(s, d->spec->name, path, sizeof(path));
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (d->spec->stop) {
			int r = proc_run_output(d->spec->stop, fd, (int)s->ready_ms, &st);

			if (fd >= 0)
				dprintf(fd, "-- fsagent: %s: %s %d\n", d->spec->stop[0],
					r < 0 ? strerror(-r) : "status", r < 0 ? 0 : st);
			d->started = false;
		}
		if (d->running) {
			proc_kill_group(&d->p, SIGTERM);
			if (proc_wait(&d->p, 5000) == -ETIMEDOUT) {
				proc_kill_group(&d->p, SIGKILL);
				proc_wait(&d->p, -1);
			}
			/* the end of its log says it was stopped, not that it died */
			if (fd >= 0)
				dprintf(fd, "-- fsagent: stopped (status %d)\n", d->p.status);
			proc_release(&d->p);
			d->running = false;
		}
		if (fd >= 0)
			close(fd);
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
