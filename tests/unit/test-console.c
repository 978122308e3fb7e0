// SPDX-License-Identifier: MIT
/* console + watch: the console protocol formatted by the agent, parsed by the host, on captured logs. */
#include "unit.h"
#include "analysis/watch.h"
#include "model/console.h"

#include <errno.h>
#include <unistd.h>

static enum console_kind parse(const char *line, struct console_event *ev)
{
	return console_parse_line(line, strlen(line), ev);
}

static void test_roundtrip(void **state)
{
	struct console_event ev;
	char msg[256], line[300];

	(void)state;
	assert_int_equal(console_format_progress(msg, sizeof(msg), 3, 40, "ext4/1k", "generic/475", TS_TIMEOUT, 301.25,
						 -1, "timed out after 300 s"),
			 0);
	assert_string_equal(msg, "[3/40] ext4/1k generic/475: timeout (301.2s): timed out after 300 s");
	/* as the console shows it: the kernel's stamp, the prefix, the serial port's CR */
	snprintf(line, sizeof(line), "[   12.345] " CONSOLE_PREFIX "%s\r", msg);
	assert_int_equal(parse(line, &ev), CONSOLE_PROGRESS);
	assert_int_equal(ev.done, 3);
	assert_int_equal(ev.total, 40);
	assert_string_equal(ev.config, "ext4/1k");
	assert_string_equal(ev.test, "generic/475");
	assert_int_equal(ev.status, TS_TIMEOUT);
	assert_true(ev.seconds > 301.1 && ev.seconds < 301.3);
	assert_true(ev.left < 0);
	/* with the test time left by the durations history */
	assert_int_equal(
		console_format_progress(msg, sizeof(msg), 4, 40, "ext4/1k", "generic/476", TS_PASS, 12.5, 3600.4, NULL),
		0);
	assert_string_equal(msg, "[4/40] ext4/1k generic/476: pass (12.5s; ~3600s left)");
	snprintf(line, sizeof(line), CONSOLE_PREFIX "%s", msg);
	assert_int_equal(parse(line, &ev), CONSOLE_PROGRESS);
	assert_true(ev.seconds > 12.4 && ev.seconds < 12.6);
	assert_true(ev.left == 3600);
	/* a malformed estimate makes no progress line */
	assert_int_equal(parse(CONSOLE_PREFIX "[4/40] ext4/1k generic/476: pass (12.5s; ~lots left)", &ev),
			 CONSOLE_OTHER);
	assert_int_equal(parse(CONSOLE_PREFIX "[4/40] ext4/1k generic/476: pass (12.5s; ~-3s left)", &ev),
			 CONSOLE_OTHER);

	assert_int_equal(console_format_final(msg, sizeof(msg), CONSOLE_TESTS_FAILED,
					      "bundle runs/20261204T1-ab: fail 1", "poweroff", 9000),
			 0);
	snprintf(line, sizeof(line), CONSOLE_PREFIX "%s", msg);
	assert_int_equal(parse(line, &ev), CONSOLE_FINAL_LINE);
	assert_int_equal(ev.final, CONSOLE_TESTS_FAILED);
	assert_string_equal(ev.run_id, "20261204T1-ab");
	assert_int_equal(console_format_final(msg, sizeof(msg), CONSOLE_OK, "", "reboot", 5), 0);
	assert_string_equal(msg, "final status: OK; reboot at 5 ms");
	assert_int_equal(console_format_final(msg, 8, CONSOLE_OK, "", "reboot", 5), -ENOBUFS);
}

static void test_kinds(void **state)
{
	struct console_event ev;

	(void)state;
	assert_int_equal(parse("[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org)", &ev),
			 CONSOLE_BOOT);
	/* a caps.json frame quoting the banner is not a boot */
	assert_int_equal(parse("FSAGENT|caps.json|    \"version\": \"Linux version 6.1.0\",", &ev), CONSOLE_OTHER);
	assert_int_equal(parse("[   29.268674] Kernel panic - not syncing: sysrq triggered crash", &ev), CONSOLE_PANIC);
	assert_int_equal(ev.text_len, strlen("Kernel panic - not syncing: sysrq triggered crash"));
	assert_int_equal(parse("[   47.439] fsagent: warning: xfs/4k selftest/011: crash: resuming after it", &ev),
			 CONSOLE_CRASH_LINE);
	assert_int_equal(parse("fsagent: plan: 5 tests to run (1 configs x 1 iterations)", &ev), CONSOLE_PLAN_LINE);
	assert_int_equal(parse("fsagent: final status: FATAL: no results disk; poweroff at 3 ms", &ev),
			 CONSOLE_FINAL_LINE);
	assert_int_equal(ev.final, CONSOLE_FATAL);
	assert_string_equal(ev.run_id, "");
	assert_int_equal(parse("fsagent: final status: NOTHING RAN: bundle runs/r1: notrun 3; poweroff at 9 ms", &ev),
			 CONSOLE_FINAL_LINE);
	assert_int_equal(ev.final, CONSOLE_NOTHING_RAN);
	assert_string_equal(ev.run_id, "r1");
	assert_int_equal(parse("fsagent: devices_ready at 4511 ms", &ev), CONSOLE_OTHER);
}

static void test_hostile(void **state)
{
	static const char *const not_progress[] = {
		"fsagent: [0/5] xfs/4k generic/001: pass (1.0s)",
		"fsagent: [6/5] xfs/4k generic/001: pass (1.0s)",
		"fsagent: [1/5] xfs/4k generic/001: bogus (1.0s)",
		"fsagent: [1/5] xfs/4k generic/001: pass (-1.0s)",
		"fsagent: [1/5] xfs/4k generic/001: pass (1.0)",
		"fsagent: [1/5] xfs/4k generic/001: pass (1e99s)",
		"fsagent: [1/5] xfs/4k generic/001 pass (1.0s)",
		"fsagent: [x/5] xfs/4k generic/001: pass (1.0s)",
		"fsagent: [1/99999999999999999999999] a b: pass (1s)",
		"fsagent: [1/5]",
	};
	struct console_event ev;
	char line[CONSOLE_LINE_MAX * 2];

	(void)state;
	for (size_t i = 0; i < sizeof(not_progress) / sizeof(not_progress[0]); i++)
		if (parse(not_progress[i], &ev) == CONSOLE_PROGRESS)
			fail_msg("taken as progress: '%s'", not_progress[i]);
	/* a run id is a plain name, at most 63 bytes */
	assert_int_equal(parse("fsagent: final status: OK: bundle runs/../../etc: x", &ev), CONSOLE_FINAL_LINE);
	assert_string_equal(ev.run_id, "");
	assert_int_equal(parse("fsagent: final status: OK: bundle runs/a;rm -rf /", &ev), CONSOLE_FINAL_LINE);
	assert_string_equal(ev.run_id, "a");
	memset(line, 'r', sizeof(line));
	memcpy(line, "fsagent: final status: OK: bundle runs/", 39);
	line[sizeof(line) - 1] = '\0';
	assert_int_equal(parse(line, &ev), CONSOLE_FINAL_LINE);
	assert_int_equal(strlen(ev.run_id), 63);
	/* an overlong config or test is cut, never overflowed */
	memset(line, 'c', sizeof(line));
	memcpy(line, "fsagent: [1/2] ", 15);
	memcpy(line + 300, " t: pass (1s)", 13);
	line[313] = '\0';
	assert_int_equal(parse(line, &ev), CONSOLE_PROGRESS);
	assert_int_equal(strlen(ev.config), sizeof(ev.config) - 1);
}

static char *watch_file(const char *path, struct watch *w)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	watch_init(w, f);
	assert_int_equal(watch_follow(w, path, 0, 0), 0);
	fclose(f);
	return out;
}

/* A captured console: a panic, the resumed boot, the final status. */
static void test_watch_captured(void **state)
{
	struct watch w;
	char *out = watch_file(FIXTURE_DIR "/console/launcher-run.log", &w);
	json_t *st = watch_state(&w);

	(void)state;
	assert_non_null(strstr(out, "plan: 5 tests to run (1 configs x 1 iterations)\n"));
	assert_non_null(strstr(out, "[2/5] xfs/4k     generic/002      fail     | pass 1 fail 1 | elapsed "));
	assert_non_null(strstr(out, "guest: Kernel panic - not syncing: sysrq triggered crash\n"));
	assert_non_null(strstr(out, "[5/5] xfs/4k     generic/004      pass     | pass 2 fail 1 notrun 1 crash 1 |"));
	assert_non_null(strstr(out, "ETA -\nfinal status: TESTS FAILED: bundle runs/20261203T131523Z-8253"));
	assert_int_equal(w.boots, 2);
	assert_string_equal(json_string_value(json_object_get(st, "run_id")), "20261203T131523Z-8253");
	assert_string_equal(json_string_value(json_object_get(st, "final")), "TESTS FAILED");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "counts"), "crash")), 1);
	assert_int_equal(watch_exit_status(&w), 1);
	json_decref(st);
	free(out);
}

/* No final status (a run cut short), control characters, a line past the cap without its newline. */
static void test_watch_unfinished(void **state)
{
	char path[] = "/tmp/fsagent-console-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct watch w;
	char *out;

	(void)state;
	assert_non_null(f);
	fputs("fsagent: [1/3] xfs/4k generic/0\033[31m01: pass (1.0s)\r\n", f);
	fputs("fsagent: [2/3] xfs/4k generic/002: fail (1.0s)\n", f);
	for (int i = 0; i < CONSOLE_LINE_MAX * 3; i++)
		fputc('x', f);
	fputs("\nfsagent: [3/3] xfs/4k generic/003: pass (2.0s)", f);
	fclose(f);
	out = watch_file(path, &w);
	unlink(path);
	assert_null(strchr(out, '\033'));
	assert_non_null(strstr(out, "generic/0?[31m01"));
	/* the long line is skipped whole; the last line counts without its newline */
	assert_int_equal(w.done, 3);
	assert_int_equal(w.counts[TS_PASS], 2);
	assert_false(w.have_final);
	assert_int_equal(watch_exit_status(&w), 3);
	assert_int_equal(watch_follow(&w, "/nonexistent/console.log", 0, 0), -ENOENT);
	free(out);
}

static double fake_time;
static double fake_now(void)
{
	return fake_time;
}

/* The ETA is wall time per finished test since the plan line, not the tests' durations alone. */
static void test_watch_eta(void **state)
{
	static const char plan[] = "fsagent: plan: 4 tests to run (1 configs x 1 iterations)";
	static const char one[] = "fsagent: [1/4] xfs/4k generic/001: pass (10.0s)";
	static const char two[] = "fsagent: [2/4] xfs/4k generic/002: pass (10.0s)";
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct watch w;

	(void)state;
	assert_non_null(f);
	watch_init(&w, f);
	w.now = fake_now;
	fake_time = 1000;
	w.start = fake_time;
	watch_line(&w, plan, strlen(plan));
	/* the first test took two minutes of wall time though check timed 10 s: 3 left, 6 minutes */
	fake_time = 1120;
	watch_line(&w, one, strlen(one));
	/* a replayed log: no wall time passes, the durations say 10 s a test */
	fake_time = 1120;
	w.tests_start = fake_time;
	watch_line(&w, two, strlen(two));
	fclose(f);
	assert_non_null(
		strstr(out, "[1/4] xfs/4k     generic/001      pass     | pass 1 | elapsed 2m00s, ETA 6m00s\n"));
	assert_non_null(
		strstr(out, "[2/4] xfs/4k     generic/002      pass     | pass 2 | elapsed 2m00s, ETA 0m20s\n"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),	 cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_hostile),		 cmocka_unit_test(test_watch_captured),
		cmocka_unit_test(test_watch_unfinished), cmocka_unit_test(test_watch_eta),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
