// SPDX-License-Identifier: MIT
/*
 * The run loop (see runner.h): one poll over check's stdout, the kernel log
 * and check's pidfd, with the running test's deadline as the timeout. A
 * test's result is made final only when the next one starts or check ends,
 * after the kernel log has been drained, so reports that arrive after the
 * verdict line still count against the right test.
 */
#include "run/runner.h"
#include "machine/caps.h"
#include "model/checkout.h"
#include "model/kmsg_device.h"
#include "util/proc.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"
#include "util/sysroot.h"
#include "util/utctime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

/* shared by parallel runners (run/parallel.h), each a thread of its own */
static atomic_bool lockdep_is_off;
static atomic_ullong kmsg_lost_total;

bool runner_lockdep_off(void)
{
	return lockdep_is_off;
}

unsigned long long runner_kmsg_lost(void)
{
	return kmsg_lost_total;
}

static unsigned long long read_taint(void)
{
	unsigned long long v = 0;

	sysroot_read_u64(&v, "/proc/sys/kernel/tainted");
	return v;
}

struct run {
	const struct runner_opts *o;
	struct test_result *tests;
	size_t n;
	size_t first;		/* the first test of this check batch */
	ssize_t running;	/* index of the test check is running, -1 */
	ssize_t pending;	/* a test with a verdict awaiting finalisation */
	ssize_t kmsg_test;	/* the test the kernel log is attributed to */
	double started_at;	/* monotonic seconds */
	unsigned setup_timeout; /* the last batch's check was killed in its setup after this many s */
	int verdict_seen;	/* results seen for the running test (reruns repeat them) */
	struct kmsg_reader kmsg;
	bool have_kmsg;
	int stop;	      /* nonzero from on_result */
	char check_said[400]; /* the last batch's check in its own words (checkout.said) */
};

static ssize_t index_of(const struct run *r, const char *name)
{
	for (size_t i = r->first; i < r->n; i++)
		if (streq(r->tests[i].name, name))
			return (ssize_t)i;
	return -1;
}

static void append_log(struct test_result *t, const char *msg, size_t len)
{
	char *nb = realloc(t->kernel_log, t->kernel_log_len + len + 2);

	if (!nb)
		return;
	t->kernel_log = nb;
	memcpy(nb + t->kernel_log_len, msg, len);
	t->kernel_log_len += len;
	nb[t->kernel_log_len++] = '\n';
	nb[t->kernel_log_len] = '\0';
}

static void drain_kmsg(struct run *r)
{
	struct kmsg_record rec;
	char test[128];

	while (r->have_kmsg && kmsg_read(&r->kmsg, &rec) == 0) {
		enum kmsg_finding f;
		bool shared = false;

		if (kmsg_marker_test(rec.msg, rec.msg_len, test, sizeof(test)) == 0) {
			ssize_t i = index_of(r, test);

			/* beside other runners, their markers say nothing about this one's test */
			if (i < 0 && r->o->parallel)
				continue;
			r->kmsg_test = i;
			if (r->kmsg_test >= 0)
				r->tests[r->kmsg_test].without_lockdep = lockdep_is_off;
		}
		if (r->kmsg_test < 0)
			continue;
		if (r->o->parallel && rec.facility == 0) {
			/* a device's message is its runner's; one naming none is every test's in flight */
			char dev[64];

			if (kmsg_device(rec.msg, rec.msg_len, dev, sizeof(dev)) == 0) {
				if (!strv_contains((char *const *)r->o->devices, dev))
					continue;
			} else {
				shared = true;
			}
		}
		struct test_result *t = &r->tests[r->kmsg_test];

		append_log(t, rec.msg, rec.msg_len);
		/* reports come from the kernel; user space writing to /dev/kmsg does not count */
		if (rec.facility != 0)
			continue;
		f = kmsg_classify(rec.msg, rec.msg_len);
		if (f == KMSG_NONE)
			continue;
		if (f == KMSG_LOCKDEP_OFF)
			lockdep_is_off = true;
		t->findings[f]++;
		if (kmsg_finding_fails_test(f) && !t->first_report[0]) {
			snprintf(t->first_report, sizeof(t->first_report), "%.*s", (int)rec.msg_len, rec.msg);
			t->kernel_shared = shared;
		}
	}
}

static bool has_failing_finding(const struct test_result *t, enum kmsg_finding *ret)
{
	for (int f = 1; f < KMSG_FINDING_MAX; f++)
		if (t->findings[f] && kmsg_finding_fails_test((enum kmsg_finding)f)) {
			*ret = (enum kmsg_finding)f;
			return true;
		}
	return false;
}

/* Make test i's result final: kernel findings override a pass. */
static void finalize(struct run *r, ssize_t i)
{
	struct test_result *t;
	enum kmsg_finding f;

	if (i < 0)
		return;
	t = &r->tests[i];
	drain_kmsg(r);
	if (t->status == TS_PENDING)
		return;
	/* a taint the kernel took during the test is a finding of its own */
	if (r->have_kmsg) {
		unsigned long long added = read_taint() & ~t->taint_before;

		if (added) {
			char letters[32];

			caps_taint_letters(added, letters);
			t->findings[KMSG_TAINT]++;
			if (!t->first_report[0]) {
				snprintf(t->first_report, sizeof(t->first_report), "kernel taint added: %s", letters);
				/* the kernel's taint is one for every test in flight */
				t->kernel_shared = r->o->parallel;
			}
		}
	}
	if (has_failing_finding(t, &f) && (t->status == TS_PASS || t->status == TS_FAIL || t->status == TS_NOTRUN)) {
		if (t->status != TS_FAIL || !t->reason[0] || strstr(t->reason, "_check_dmesg"))
			snprintf(t->reason, sizeof(t->reason), "kernel %s%s: %s", kmsg_finding_to_string(f),
				 t->kernel_shared ? " (shared: it names no device, and other tests were running)" : "",
				 t->first_report);
		t->status = TS_FAIL;
	}
	if (r->pending == i)
		r->pending = -1;
	if (r->o->on_result && !r->stop)
		r->stop = r->o->on_result(r->o->data, t);
}

static void on_event(void *data, const struct checkout_event *ev)
{
	struct run *r = data;
	ssize_t i = index_of(r, ev->test);
	struct test_result *t;

	if (i < 0)
		return;
	t = &r->tests[i];
	switch (ev->kind) {
	case CE_START:
		if (r->running == i && r->verdict_seen)
			break; /* a rerun of the same test (-L) */
		if (r->pending >= 0 && r->pending != i)
			finalize(r, r->pending);
		r->running = i;
		r->verdict_seen = 0;
		r->started_at = utctime_monotonic();
		t->taint_before = read_taint();
		t->timeout = r->o->timeout_for ? r->o->timeout_for(r->o->data, t->name) : 0;
		if (r->o->on_start)
			r->o->on_start(r->o->data, t);
		break;
	case CE_RESULT:
		if (ev->verdict == CV_UNKNOWN_TEST) {
			t->status = TS_ERROR;
			snprintf(t->reason, sizeof(t->reason), "check: %s", ev->text);
			r->pending = i;
			break;
		}
		r->verdict_seen++;
		t->runs++;
		if (ev->verdict == CV_FAIL)
			t->fails++;
		if (r->verdict_seen > 1)
			break; /* reruns count; the first run decides the status */
		t->duration = utctime_monotonic() - r->started_at;
		t->status = ev->verdict == CV_PASS	 ? TS_PASS
			    : ev->verdict == CV_NOTRUN	 ? TS_NOTRUN
			    : ev->verdict == CV_EXPUNGED ? TS_EXPUNGED
							 : TS_FAIL;
		if (t->status == TS_NOTRUN) {
			/* checkout's text starts at "[not run]"; the reason after it, when there is one */
			const char *why = startswith(ev->text, "[not run]") ? ev->text + strlen("[not run]") : ev->text;

			snprintf(t->reason, sizeof(t->reason), "%s", why + strspn(why, " "));
		} else if (t->status == TS_FAIL)
			snprintf(t->reason, sizeof(t->reason), "%s", ev->text);
		r->pending = i;
		break;
	case CE_EXCERPT: {
		size_t len = t->excerpt ? strlen(t->excerpt) : 0, lines = 0, add = strlen(ev->text) + 1;

		for (const char *c = t->excerpt; c && *c; c++)
			lines += *c == '\n';
		/* the first lines of the diff, from the first run only */
		if (r->verdict_seen <= 1 && lines < 20 && len + add < TEST_EXCERPT_MAX) {
			char *nb = realloc(t->excerpt, len + add + 1);

			if (!nb)
				break;
			t->excerpt = nb;
			snprintf(nb + len, add + 1, "%s\n", ev->text);
		}
		break;
	}
	case CE_AGGREGATE:
		t->runs = ev->fails + ev->passes;
		t->fails = ev->fails;
		break;
	}
}

static int open_kmsg(struct run *r)
{
	const char *path = r->o->kmsg;

	if (path && !*path)
		return 0;
	if (path) {
		memset(&r->kmsg, 0, sizeof(r->kmsg));
		r->kmsg.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->kmsg.fd < 0)
			return -errno;
	} else if (kmsg_open(&r->kmsg) < 0) {
		return 0; /* no kernel log to read: judge by check alone */
	}
	kmsg_seek_end(&r->kmsg);
	r->have_kmsg = true;
	return 0;
}

static void sysrq(char c)
{
	char path[PATH_MAX];
	int fd;

	if (sysroot_path(path, sizeof(path), "/proc/sysrq-trigger") < 0)
		return;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, &c, 1) < 0) {
		/* the dump is a courtesy; the timeout stands without it */
	}
	close(fd);
}

/* Wait up to ms for every process of the group to be gone (reaping them). */
static bool group_gone(struct proc *p, unsigned ms)
{
	double deadline = utctime_monotonic() + ms / 1000.0;
	int st;

	while (utctime_monotonic() < deadline) {
		proc_sweep(p->pid, &st);
		if (kill(-p->pid, 0) < 0 && errno == ESRCH)
			return true;
		usleep(50000);
	}
	return false;
}

/* Wait up to ms for check to exit, reading its output meanwhile. */
static bool wait_exit(struct proc *p, struct checkout *co, int outfd, unsigned ms, int *status)
{
	double deadline = utctime_monotonic() + ms / 1000.0;
	char buf[4096];

	while (utctime_monotonic() < deadline) {
		struct pollfd pfd[2] = { { p->pidfd, POLLIN, 0 }, { outfd, POLLIN, 0 } };
		ssize_t n;

		poll(pfd, 2, 100);
		while ((n = read(outfd, buf, sizeof(buf))) > 0)
			checkout_feed(co, buf, (size_t)n);
		if (proc_sweep(p->pid, status))
			return true;
	}
	return false;
}

/* One check process over tests[first..n). Returns 0, RUNNER_UNKILLABLE or -errno. */
/* check's command line for the tests from first on (names: the tests alone); NULL on no memory. */
static void check_argv(struct run *r, size_t first, char ***argv, char ***names)
{
	const struct runner_opts *o = r->o;
	char lbuf[16];

	/*
	 * No -R xunit: check rewrites its whole report before every test
	 * (some 200 processes: one encode_xml per property), which doubled
	 * check's time for short tests under TCG (docs/benchmarks.md); no part
	 * of fsagent reads it, and fsagent report --xunit-dir writes the
	 * same shape from the bundle.
	 */
	strv_push(argv, "./check");
	strv_push(argv, "--exact-order");
	if (o->overlay)
		strv_push(argv, "-overlay");
	if (o->section) {
		strv_push(argv, "-s");
		strv_push(argv, o->section);
	}
	if (o->rerun_failures) {
		snprintf(lbuf, sizeof(lbuf), "%u", o->rerun_failures);
		strv_push(argv, "-L");
		strv_push(argv, lbuf);
	}
	for (size_t i = first; i < (o->one_per_check ? first + 1 : r->n); i++) {
		strv_push(argv, r->tests[i].name);
		strv_push(names, r->tests[i].name);
	}
}

/*
 * The running test passed its time limit: check has no timeouts, so the
 * whole process group gets TERM, then KILL, and the test its verdict.
 * Returns whether check and everything of the test went (false: a process
 * is stuck in the kernel).
 */
/* Blocked tasks dumped, check's whole group killed (TERM, then KILL); false when a process of it will not die. */
static bool kill_check(struct run *r, struct proc *p, struct checkout *co, int fd, int *status)
{
	const struct runner_opts *o = r->o;
	unsigned dead_wait = o->dead_wait_ms ? o->dead_wait_ms : 10000;
	bool exited;

	if (o->sysrq)
		sysrq('w');
	proc_kill_group(p, SIGTERM);
	exited = wait_exit(p, co, fd, o->kill_grace_ms ? o->kill_grace_ms : 5000, status);
	/* KILL the whole group even when check went: the test may not have */
	proc_kill_group(p, SIGKILL);
	if (!exited)
		exited = wait_exit(p, co, fd, dead_wait, status);
	if (exited && !group_gone(p, dead_wait))
		exited = false; /* a process of the test is stuck in the kernel */
	drain_kmsg(r);
	return exited;
}

static bool time_out(struct run *r, struct proc *p, struct checkout *co, int fd, unsigned limit, int *status)
{
	struct test_result *t = &r->tests[r->running];
	bool exited;

	log_warn("test '%s' timed out after %u s, killing check", t->name, limit);
	exited = kill_check(r, p, co, fd, status);
	t->status = TS_TIMEOUT;
	t->duration = utctime_monotonic() - r->started_at;
	snprintf(t->reason, sizeof(t->reason), "timed out after %u s%s", limit,
		 exited ? "" : "; did not die after SIGKILL (uninterruptible)");
	if (r->pending >= 0 && r->pending != r->running)
		finalize(r, r->pending);
	r->pending = r->running;
	finalize(r, r->running);
	return exited;
}

static int run_batch(struct run *r, size_t first)
{
	const struct runner_opts *o = r->o;
	char **argv = NULL, **names = NULL, **env, **sets = NULL, *ho = NULL;
	struct proc p = PROC_INIT;
	struct checkout co;
	int pipefd[2], status = -1, rc = 0;
	bool exited = false, killed = false, bad;
	char buf[4096];
	double batch_t0;

	r->first = first;
	r->setup_timeout = 0;
	r->running = r->pending = -1;
	check_argv(r, first, &argv, &names);
	if (!argv || !names || pipe2(pipefd, O_CLOEXEC) < 0) {
		strv_free(argv);
		strv_free(names);
		return -ENOMEM;
	}
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	checkout_init(&co, names, on_event, r);
	/* check reads its config from HOST_OPTIONS; it must be absolute (check cds) */
	bad = asprintf(&ho, "HOST_OPTIONS=%s", o->host_options) < 0;
	if (bad)
		ho = NULL; /* asprintf leaves it undefined */
	bad = bad || strv_push(&sets, ho) < 0;
	for (const char *const *x = o->env; x && *x; x++)
		bad |= strv_push(&sets, *x) < 0;
	env = bad ? NULL : proc_env_with((const char *const *)sets);
	free(ho);
	strv_free(sets);
	if (!env) {
		close(pipefd[0]);
		close(pipefd[1]);
		strv_free(argv);
		strv_free(names);
		return -ENOMEM;
	}
	p.env = (const char *const *)env;
	p.new_mount_ns = o->own_mounts;
	p.argv = (const char *const *)argv;
	p.stdout_fd = pipefd[1];
	p.stderr_fd = pipefd[1];
	p.cwd = o->fstests;
	rc = proc_start(&p);
	close(pipefd[1]);
	strv_free(env);
	if (rc < 0) {
		log_err("start '%s/check' failed: %s", o->fstests, strerror(-rc));
		close(pipefd[0]);
		strv_free(argv);
		strv_free(names);
		return rc;
	}
	batch_t0 = utctime_monotonic();
	while (!exited) {
		struct pollfd pfd[3] = { { pipefd[0], POLLIN, 0 },
					 { p.pidfd, POLLIN, 0 },
					 { r->have_kmsg ? r->kmsg.fd : -1, POLLIN, 0 } };
		/* before its first test, check's setup (mounting TEST_DEV) gets that test's limit */
		const bool setup = r->running < 0 && r->pending < 0 && r->tests[first].status == TS_PENDING;
		const size_t timed = setup ? first : (size_t)r->running;
		unsigned limit = (setup || r->running >= 0) && o->timeout_for
					 ? o->timeout_for(o->data, r->tests[timed].name)
					 : 0;
		int wait_ms = 1000;
		ssize_t n;

		if (limit) {
			double left = (setup ? batch_t0 : r->started_at) + limit - utctime_monotonic();

			if (left <= 0 && setup) {
				log_warn("check's setup outlived %u s before its first test (%s), killing check", limit,
					 r->tests[first].name);
				r->setup_timeout = limit;
				killed = true;
				exited = kill_check(r, &p, &co, pipefd[0], &status);
				if (!exited)
					rc = RUNNER_UNKILLABLE;
				break;
			}
			if (left <= 0) {
				killed = true;
				exited = time_out(r, &p, &co, pipefd[0], limit, &status);
				if (!exited)
					rc = RUNNER_UNKILLABLE;
				break;
			}
			wait_ms = left * 1000 < wait_ms ? (int)(left * 1000) + 1 : wait_ms;
		}
		poll(pfd, 3, wait_ms);
		while ((n = read(pipefd[0], buf, sizeof(buf))) > 0)
			checkout_feed(&co, buf, (size_t)n);
		drain_kmsg(r);
		if (proc_sweep(p.pid, &status)) {
			while ((n = read(pipefd[0], buf, sizeof(buf))) > 0)
				checkout_feed(&co, buf, (size_t)n);
			checkout_finish(&co);
			exited = true;
		}
		if (r->stop)
			break;
	}
	if (!exited && rc != RUNNER_UNKILLABLE) {
		proc_kill_group(&p, SIGKILL);
		wait_exit(&p, &co, pipefd[0], 10000, &status);
	}
	if (r->pending >= 0)
		finalize(r, r->pending);
	/* a test that started but got no verdict: check died under it */
	if (!killed && r->running >= 0 && r->tests[r->running].status == TS_PENDING) {
		struct test_result *t = &r->tests[r->running];

		t->status = TS_ERROR;
		t->duration = utctime_monotonic() - r->started_at;
		snprintf(t->reason, sizeof(t->reason), "check exited (status %d) during the test", status);
		r->pending = r->running;
		finalize(r, r->running);
	}
	log_debug("check batch from '%s' ended with status %d", r->tests[first].name, status);
	snprintf(r->check_said, sizeof(r->check_said), "%s", co.said);
	close(pipefd[0]);
	proc_release(&p);
	strv_free(argv);
	strv_free(names);
	return rc;
}

int runner_run(const struct runner_opts *o, struct test_result *tests, size_t n)
{
	struct run r = { .o = o, .tests = tests, .n = n, .running = -1, .pending = -1, .kmsg_test = -1 };
	size_t first = 0;
	int rc = open_kmsg(&r);

	if (rc < 0)
		return rc;
	while (first < n && !r.stop) {
		size_t next;

		if (o->before_check)
			o->before_check(o->data, tests[first].name);
		rc = run_batch(&r, first);
		if (rc != 0)
			break;
		/* go on after the last test that got a result */
		next = first;
		for (size_t i = first; i < n; i++)
			if (tests[i].status != TS_PENDING)
				next = i + 1;
		if (next == first) {
			/* check ran nothing at all (bad config, fatal error): stop here */
			for (size_t i = first; i < n; i++) {
				tests[i].status = TS_ERROR;
				if (r.setup_timeout)
					snprintf(tests[i].reason, sizeof(tests[i].reason),
						 "check's setup timed out after %u s, before its first test%s%s",
						 r.setup_timeout, r.check_said[0] ? ": " : "", r.check_said);
				else
					snprintf(tests[i].reason, sizeof(tests[i].reason),
						 "check ran no test of its batch%s%s", r.check_said[0] ? ": " : "",
						 r.check_said);
				if (o->on_result && !r.stop)
					r.stop = o->on_result(o->data, &tests[i]);
			}
			break;
		}
		first = next;
	}
	if (r.have_kmsg) {
		kmsg_lost_total += r.kmsg.lost;
		kmsg_close(&r.kmsg);
	}
	return rc;
}
