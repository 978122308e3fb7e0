// SPDX-License-Identifier: MIT
/* proc: spawning, exit statuses, exec errors, timeouts on the process group. */
#include "unit.h"
#include "util/proc.h"

#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void test_status(void **state)
{
	const char *const t[] = { "true", NULL }, *const f[] = { "sh", "-c", "exit 3", NULL },
			  *const k[] = { "sh", "-c", "kill -9 $$", NULL };
	int st = -1;

	(void)state;
	assert_int_equal(proc_run(t, 5000, &st), 0);
	assert_int_equal(st, 0);
	assert_int_equal(proc_run(f, 5000, &st), 0);
	assert_int_equal(st, 3);
	assert_int_equal(proc_run(k, 5000, &st), 0);
	assert_int_equal(st, 128 + SIGKILL);
}

/* Start argv into p and wait until it has exited, without reaping it. */
static void start_exited(struct proc *p, const char *const *argv)
{
	siginfo_t si;

	*p = (struct proc)PROC_INIT;
	p->argv = argv;
	assert_int_equal(proc_start(p), 0);
	assert_int_equal(waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOWAIT), 0);
}

/* PID 1's sweep reaps every child that exits: one of proc_start's keeps its status for proc_wait */
static void test_status_kept_through_sweep(void **state)
{
	const char *const f[] = { "sh", "-c", "exit 3", NULL }, *const k[] = { "sh", "-c", "kill -9 $$", NULL };
	struct proc a, b;
	int st;

	(void)state;
	/* both gone, then swept */
	start_exited(&a, f);
	start_exited(&b, k);
	proc_reap_exited();
	assert_int_equal(waitpid(a.pid, NULL, WNOHANG), -1); /* the sweep took it */
	assert_int_equal(proc_wait(&a, 1000), 0);
	assert_int_equal(a.status, 3);
	assert_int_equal(proc_wait(&b, 1000), 0);
	assert_int_equal(b.status, 128 + SIGKILL);
	proc_release(&a);
	proc_release(&b);
	/* the runner's sweep, waiting for check: its status given there, no one else's taken */
	start_exited(&a, f);
	start_exited(&b, k);
	st = -1;
	assert_true(proc_sweep(b.pid, &st));
	assert_int_equal(st, 128 + SIGKILL);
	assert_false(proc_sweep(b.pid, &st));
	assert_int_equal(proc_wait(&a, 1000), 0);
	assert_int_equal(a.status, 3);
	proc_release(&a);
	proc_release(&b);
}

static void test_exec_error(void **state)
{
	const char *const n[] = { "/nonexistent/program", NULL };
	int st = -1;

	(void)state;
	/* reported as -errno over the close-on-exec pipe, not as exit 127 */
	assert_int_equal(proc_run(n, 5000, &st), -ENOENT);
	assert_int_equal(st, -1);
}

static bool alive(int pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	bool r = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		r = p[2] != 'Z' && p[2] != 'X';
	fclose(f);
	return r;
}

static void test_timeout_kills_group(void **state)
{
	char pidfile[] = "/tmp/fsagent-proc-XXXXXX", cmd[256];
	const char *argv[] = { "sh", "-c", cmd, NULL };
	struct timespec t0, t1;
	FILE *f;
	int fd = mkstemp(pidfile), grandchild = 0, st;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* the grandchild ignores nothing but is in the same group: it must die too */
	snprintf(cmd, sizeof(cmd), "sleep 60 & echo $! > %s; wait", pidfile);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(proc_run(argv, 500, &st), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 10);
	f = fopen(pidfile, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &grandchild), 1);
	fclose(f);
	unlink(pidfile);
	/* reparented to init, it may linger as a zombie: dead is what counts */
	for (int i = 0; i < 50 && alive(grandchild); i++)
		usleep(20000);
	assert_false(alive(grandchild));
}

static void test_redirect(void **state)
{
	struct proc p = PROC_INIT;
	const char *const argv[] = { "sh", "-c", "echo hello; echo oops >&2", NULL };
	int fds[2];
	char buf[64] = "";

	(void)state;
	assert_int_equal(pipe(fds), 0);
	p.argv = argv;
	p.stdout_fd = fds[1];
	p.stderr_fd = fds[1];
	assert_int_equal(proc_start(&p), 0);
	close(fds[1]);
	assert_int_equal(proc_wait(&p, 5000), 0);
	assert_int_equal(p.status, 0);
	assert_true(read(fds[0], buf, sizeof(buf) - 1) > 0);
	assert_non_null(strstr(buf, "hello"));
	close(fds[0]);
	proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),	   cmocka_unit_test(test_status_kept_through_sweep),
		cmocka_unit_test(test_exec_error), cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_redirect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
