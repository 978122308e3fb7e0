// SPDX-License-Identifier: MIT
/*
 * supervise: daemons (shell scripts standing in for rpcbind, rpc.nfsd,
 * rpc.mountd) started in order, each waited for until its probe answers,
 * one that dies found and started again, one that never answers or exits
 * first named with its last lines, all stopped last-started first.
 */
#include "unit.h"
#include "run/supervise.h"
#include "util/fileio.h"
#include "util/macro.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

/* A daemon NAME: writes "start NAME" and its pid, is ready once its file is there, "stop NAME" on TERM. */
static const char *const *daemon_cmd(const char *name)
{
	static char scripts[4][512];
	static const char *argv[4][4];
	static int k;
	int i = k++ % 4;

	snprintf(scripts[i], sizeof(scripts[i]),
		 "cd %s; trap 'echo stop %s >>order; exit 0' TERM; echo start %s >>order; echo $$ >%s.pid; "
		 "echo %s says hello; touch ready-%s; while :; do sleep 0.05; done",
		 unit_dir, name, name, name, name, name);
	argv[i][0] = "/bin/sh";
	argv[i][1] = "-c";
	argv[i][2] = scripts[i];
	argv[i][3] = NULL;
	return argv[i];
}

static const char *const *probe_cmd(const char *name)
{
	static char scripts[4][256];
	static const char *argv[4][4];
	static int k;
	int i = k++ % 4;

	snprintf(scripts[i], sizeof(scripts[i]), "test -e %s/ready-%s", unit_dir, name);
	argv[i][0] = "/bin/sh";
	argv[i][1] = "-c";
	argv[i][2] = scripts[i];
	argv[i][3] = NULL;
	return argv[i];
}

static char *slurp(const char *rel)
{
	char path[256], *buf = NULL;

	snprintf(path, sizeof(path), "%s/%s", unit_dir, rel);
	if (fileio_read_full(path, &buf, NULL) < 0)
		return strdup("");
	return buf;
}

static void test_order_and_stop(void **state)
{
	char step[256], unstep[256], quiet[256], why[512] = "", *order;
	const char *step_argv[] = { "/bin/sh", "-c", step, NULL }, *unstep_argv[] = { "/bin/sh", "-c", unstep, NULL },
		   *quiet_argv[] = { "/bin/sh", "-c", quiet, NULL };
	struct supervisor *s;
	struct daemon_spec d[3];

	(void)state;
	snprintf(step, sizeof(step), "cd %s && test -e ready-a && echo step b >>order", unit_dir);
	/* b's undoing, and c's stop command: each before c's TERM, b's after it, all before a's */
	snprintf(unstep, sizeof(unstep), "cd %s && echo undo b >>order", unit_dir);
	snprintf(quiet, sizeof(quiet), "cd %s && echo quiesce c >>order", unit_dir);
	d[0] = (struct daemon_spec){ "a", daemon_cmd("a"), probe_cmd("a"), false, NULL };
	d[1] = (struct daemon_spec){ "b", step_argv, NULL, true, unstep_argv };
	d[2] = (struct daemon_spec){ "c", daemon_cmd("c"), probe_cmd("c"), false, quiet_argv };
	assert_int_equal(supervisor_new(unit_dir, 10000, &s), 0);
	assert_int_equal(supervisor_start(s, d, 3, why, sizeof(why)), 0);
	/* each answered before the next began: the step saw a's file */
	order = slurp("order");
	assert_string_equal(order, "start a\nstep b\nstart c\n");
	free(order);
	assert_int_equal(supervisor_check(s, why, sizeof(why)), 0);
	supervisor_stop(s);
	order = slurp("order");
	assert_string_equal(order, "start a\nstep b\nstart c\nquiesce c\nstop c\nundo b\nstop a\n");
	free(order);
	/* stopped once: a second stop runs nothing again */
	supervisor_stop(s);
	order = slurp("order");
	assert_string_equal(order, "start a\nstep b\nstart c\nquiesce c\nstop c\nundo b\nstop a\n");
	free(order);
	/* the daemons' output went to their logs */
	order = slurp("a.log");
	assert_true(startswith(order, "a says hello\n"));
	free(order);
	supervisor_free(s);
}

static void test_dead_daemon_started_again(void **state)
{
	char why[512] = "", *pid, *order;
	struct supervisor *s;
	struct daemon_spec d[1];
	pid_t first;
	int died;

	(void)state;
	d[0] = (struct daemon_spec){ "mountd", daemon_cmd("mountd"), probe_cmd("mountd"), false };
	assert_int_equal(supervisor_new(unit_dir, 10000, &s), 0);
	assert_int_equal(supervisor_start(s, d, 1, why, sizeof(why)), 0);
	pid = slurp("mountd.pid");
	first = (pid_t)atoi(pid);
	free(pid);
	assert_true(first > 0);
	assert_int_equal(kill(first, SIGKILL), 0);
	/* the next look after it is gone (its pidfd says so) finds it */
	while ((died = supervisor_check(s, why, sizeof(why))) == 0)
		usleep(10000);
	assert_int_equal(died, 1);
	assert_string_equal(why, "mountd died (status 137); its last lines: mountd says hello");
	/* started again, and answering */
	pid = slurp("mountd.pid");
	assert_int_not_equal(atoi(pid), first);
	free(pid);
	order = slurp("order");
	assert_string_equal(order, "start mountd\nstart mountd\n");
	free(order);
	supervisor_free(s);
}

static void test_never_answers(void **state)
{
	char why[512] = "";
	const char *never[] = { "/bin/false", NULL };
	struct supervisor *s;
	struct daemon_spec d[1];

	(void)state;
	d[0] = (struct daemon_spec){ "statd", daemon_cmd("statd"), never, false };
	assert_int_equal(supervisor_new(unit_dir, 300, &s), 0);
	assert_int_equal(supervisor_start(s, d, 1, why, sizeof(why)), -ETIMEDOUT);
	assert_string_equal(why, "statd did not answer in 300 ms; its last lines: statd says hello");
	/* still running: stopped with the rest */
	supervisor_free(s);
	{
		char *order = slurp("order");

		assert_string_equal(order, "start statd\nstop statd\n");
		free(order);
	}
}

static void test_exits_first_and_failed_step(void **state)
{
	char why[512] = "";
	const char *boom[] = { "/bin/sh", "-c", "echo one; echo boom; exit 3", NULL };
	const char *nope[] = { "/bin/sh", "-c", "echo nope >&2; exit 2", NULL };
	const char *never[] = { "/bin/false", NULL };
	const char *missing[] = { "/nonexistent/rpc.nfsd", NULL };
	struct supervisor *s;
	struct daemon_spec d[3] = {
		{ "rpcbind", boom, never, false },
		{ "rpc.nfsd", nope, NULL, true },
		{ "ksmbd.mountd", missing, NULL, false },
	};

	(void)state;
	assert_int_equal(supervisor_new(unit_dir, 10000, &s), 0);
	assert_int_equal(supervisor_start(s, &d[0], 1, why, sizeof(why)), -ECHILD);
	assert_string_equal(why, "rpcbind exited with status 3 before it answered; its last lines: one | boom");
	assert_int_equal(supervisor_start(s, &d[1], 1, why, sizeof(why)), -ECHILD);
	assert_string_equal(why, "rpc.nfsd exited with status 2; its last lines: nope");
	assert_int_equal(supervisor_start(s, &d[2], 1, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "ksmbd.mountd cannot start: No such file or directory");
	supervisor_free(s);
}

static void test_last_lines(void **state)
{
	char path[256], buf[64];

	(void)state;
	unit_write_file("log", "w", "1\n2\n3\n4\n\n");
	snprintf(path, sizeof(path), "%s/log", unit_dir);
	supervise_last_lines(path, 3, buf, sizeof(buf));
	assert_string_equal(buf, "2 | 3 | 4");
	supervise_last_lines(path, 9, buf, sizeof(buf));
	assert_string_equal(buf, "1 | 2 | 3 | 4");
	supervise_last_lines(path, 1, buf, 3);
	assert_string_equal(buf, "4");
	snprintf(path, sizeof(path), "%s/none", unit_dir);
	supervise_last_lines(path, 3, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order_and_stop, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_dead_daemon_started_again, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_never_answers, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_exits_first_and_failed_step, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_last_lines, unit_mkdtemp, unit_rmdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
