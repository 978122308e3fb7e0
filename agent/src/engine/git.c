// SPDX-License-Identifier: MIT
/*
 * git run as a command, its output read back (see git.h).
 */
#include "engine/git.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/proc.h"
#include "util/strv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * git -C tree args...: its stdout into *out and its stderr into *errtext,
 * or both into *out when errtext is NULL (a change's messages, read in the
 * order git wrote them). Returns git's exit status or -errno; what was
 * read stays the caller's either way.
 */
static int run_git(const char *tree, const char *const *args, char **out, char **errtext)
{
	const char *argv[32] = { "git", "-C", tree };
	struct proc p = PROC_INIT;
	int o[2] = { -1, -1 }, e[2] = { -1, -1 }, r;
	size_t n = 3;

	for (const char *const *a = args; *a && n < ARRAY_SIZE(argv) - 1; a++)
		argv[n++] = *a;
	argv[n] = NULL;
	if (pipe2(o, O_CLOEXEC) < 0 || (errtext && pipe2(e, O_CLOEXEC) < 0)) {
		r = -errno;
		goto out;
	}
	p.argv = argv;
	p.stdout_fd = o[1];
	p.stderr_fd = errtext ? e[1] : o[1];
	r = proc_start(&p);
	close(o[1]);
	if (e[1] >= 0)
		close(e[1]);
	o[1] = e[1] = -1;
	if (r < 0)
		goto out;
	/* git's stderr is short: its stdout is read first, then its stderr */
	r = fileio_read_fd(o[0], out, NULL);
	if (errtext)
		fileio_read_fd(e[0], errtext, NULL);
	if (proc_wait(&p, -1) == 0 && r == 0)
		r = p.status;
	else if (r == 0)
		r = -ECHILD;
	proc_release(&p);
out:
	for (int i = 0; i < 2; i++) {
		if (o[i] >= 0)
			close(o[i]);
		if (e[i] >= 0)
			close(e[i]);
	}
	return r;
}

int git_capture(const char *tree, const char *const *args, char **out, char *err, size_t es)
{
	_cleanup_free_ char *errtext = NULL;
	int r = run_git(tree, args, out, &errtext);

	if (err && es)
		snprintf(err, es, "%.*s", errtext ? (int)strcspn(errtext, "\n") : 0, errtext ? errtext : "");
	if (r != 0 && *out) {
		free(*out);
		*out = NULL;
	}
	return r;
}

/* What git said of its failure in text: its first CONFLICT line, else its first error or fatal one, else its last. */
static void failure_line(const char *text, char *said, size_t ss)
{
	static const char *const kinds[][2] = { { "CONFLICT", "CONFLICT" }, { "error:", "fatal:" } };
	const char *last = NULL, *lastend = NULL;

	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
		for (const char *p = text; p && *p;) {
			const char *e = strchr(p, '\n') ?: p + strlen(p);

			if (startswith(p, kinds[k][0]) || startswith(p, kinds[k][1])) {
				snprintf(said, ss, "%.*s", (int)(e - p), p);
				return;
			}
			if (e > p)
				last = p, lastend = e;
			p = *e ? e + 1 : NULL;
		}
	snprintf(said, ss, "%.*s", last ? (int)(lastend - last) : 0, last ? last : "");
}

int git_try(const char *tree, const char *const *args, char *said, size_t ss)
{
	_cleanup_free_ char *text = NULL;
	int r = run_git(tree, args, &text, NULL);

	said[0] = '\0';
	if (r != 0 && text)
		failure_line(text, said, ss);
	return r;
}

int git_resolve(const char *tree, const char *rev, char sha[41], char *err, size_t es)
{
	_cleanup_free_ char *spec = NULL, *out = NULL;
	int r;

	if (asprintf(&spec, "%s^{commit}", rev) < 0)
		return -ENOMEM;
	r = git_capture(tree, (const char *const[]){ "rev-parse", "--verify", "--quiet", spec, NULL }, &out, err, es);
	if (r < 0)
		return r;
	if (r != 0 || !out || strlen(out) < 40) {
		snprintf(err, es, "%s: no commit '%s'", tree, rev);
		return -ENOENT;
	}
	memcpy(sha, out, 40);
	sha[40] = '\0';
	return 0;
}

int git_is_ancestor(const char *tree, const char *a, const char *b)
{
	_cleanup_free_ char *out = NULL;
	int r = git_capture(tree, (const char *const[]){ "merge-base", "--is-ancestor", a, b, NULL }, &out, NULL, 0);

	return r < 0 ? r : r == 0 ? 1 : r == 1 ? 0 : -EIO;
}

int git_dirty(const char *tree)
{
	_cleanup_free_ char *out = NULL;
	int r = git_capture(tree, (const char *const[]){ "status", "--porcelain", "--untracked-files=no", NULL }, &out,
			    NULL, 0);

	return r < 0 ? r : r != 0 ? -EIO : out && *out;
}

int git_line(const char *tree, const char *bad, char *const *goods, char ***ret, char *err, size_t es)
{
	const char *args[32] = { "log", "--topo-order", "--reverse", "--format=%H%x09%s", bad };
	_cleanup_free_ char *out = NULL;
	char *save = NULL, **v;
	size_t n = 5;
	int r;

	for (char *const *g = goods; *g && n < ARRAY_SIZE(args) - 2; g++) {
		char *neg = NULL;

		if (asprintf(&neg, "^%s", *g) < 0)
			return -ENOMEM;
		args[n++] = neg;
	}
	args[n] = NULL;
	r = git_capture(tree, args, &out, err, es);
	for (size_t i = 5; i < n; i++)
		free((char *)args[i]);
	if (r != 0)
		return r < 0 ? r : -EIO;
	v = strv_split("", ",");
	if (!v)
		return -ENOMEM;
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strlen(line) >= 41 && line[40] == '\t' && strv_push(&v, line) < 0) {
			strv_free(v);
			return -ENOMEM;
		}
	*ret = v;
	return (int)strv_length(v);
}
