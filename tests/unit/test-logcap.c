// SPDX-License-Identifier: MIT
/* logcap: a job's log keeps its head and its tail, and names what it cut between them. */
#include "unit.h"
#include "util/logcap.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* text pumped with head and tail caps: what the log holds, and the bytes cut */
static char *pump(const char *text, size_t head, size_t tail, long long *cut)
{
	FILE *in = tmpfile(), *out = tmpfile();
	static char got[4096];
	size_t n;

	assert_non_null(in);
	assert_non_null(out);
	fputs(text, in);
	fflush(in);
	rewind(in);
	*cut = logcap_pump(fileno(in), fileno(out), head, tail, NULL);
	rewind(out);
	n = fread(got, 1, sizeof(got) - 1, out);
	got[n] = '\0';
	fclose(in);
	fclose(out);
	return got;
}

static void test_small_kept_whole(void **state)
{
	long long cut;

	(void)state;
	assert_string_equal(pump("all of it\n", 4, 6, &cut), "all of it\n");
	assert_int_equal(cut, 0);
	assert_string_equal(pump("", 4, 6, &cut), "");
	assert_int_equal(cut, 0);
}

static void test_middle_cut_and_named(void **state)
{
	char big[1000];
	long long cut;

	(void)state;
	memset(big, 'x', sizeof(big));
	memcpy(big, "HEAD", 4);
	memcpy(big + sizeof(big) - 6, "TAIL\n", 6); /* 999 bytes of text */
	assert_string_equal(
		pump(big, 4, 5, &cut),
		"HEAD\n[fsagent: 990 bytes of output cut here: the log keeps its first and its last bytes]\n"
		"TAIL\n");
	assert_int_equal(cut, 990);
	/* no tail kept: the end is the line that names the cut */
	assert_string_equal(
		pump(big, 4, 0, &cut),
		"HEAD\n[fsagent: 995 bytes of output cut here: the log keeps its first and its last bytes]\n");
	assert_int_equal(cut, 995);
}

static void test_progress_echoed(void **state)
{
	static const char text[] = "[  12.345] fsagent: plan: 3 tests to run\n"
				   "[  12.900] fsagent: [1/3] xfs/4k generic/001: pass (0.3s)\n"
				   "[2/3] xfs/4k generic/002 fail\r\n"
				   "fsagent: [3/3] xfs/4k generic/003: pass (0.1s)\n"
				   "[3] not progress\n[1/x] nor this\n[12/34]no space\n[4/4] cut off at the end";
	FILE *in = tmpfile(), *out = tmpfile(), *echo = tmpfile();
	char got[1024];
	size_t n;

	(void)state;
	fputs(text, in);
	fflush(in);
	rewind(in);
	assert_int_equal(logcap_pump(fileno(in), fileno(out), 1 << 20, 1 << 20,
				     &(struct logcap_echo){ fileno(echo), "round 0 candidate: " }),
			 0);
	rewind(echo);
	n = fread(got, 1, sizeof(got) - 1, echo);
	got[n] = '\0';
	assert_string_equal(got, "round 0 candidate: [1/3] xfs/4k generic/001: pass (0.3s)\n"
				 "round 0 candidate: [2/3] xfs/4k generic/002 fail\n"
				 "round 0 candidate: [3/3] xfs/4k generic/003: pass (0.1s)\n");
	/* the log has everything */
	rewind(out);
	n = fread(got, 1, sizeof(got) - 1, out);
	assert_int_equal(n, sizeof(text) - 1);
	fclose(in);
	fclose(out);
	fclose(echo);
	assert_null(logcap_progress("[1/2]", 5));
	assert_null(logcap_progress("[ 1.0] fsagent: x", 17));
}

/*
 * job (a child, given the write end of the job's output and the read end
 * of the terminal) run under logcap_pump with prefix and a heartbeat after
 * one quiet second; the child's exit status must be 0: its own verdict on
 * what the terminal showed it.
 */
static void pump_with(int (*job)(int out, int terminal), const char *prefix)
{
	int in[2], echo[2], st = -1;
	FILE *out = tmpfile();
	pid_t pid;

	assert_non_null(out);
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(echo), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(in[0]);
		close(echo[1]);
		_exit(job(in[1], echo[0]));
	}
	close(in[1]);
	close(echo[0]);
	assert_int_equal(logcap_pump(in[0], fileno(out), 1 << 20, 1 << 20, &(struct logcap_echo){ echo[1], prefix, 1 }),
			 0);
	close(in[0]);
	close(echo[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	fclose(out);
}

/* More of the terminal into got (NUL-terminated, len so far): 1, or 0 when none came within ms. */
static int more(int terminal, char *got, size_t size, size_t *len, int ms)
{
	ssize_t n;

	if (*len >= size - 1 || poll(&(struct pollfd){ .fd = terminal, .events = POLLIN }, 1, ms) != 1 ||
	    (n = read(terminal, got + *len, size - 1 - *len)) <= 0)
		return 0;
	*len += (size_t)n;
	got[*len] = '\0';
	return 1;
}

/* One test, then quiet until the terminal says it still runs (a pump that never does fails after 60 s). */
static int quiet_job(int out, int terminal)
{
	static const char line[] = "[1/3] xfs/4k generic/001 pass\n",
			  want[] = "r1: [1/3] xfs/4k generic/001 pass\nr1: still running, 0 min 0";
	char got[2048] = "";
	size_t len = 0;

	if (write(out, line, sizeof(line) - 1) != (ssize_t)sizeof(line) - 1)
		return 2;
	while (!strstr(got, "still running") && more(terminal, got, sizeof(got), &len, 60000))
		;
	close(out);
	while (!strchr(strstr(got, "still running") ?: "", '\n') && more(terminal, got, sizeof(got), &len, 60000))
		;
	return strncmp(got, want, sizeof(want) - 1) == 0 && strstr(got, " s since [1/3] xfs/4k generic/001 pass\n") ? 0
														    : 1;
}

/* A line each tenth of a second, none of it progress (a build), until the terminal says it still runs. */
static int chatty_job(int out, int terminal)
{
	static const char line[] = "  CC      fs/xfs/xfs_inode.o\n";
	char got[512] = "";
	size_t len = 0;

	for (int i = 0; i < 600 && !strstr(got, "still running, 0 min 0"); i++) {
		if (write(out, line, sizeof(line) - 1) != (ssize_t)sizeof(line) - 1)
			return 2;
		more(terminal, got, sizeof(got), &len, 100);
	}
	close(out);
	return strncmp(got, "b1: still running, 0 min 0", 26) == 0 && strstr(got, " s in\n") ? 0 : 1;
}

/*
 * A job quiet after its first test: the terminal is told it still runs, with
 * its last progress. The job goes on only once it has read that line, so
 * nothing here waits on the clock but the pump's own second.
 */
static void test_quiet_job_heartbeat(void **state)
{
	(void)state;
	pump_with(quiet_job, "r1: ");
}

/* A job that prints all the time, none of it progress (a build): told it still runs all the same. */
static void test_chatty_job_heartbeat(void **state)
{
	(void)state;
	pump_with(chatty_job, "b1: ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_kept_whole),     cmocka_unit_test(test_middle_cut_and_named),
		cmocka_unit_test(test_progress_echoed),	     cmocka_unit_test(test_quiet_job_heartbeat),
		cmocka_unit_test(test_chatty_job_heartbeat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
