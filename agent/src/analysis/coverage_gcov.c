// SPDX-License-Identifier: MIT
/*
 * gcov over the coverage a test saved (see coverage_internal.h): its .gcda
 * files grouped by directory, each whole one given to gcov (in its own
 * process group, bounded in time, stopped with fsagent) beside the build's
 * .gcno files in a scratch mirror, gcov's JSON read into lines.
 */
#include "analysis/coverage_internal.h"
#include "model/gcda.h"
#include "util/dirwalk.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/proc.h"
#include "util/strmap.h"
#include "util/strv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GCOV_SECONDS 3600 /* one directory's gcov at most */

static volatile sig_atomic_t stop_signal;
static volatile pid_t gcov_pid;

static void on_stop(int sig)
{
	stop_signal = sig;
	if (gcov_pid > 0)
		kill(-gcov_pid, SIGTERM);
}

void coverage_stop_on_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop }; /* no SA_RESTART: the read below wakes */

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * Run argv with its stdout captured (stderr to stderr_fd, -1: inherited),
 * stopped (its process group) by a signal or after GCOV_SECONDS. Returns 0
 * (exit status in *status), -EINTR (stopped by a signal), -ETIME or -errno.
 */
static int run_capture(const char *const *argv, char **out, size_t *len, int *status, int stderr_fd)
{
	struct proc p = PROC_INIT;
	FILE *f;
	int fds[2], r;
	char buf[65536];
	ssize_t n;
	time_t deadline = time(NULL) + GCOV_SECONDS;
	bool late = false;

	if (stop_signal)
		return -EINTR;
	f = open_memstream(out, len);

	if (!f)
		return -ENOMEM;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		fclose(f);
		return -errno;
	}
	p.argv = argv;
	p.stdout_fd = fds[1];
	p.stderr_fd = stderr_fd;
	r = proc_start(&p);
	close(fds[1]);
	if (r < 0) {
		close(fds[0]);
		fclose(f);
		return r;
	}
	gcov_pid = p.pid;
	if (stop_signal)
		kill(-p.pid, SIGTERM);
	for (;;) {
		struct pollfd pf = { .fd = fds[0], .events = POLLIN };
		int ms = (int)(deadline - time(NULL)) * 1000;

		if (!late && ms <= 0) {
			late = true;
			kill(-p.pid, SIGKILL);
		}
		if (!late && poll(&pf, 1, ms) == 0)
			continue;
		n = read(fds[0], buf, sizeof(buf));
		if (n > 0)
			fwrite(buf, 1, (size_t)n, f);
		else if (n == 0 || errno != EINTR)
			break;
	}
	close(fds[0]);
	r = proc_wait(&p, -1);
	gcov_pid = 0;
	*status = p.status;
	proc_release(&p);
	fclose(f);
	if (r == 0 && stop_signal)
		r = -EINTR;
	else if (r == 0 && late)
		r = -ETIME;
	return r;
}

/* Remove the mirror tree made for gcov (symlinks and directories only). */
static void rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char sub[PATH_MAX];
		struct stat st;

		if (streq(de->d_name, ".") || streq(de->d_name, "..") ||
		    snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >= (int)sizeof(sub) || lstat(sub, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			rm_tree(sub);
		else
			unlink(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

struct gcda_dir {
	char rel[PATH_MAX]; /* "fs/xfs" */
	char **files;	    /* absolute .gcda paths */
};

struct gcda_dirs {
	struct gcda_dir *v;
	size_t n;
};

/* One .gcda file (dirwalk_files) into the group of its directory. */
static int collect_one(void *data, const char *path, const char *rel)
{
	struct gcda_dirs *g = data;
	const char *slash = strrchr(rel, '/');
	int dlen = slash ? (int)(slash - rel) : 0;
	size_t k;

	for (k = 0; k < g->n && (strlen(g->v[k].rel) != (size_t)dlen || strncmp(g->v[k].rel, rel, dlen) != 0); k++)
		;
	if (k == g->n) {
		struct gcda_dir *nv = realloc(g->v, (g->n + 1) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		g->v = nv;
		snprintf(g->v[k].rel, sizeof(g->v[k].rel), "%.*s", dlen, rel);
		g->v[k].files = strv_split("", ",");
		g->n++;
	}
	return strv_push(&g->v[k].files, path);
}

/* The source root the gcov file names share: found from a file whose path ends in rel/NAME. */
static void learn_root(struct coverage *c, const char *file, const char *rel)
{
	size_t fl = strlen(file), rl = strlen(rel);
	const char *base = strrchr(file, '/');

	if (c->root[0] || !base || !rl || (size_t)(base - file) < rl + 1)
		return;
	if (strncmp(base - rl, rel, rl) != 0 || base[-(long)rl - 1] != '/')
		return;
	snprintf(c->root, sizeof(c->root), "%.*s", (int)(fl - strlen(base) - rl), file);
}

/* gcov's JSON documents, one per line: every line into c, those reached into t (when not NULL). */
static int parse_gcov(struct coverage *c, struct coverage_test *t, const char *rel, const char *out, size_t len,
		      char *err, size_t es)
{
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(out + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - out) : len, i, k;
		json_error_t jerr;
		json_t *doc = json_loadb(out + pos, end - pos, 0, &jerr), *f, *l;

		if (!doc && end > pos) {
			snprintf(err, es, "gcov's output: %s", jerr.text);
			return -EBADMSG;
		}
		json_array_foreach(json_object_get(doc, "files"), i, f) {
			const char *file = json_string_value(json_object_get(f, "file")) ?: "?";

			learn_root(c, file, rel);
			json_array_foreach(json_object_get(f, "lines"), k, l) {
				if (coverage_add_line_of(
					    c, t, file,
					    (long long)json_integer_value(json_object_get(l, "line_number")),
					    json_string_value(json_object_get(l, "function_name")),
					    (long long)json_integer_value(json_object_get(l, "count"))) < 0) {
					json_decref(doc);
					return -ENOMEM;
				}
			}
		}
		json_decref(doc);
		pos = end + 1;
	}
	return 0;
}

/* A .gcda of test t that gcov cannot read (rel: its path under the test's coverage): left out, kept as lost. */
static int lose(struct coverage *c, const struct coverage_test *t, const char *rel, const char *why)
{
	json_t *e =
		json_pack("{s:s, s:s, s:s, s:s}", "test", t->name, "bundle", c->bundle ?: "", "file", rel, "why", why);

	return e && json_array_append_new(c->lost, e) == 0 ? 0 : -ENOMEM;
}

/* Whether the .gcda at path is whole (util: model/gcda.h); *why when not. */
static bool gcda_whole(const char *path, const char **why)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r = fileio_read_regular(path, (size_t)1 << 30, &buf, &len);

	if (r < 0) {
		*why = r == -EFBIG ? "larger than 1 GiB" : "cannot be read";
		return false;
	}
	return gcda_check((const unsigned char *)buf, len, why) == 0;
}

/*
 * gcov over one directory's files (mirror: a scratch directory): each
 * .gcda of g with the build's .gcno beside it, or (g holding .gcno files)
 * each .gcno alone, every line "not executed". Lines into c, reached ones
 * into t.
 */
static int gcov_dir(struct coverage *c, struct coverage_test *t, const struct gcda_dir *g, const char *mirror,
		    const char *build, const char *gcov_tool, char *err, size_t es)
{
	char mdir[PATH_MAX * 2];
	char **argv = strv_split("", ",");
	_cleanup_free_ char *out = NULL;
	size_t len = 0, given = 0;
	int st = 0, r, errfd = -1;
	FILE *errf = NULL;

	snprintf(mdir, sizeof(mdir), "%s/%s", mirror, g->rel);
	r = argv ? fileio_mkdir_p(mdir) : -ENOMEM;
	strv_push(&argv, gcov_tool);
	strv_push(&argv, "--json-format");
	strv_push(&argv, "--stdout");
	strv_push(&argv, "-o");
	strv_push(&argv, mdir);
	for (char **f = g->files; r >= 0 && *f; f++) {
		const char *base = strrchr(*f, '/') + 1;
		int stem = (int)(strlen(base) - 5);
		bool gcno_only = !strcmp(base + stem, ".gcno");
		char gcda[PATH_MAX * 3], gcno[PATH_MAX * 3], src[PATH_MAX * 3];
		struct stat sst;

		if (!gcno_only && t) {
			const char *why;
			char rel[PATH_MAX * 2];

			snprintf(rel, sizeof(rel), "%s%s%s", g->rel, *g->rel ? "/" : "", base);
			if (!gcda_whole(*f, &why)) {
				r = lose(c, t, rel, why);
				continue;
			}
		}
		snprintf(gcda, sizeof(gcda), "%s/%.*s.gcda", mdir, stem, base);
		snprintf(gcno, sizeof(gcno), "%s/%.*s.gcno", mdir, stem, base);
		snprintf(src, sizeof(src), "%s/%s%s%.*s.gcno", build, g->rel, *g->rel ? "/" : "", stem, base);
		if (stat(src, &sst) < 0) {
			snprintf(err, es,
				 "no '%s': --build must be the kernel's build directory, built with the gcov fragment",
				 src);
			r = -ENOENT;
			break;
		}
		{
			/* the mirror's links must not depend on the working directory */
			_cleanup_free_ char *f_abs = realpath(*f, NULL), *src_abs = realpath(src, NULL);

			if (!f_abs || !src_abs || (!gcno_only && symlink(f_abs, gcda) < 0) ||
			    symlink(src_abs, gcno) < 0)
				r = -errno;
			else if ((r = strv_push(&argv, gcda)) >= 0)
				given++;
		}
	}
	if (r >= 0 && given) {
		/* gcov says "cannot open data file" for every .gcno alone: that is the point; a test's words are kept
		 */
		errf = t ? tmpfile() : fopen("/dev/null", "we");
		errfd = errf ? fileno(errf) : -1;
		r = errf ? run_capture((const char *const *)argv, &out, &len, &st, errfd) : -errno;
	}
	if (r >= 0 && given && st != 0 && t) {
		/* gcov refused a file of the test's the check let through: the test's files here are lost */
		char said[512] = "";

		rewind(errf);
		if (!fgets(said, sizeof(said), errf))
			snprintf(said, sizeof(said), "%s exited with status %d", gcov_tool, st);
		said[strcspn(said, "\n")] = '\0';
		for (char **a = argv + 5; r >= 0 && *a; a++)
			r = lose(c, t, *a + strlen(mirror) + 1, said);
		len = 0;
	} else if (r >= 0 && st != 0) {
		snprintf(err, es, "%s exited with status %d on %s", gcov_tool, st, g->rel);
		r = -EIO;
	} else if (r == -EINTR) {
		snprintf(err, es, "stopped by a signal while %s ran", gcov_tool);
	} else if (r == -ETIME) {
		snprintf(err, es, "%s did not finish within %d s on %s", gcov_tool, GCOV_SECONDS, g->rel);
	} else if (r < 0 && !err[0]) {
		snprintf(err, es, "running %s failed: %s", gcov_tool, strerror(-r));
	}
	if (errf)
		fclose(errf);
	if (r >= 0)
		r = parse_gcov(c, t, g->rel, out, len, err, es);
	strv_free(argv);
	return r;
}

/* gcov over the files of dir ending in suffix, a directory at a time. */
static int gcov_tree(struct coverage *c, struct coverage_test *t, const char *dir, const char *suffix,
		     const char *build, const char *gcov_tool, char *err, size_t es)
{
	struct gcda_dirs g = { NULL, 0 };
	char mirror[] = "/tmp/fsagent-gcov-XXXXXX";
	bool made = false; /* (a name mkdtemp made may end in 'X' too) */
	int r = dirwalk_files(dir, "", suffix, collect_one, &g, 16);

	if (r < 0)
		snprintf(err, es, "read '%s' failed: %s", dir, strerror(-r));
	if (r >= 0 && !(made = mkdtemp(mirror) != NULL)) {
		r = -errno;
		snprintf(err, es, "mkdtemp failed: %s", strerror(-r));
	}
	for (size_t k = 0; r >= 0 && k < g.n; k++)
		r = gcov_dir(c, t, &g.v[k], mirror, build, gcov_tool, err, es);
	if (made)
		rm_tree(mirror);
	for (size_t k = 0; k < g.n; k++)
		strv_free(g.v[k].files);
	free(g.v);
	return r;
}

int coverage_gcov_test(struct coverage *c, struct coverage_test *t, const char *abs, const char *build,
		       const char *gcov_tool, char *err, size_t es)
{
	struct stat dst;

	/* a test that touched nothing saved nothing: no directory, no lines */
	if (stat(abs, &dst) < 0 && errno == ENOENT)
		return 0;
	return gcov_tree(c, t, abs, ".gcda", build, gcov_tool, err, es);
}

int coverage_add_build(struct coverage *c, const char *build, const char *gcov_tool, char *err, size_t es)
{
	return gcov_tree(c, NULL, build, ".gcno", build, gcov_tool, err, es);
}
