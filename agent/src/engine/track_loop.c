// SPDX-License-Identifier: MIT
/*
 * The watch of a branch (see track_loop.h): revisions listed from git,
 * each taken through build, qualification and bisection, every step's
 * outcome appended to DIR/track.jsonl before the next begins.
 */
#include "engine/track_loop.h"
#include "engine/bisect_loop.h"
#include "engine/git.h"
#include "engine/job.h"
#include "engine/qualify_loop.h"
#include "engine/qualify_plan.h"
#include "engine/statedir.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/output.h"
#include "util/strv.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACK_SCHEMA "fsagent-track/1"

struct state {
	struct track_run *in;
	json_t *track; /* track.json */
	json_t *revs;  /* every revision's state, in the order seen (status.json's "revisions") */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)) ?: "";
}

static json_t *rev_of(struct state *s, const char *sha)
{
	json_t *r;
	size_t i;

	json_array_foreach(s->revs, i, r)
		if (streq(str(r, "sha"), sha))
			return r;
	return NULL;
}

/* The revision the next one is compared with: the last one done that was built. */
static json_t *baseline(struct state *s)
{
	json_t *r, *b = NULL;
	size_t i;

	json_array_foreach(s->revs, i, r)
		if (streq(str(r, "state"), "done") && !json_object_get(r, "why"))
			b = r;
	return b;
}

/* ---- the record ---------------------------------------------------------- */

/* One event into the revisions' states. */
static void take(struct state *s, json_t *ev)
{
	const char *e = str(ev, "event");
	json_t *r = rev_of(s, str(ev, "sha"));
	char dir[PATH_MAX];

	if (streq(e, "seen")) {
		if (r)
			return;
		snprintf(dir, sizeof(dir), "%s/revs/%03zu-%s", s->in->dir, json_array_size(s->revs), str(ev, "slug"));
		r = json_pack("{s:O, s:O, s:O, s:s, s:s, s:b}", "name", json_object_get(ev, "name"), "sha",
			      json_object_get(ev, "sha"), "seen", json_object_get(ev, "time"), "dir", dir, "state",
			      "seen", "start", json_is_true(json_object_get(ev, "start")));
		if (r)
			json_array_append_new(s->revs, r);
		return;
	}
	if (!r)
		return;
	if (streq(e, "built")) {
		json_object_set_new(r, "state", json_string("built"));
		json_object_set(r, "build_seconds", json_object_get(ev, "seconds"));
	} else if (streq(e, "unbuildable")) {
		json_object_set_new(r, "state", json_string("done"));
		json_object_set(r, "why", json_object_get(ev, "why"));
		json_object_set_new(r, "verdict", json_string("cannot build"));
	} else if (streq(e, "qualified")) {
		json_object_set_new(r, "state", json_string("qualified"));
		json_object_update(r, ev);
		json_object_del(r, "event");
		json_object_set_new(r, "verdict",
				    json_string(json_array_size(json_object_get(ev, "regressions")) ? "regression"
												    : "no regression"));
		json_object_set_new(r, "bisections", json_array());
	} else if (streq(e, "bisected")) {
		json_t *b = json_deep_copy(ev);

		json_object_del(b, "event");
		json_object_del(b, "sha");
		json_array_append_new(json_object_get(r, "bisections"), b);
	} else if (streq(e, "done")) {
		json_object_set_new(r, "state", json_string("done"));
		if (json_is_true(json_object_get(r, "start")))
			json_object_set_new(r, "verdict", json_string("the start"));
	}
}

static int write_status(struct state *s)
{
	char path[PATH_MAX];
	json_t *b = baseline(s), *r;
	json_auto_t *doc = NULL;
	size_t i, regressions = 0;
	int ret;

	json_array_foreach(s->revs, i, r)
		regressions += streq(str(r, "verdict"), "regression");
	doc = json_pack("{s:s, s:O, s:O, s:O, s:s?, s:I, s:O}", "schema", TRACK_SCHEMA, "tree",
			json_object_get(s->track, "tree"), "follow", json_object_get(s->track, "follow"), "start",
			json_object_get(s->track, "start"), "baseline", b ? str(b, "name") : NULL, "regressions",
			(json_int_t)regressions, "revisions", s->revs);
	if (!doc)
		return -ENOMEM;
	if ((ret = fileio_pathf(path, "%s/status.json", s->in->dir)) < 0)
		return ret;
	return write_output(path, doc, dump_json);
}

/* DIR/track.jsonl read back: a torn last line (a stop while writing it) cut away; a bad line refused. */
static int replay(struct state *s)
{
	char path[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	char *line, *next;
	unsigned no = 0;
	int r;

	if ((r = fileio_pathf(path, "%s/track.jsonl", s->in->dir)) < 0)
		return r;
	r = fileio_read_regular(path, 64 << 20, &text, NULL);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		log_err("read '%s' failed: %s", path, strerror(-r));
		return r;
	}
	for (line = text; line && *line; line = next) {
		json_t *ev;

		next = strchr(line, '\n');
		no++;
		if (!next) {
			log_warn("%s:%u: an unfinished last line (a stop while writing it), left out", path, no);
			if (truncate(path, line - text) < 0) {
				r = -errno;
				log_err("truncate '%s' failed: %m", path);
				return r;
			}
			break;
		}
		*next++ = '\0';
		ev = json_loads(line, 0, NULL);
		if (!json_is_object(ev) || !json_is_string(json_object_get(ev, "event")) ||
		    !json_is_string(json_object_get(ev, "sha")) ||
		    (!streq(str(ev, "event"), "seen") && !rev_of(s, str(ev, "sha")))) {
			log_err("%s:%u: not a record of this watch (key 'event' or 'sha')", path, no);
			json_decref(ev);
			return -EBADMSG;
		}
		take(s, ev);
		json_decref(ev);
	}
	return 0;
}

/* ev appended to DIR/track.jsonl and fsync'd, taken, and status.json rewritten. Returns 0 or -errno (logged). */
static int append(struct state *s, json_t *ev)
{
	char path[PATH_MAX];
	_cleanup_free_ char *text = ev ? json_dumps(ev, JSON_COMPACT) : NULL;
	_cleanup_close_ int fd = -1;
	int r;

	if (!text || (r = fileio_pathf(path, "%s/track.jsonl", s->in->dir)) < 0) {
		json_decref(ev);
		return -ENOMEM;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || fileio_write_all(fd, text, strlen(text)) < 0 || fileio_write_all(fd, "\n", 1) < 0 ||
	    fsync(fd) < 0) {
		r = -errno;
		log_err("append to '%s' failed: %m", path);
		json_decref(ev);
		return r;
	}
	take(s, ev);
	json_decref(ev);
	return write_status(s);
}

/* ---- the revisions --------------------------------------------------------- */

/* A name as a directory's: what is not [A-Za-z0-9._-] becomes '_'. */
static void slug(const char *name, char *out, size_t size)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < size && i < 64; i++) {
		char c = name[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
					 c == '-' || (c == '_' && i)
				 ? c
				 : '_';
	}
	out[i] = '\0';
}

static int seen(struct state *s, const char *name, const char *sha, bool start)
{
	char sl[80];
	time_t t = time(NULL);
	char when[32];

	slug(name, sl, sizeof(sl));
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	printf("track: %s %s (%.12s)\n", start ? "starting from" : "new revision", name, sha);
	fflush(stdout);
	return append(s, json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "event", "seen", "name", name, "sha", sha, "slug",
				   sl, "time", when, "start", start));
}

/* The tags matching the pattern, in version order (-rcN before the release). Returns the count or -errno. */
static int list_tags(struct state *s, const char *pattern, char ***ret)
{
	const char *args[] = { "-c", "versionsort.suffix=-rc", "tag", "-l", pattern, "--sort=version:refname", NULL };
	_cleanup_free_ char *out = NULL;
	char err[512];
	int r = git_capture(s->in->tree, args, &out, err, sizeof(err));

	if (r != 0) {
		log_err("%s: git tag -l '%s' failed: %s", s->in->tree, pattern, r < 0 ? strerror(-r) : err);
		return r < 0 ? r : -EIO;
	}
	*ret = strv_split(out, "\n");
	return *ret ? (int)strv_length(*ret) : -ENOMEM;
}

/* Each new revision recorded as seen, the oldest first. Returns 0 or -errno (logged). */
static int look(struct state *s)
{
	const char *tags = str(json_object_get(s->track, "follow"), "tags");
	const char *branch = str(json_object_get(s->track, "follow"), "branch");
	char sha[41], err[512];
	int r;

	if (*branch) {
		_cleanup_free_ char *out = NULL;
		json_t *last = json_array_get(s->revs, json_array_size(s->revs) - 1);
		const char *args[] = { "describe", "--tags", "--always", sha, NULL };

		if ((r = git_resolve(s->in->tree, branch, sha, err, sizeof(err))) < 0) {
			log_err("%s: branch '%s': %s", s->in->tree, branch, err);
			return r;
		}
		if (last && streq(str(last, "sha"), sha))
			return 0;
		if (git_capture(s->in->tree, args, &out, err, sizeof(err)) != 0 || !out)
			return seen(s, sha, sha, false);
		out[strcspn(out, "\n")] = '\0';
		return seen(s, out, sha, false);
	}
	{
		char **list = NULL;
		int n = list_tags(s, tags, &list), from = -1;

		if (n < 0)
			return n;
		/* after the newest tag seen; else after the last tag the start contains */
		for (int i = 0; i < n; i++) {
			json_t *rv;
			size_t k;

			json_array_foreach(s->revs, k, rv)
				if (streq(str(rv, "name"), list[i]))
					from = i;
		}
		if (from < 0)
			for (int i = 0; i < n; i++)
				if (git_is_ancestor(s->in->tree, list[i],
						    str(json_object_get(s->track, "start"), "sha")) == 1)
					from = i;
		r = 0;
		for (int i = from + 1; i < n && r == 0; i++) {
			if ((r = git_resolve(s->in->tree, list[i], sha, err, sizeof(err))) < 0) {
				log_err("%s: tag '%s': %s", s->in->tree, list[i], err);
				break;
			}
			if (!rev_of(s, sha))
				r = seen(s, list[i], sha, false);
		}
		strv_free(list);
		return r;
	}
}

/* ---- one revision's steps ---------------------------------------------------- */

static int run_shell(const char *cmd, const char *const *env, const char *log, int *status)
{
	struct job j = JOB_INIT;
	int r = job_start(&j, (char *const[]){ (char *)"/bin/sh", (char *)"-c", (char *)cmd, NULL }, env, log, false);

	if (r == 0)
		r = job_wait(&j);
	*status = j.p.status;
	return r;
}

/* The first line of the build log that says error, else its last line. */
static void first_error(const char *log, char *buf, size_t size)
{
	_cleanup_free_ char *text = NULL;
	char *line, *save = NULL, *last = NULL;

	snprintf(buf, size, "(no log)");
	if (fileio_read_regular(log, 16 << 20, &text, NULL) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "error:") || strstr(line, "Error ")) {
			snprintf(buf, size, "%s", line);
			return;
		}
		last = line;
	}
	if (last)
		snprintf(buf, size, "%s", last);
}

static int build(struct state *s, json_t *rv)
{
	char kdir[PATH_MAX], log[PATH_MAX], why[512];
	_cleanup_free_ char *e_commit = NULL, *e_tree = NULL, *e_kernel = NULL;
	double t0 = now();
	int r, status;

	if ((r = fileio_pathf(kdir, "%s/kernel", str(rv, "dir"))) < 0 ||
	    (r = fileio_pathf(log, "%s/build.log", str(rv, "dir"))) < 0 || (r = fileio_mkdir_p(kdir)) < 0)
		return r;
	printf("track: building %s (log: %s)\n", str(rv, "name"), log);
	fflush(stdout);
	if (asprintf(&e_commit, "FSAGENT_BISECT_COMMIT=%s", str(rv, "sha")) < 0 ||
	    asprintf(&e_tree, "FSAGENT_BISECT_TREE=%s", s->in->tree) < 0 ||
	    asprintf(&e_kernel, "FSAGENT_BISECT_KERNEL=%s", kdir) < 0)
		return -ENOMEM;
	r = run_shell(s->in->build, (const char *const[]){ e_commit, e_tree, e_kernel, NULL }, log, &status);
	if (r < 0)
		return r;
	if (status == 0)
		return append(s, json_pack("{s:s, s:s, s:f}", "event", "built", "sha", str(rv, "sha"), "seconds",
					   now() - t0));
	first_error(log, why, sizeof(why));
	printf("track: cannot build %s: %s\n", str(rv, "name"), why);
	return append(s, json_pack("{s:s, s:s, s:s+, s:f}", "event", "unbuildable", "sha", str(rv, "sha"), "why",
				   "cannot build: ", why, "seconds", now() - t0));
}

/* The baseline's runs on its own kernel so far: its qualification's candidate sides. */
static int prior_runs(json_t *base, char ***ret)
{
	char path[PATH_MAX], done[PATH_MAX];
	int r = 0;

	*ret = strv_split("", ",");
	if (!*ret)
		return -ENOMEM;
	for (unsigned k = 0; r == 0; k++) {
		char round[PATH_MAX];

		if ((r = fileio_pathf(round, "%s/qualify/round-%u", str(base, "dir"), k)) < 0)
			break;
		if (!fileio_exists(round))
			break;
		if ((r = fileio_pathf(path, "%s/candidate/results", round)) < 0 ||
		    (r = fileio_pathf(done, "%s/candidate/done", round)) < 0)
			break;
		if (fileio_exists(done))
			r = strv_push(ret, path);
	}
	return r;
}

/* The regressions of a qualification's outcome, as [{config, test}]. */
static json_t *regressions_of(json_t *doc)
{
	json_t *out = json_array(), *t;
	size_t i;

	json_array_foreach(json_object_get(doc, "tests"), i, t)
		if (streq(str(t, "verdict"), "regression"))
			json_array_append_new(out, json_pack("{s:O, s:O}", "config", json_object_get(t, "config"),
							     "test", json_object_get(t, "test")));
	return out;
}

static int qualify(struct state *s, json_t *rv, json_t *base)
{
	char qdir[PATH_MAX], kb[PATH_MAX], kc[PATH_MAX], plan[PATH_MAX], path[PATH_MAX];
	struct qualify_run q = {
		.runner = s->in->runner, .o = s->in->qo, .budget = s->in->budget, .jobs = s->in->jobs
	};
	json_auto_t *doc = NULL;
	int r, rc;

	if ((r = fileio_pathf(qdir, "%s/qualify", str(rv, "dir"))) < 0 ||
	    (r = fileio_pathf(kb, "%s/kernel", str(base, "dir"))) < 0 ||
	    (r = fileio_pathf(kc, "%s/kernel", str(rv, "dir"))) < 0 ||
	    (r = fileio_pathf(plan, "%s/plan/plan.conf", s->in->dir)) < 0 || (r = fileio_mkdir_p(qdir)) < 0 ||
	    (r = prior_runs(base, &q.prior)) < 0)
		return r;
	printf("track: qualifying %s against %s (%s)\n", str(rv, "name"), str(base, "name"), qdir);
	fflush(stdout);
	q.dir = qdir;
	q.kernel[0] = kb;
	q.kernel[1] = kc;
	rc = qualify_loop_setup(&q, plan, s->in->qgiven) < 0 ? 2 : qualify_loop_run(&q);
	qualify_loop_release(&q);
	strv_free(q.prior);
	if (rc != 0 && rc != 1)
		return -EIO;
	if ((r = fileio_pathf(path, "%s/qualify.json", qdir)) < 0)
		return r;
	doc = json_load_file(path, 0, NULL);
	if (!json_is_object(doc)) {
		log_err("%s: missing or not fsagent qualify's outcome", path);
		return -EBADMSG;
	}
	return append(s, json_pack("{s:s, s:s, s:s, s:s, s:O, s:o, s:O, s:s}", "event", "qualified", "sha",
				   str(rv, "sha"), "baseline", str(base, "name"), "baseline_sha", str(base, "sha"),
				   "counts", json_object_get(doc, "counts"), "regressions", regressions_of(doc), "runs",
				   json_object_get(json_object_get(doc, "runs"), "total") ?: json_integer(0), "qualify",
				   qdir));
}

/* Each regression not bisected yet, between the baseline and this revision. */
static int bisect_all(struct state *s, json_t *rv)
{
	json_t *regs = json_object_get(rv, "regressions"), *g;
	size_t i;

	json_array_foreach(regs, i, g) {
		char bdir[PATH_MAX], path[PATH_MAX];
		char *goods[2] = { (char *)str(rv, "baseline_sha"), NULL };
		char *tests[2] = { (char *)str(g, "test"), NULL };
		char *probe[] = { (char *)"/bin/sh", (char *)"-c", (char *)s->in->probe, NULL };
		struct bisect_run br = {
			.tree = s->in->tree,
			.bad = str(rv, "sha"),
			.config = str(g, "config"),
			.goods = goods,
			.tests = tests,
			.probe = probe,
			.build = s->in->build,
			.max_runs = s->in->bisect_runs,
			.max_kernels = s->in->bisect_kernels,
		};
		json_auto_t *doc = NULL;
		const char *verdict;
		int rc, r;

		if (i < json_array_size(json_object_get(rv, "bisections")))
			continue;
		if ((r = fileio_pathf(bdir, "%s/bisect-%zu", str(rv, "dir"), i)) < 0)
			return r;
		if (!s->in->probe) {
			r = append(s, json_pack("{s:s, s:s, s:O, s:O, s:s, s:s}", "event", "bisected", "sha",
						str(rv, "sha"), "config", json_object_get(g, "config"), "test",
						json_object_get(g, "test"), "verdict", "not bisected", "why",
						"no probe command"));
			if (r < 0)
				return r;
			continue;
		}
		printf("track: bisecting %s %s between %s and %s (%s)\n", str(g, "config"), str(g, "test"),
		       str(rv, "baseline"), str(rv, "name"), bdir);
		fflush(stdout);
		br.dir = bdir;
		bisect_opts_default(&br.o);
		rc = bisect_loop(&br);
		if (rc == 3)
			return -EIO;
		if ((r = fileio_pathf(path, "%s/bisect.json", bdir)) < 0)
			return r;
		doc = json_load_file(path, 0, NULL);
		verdict = rc == 2 || !json_is_object(doc) ? "error" : str(doc, "verdict");
		r = append(s, json_pack("{s:s, s:s, s:O, s:O, s:s, s:O?, s:O?, s:s, s:i}", "event", "bisected", "sha",
					str(rv, "sha"), "config", json_object_get(g, "config"), "test",
					json_object_get(g, "test"), "verdict", verdict, "culprits",
					json_object_get(doc, "culprits"), "confidence",
					json_object_get(doc, "confidence"), "bisect", bdir, "exit", rc));
		if (r < 0)
			return r;
	}
	return 0;
}

/* The revision in words, for the terminal and --notify. */
static char *summary(json_t *rv)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);
	json_t *b, *c = json_object_get(rv, "counts");

	if (!f)
		return NULL;
	fprintf(f, "%s (%.12s): %s", str(rv, "name"), str(rv, "sha"), str(rv, "verdict"));
	if (json_object_get(rv, "why"))
		fprintf(f, " (%s)", str(rv, "why"));
	if (c)
		fprintf(f, " against %s: %lld regression, %lld flaky, %lld failing, %lld pass, %lld undecided",
			str(rv, "baseline"), json_integer_value(json_object_get(c, "regression")),
			json_integer_value(json_object_get(c, "flaky")),
			json_integer_value(json_object_get(c, "failing")),
			json_integer_value(json_object_get(c, "pass")),
			json_integer_value(json_object_get(c, "undecided")));
	fputc('\n', f);
	json_array_foreach(json_object_get(rv, "bisections"), i, b) {
		json_t *cu = json_array_get(json_object_get(b, "culprits"), 0);

		fprintf(f, "  %s %s: %s", str(b, "config"), str(b, "test"), str(b, "verdict"));
		if (cu && streq(str(b, "verdict"), "found"))
			fprintf(f, " %.12s \"%s\"%s", str(cu, "sha"), str(cu, "subject"),
				json_array_size(json_object_get(b, "culprits")) > 1 ? " (or a commit next to it)" : "");
		fputc('\n', f);
	}
	fclose(f);
	return text;
}

static void notify(struct state *s, json_t *rv, const char *text)
{
	char path[PATH_MAX], status[PATH_MAX], log[PATH_MAX];
	_cleanup_free_ char *e_rev = NULL, *e_sha = NULL, *e_verdict = NULL, *e_sum = NULL, *e_status = NULL;
	int st = 0;

	if (!s->in->notify || fileio_pathf(path, "%s/summary.txt", str(rv, "dir")) < 0 ||
	    fileio_pathf(status, "%s/status.json", s->in->dir) < 0 ||
	    fileio_pathf(log, "%s/notify.log", str(rv, "dir")) < 0 || fileio_write_atomic(path, text, strlen(text)) < 0)
		return;
	if (asprintf(&e_rev, "FSAGENT_TRACK_REV=%s", str(rv, "name")) < 0 ||
	    asprintf(&e_sha, "FSAGENT_TRACK_SHA=%s", str(rv, "sha")) < 0 ||
	    asprintf(&e_verdict, "FSAGENT_TRACK_VERDICT=%s", str(rv, "verdict")) < 0 ||
	    asprintf(&e_sum, "FSAGENT_TRACK_SUMMARY=%s", path) < 0 ||
	    asprintf(&e_status, "FSAGENT_TRACK_STATUS=%s", status) < 0)
		return;
	if (run_shell(s->in->notify, (const char *const[]){ e_rev, e_sha, e_verdict, e_sum, e_status, NULL }, log,
		      &st) < 0 ||
	    st != 0)
		log_warn("track: the notify command exited %d for %s (its log: %s)", st, str(rv, "name"), log);
}

/* One revision through its steps; each step recorded before the next. Returns 0 or -errno. */
static int take_rev(struct state *s, json_t *rv)
{
	json_t *base = baseline(s);
	_cleanup_free_ char *text = NULL;
	int r = 0;

	if (streq(str(rv, "state"), "seen") && (r = build(s, rv)) < 0)
		return r;
	if (streq(str(rv, "state"), "built") && json_is_true(json_object_get(rv, "start")))
		return append(s, json_pack("{s:s, s:s}", "event", "done", "sha", str(rv, "sha")));
	if (streq(str(rv, "state"), "built")) {
		if (!base) {
			log_err("track: no baseline to compare %s with: the start could not be built", str(rv, "name"));
			return -ENOENT;
		}
		if ((r = qualify(s, rv, base)) < 0)
			return r;
	}
	if (streq(str(rv, "state"), "qualified")) {
		if ((r = bisect_all(s, rv)) < 0)
			return r;
		if ((r = append(s, json_pack("{s:s, s:s}", "event", "done", "sha", str(rv, "sha")))) < 0)
			return r;
	}
	text = summary(rv);
	if (text) {
		printf("track: %s", text);
		fflush(stdout);
		notify(s, rv, text);
	}
	return 0;
}

/* ---- setting up ------------------------------------------------------------ */

/* DIR/track.json: made at the start (the start resolved); given again, what was given must agree. */
static int setup_track(struct state *s)
{
	struct track_run *in = s->in;
	char path[PATH_MAX], sha[41], err[512];
	int r;

	if ((r = fileio_pathf(path, "%s/track.json", in->dir)) < 0)
		return r;
	if (fileio_exists(path)) {
		json_error_t je;
		json_t *follow;

		s->track = json_load_file(path, 0, &je);
		follow = json_object_get(s->track, "follow");
		if (!json_is_object(s->track) || !json_is_string(json_object_get(s->track, "tree")) ||
		    !json_is_object(follow)) {
			log_err("%s:%d: not an fsagent track state (%s)", path, je.line, je.text);
			return -EBADMSG;
		}
		if ((in->tree && !streq(in->tree, str(s->track, "tree"))) ||
		    (in->tags && !streq(in->tags, str(follow, "tags"))) ||
		    (in->branch && !streq(in->branch, str(follow, "branch")))) {
			log_err("%s was begun for %s, %s %s: give the same --git and --tags or --branch, or a new "
				"--dir",
				in->dir, str(s->track, "tree"), *str(follow, "tags") ? "tags" : "branch",
				*str(follow, "tags") ? str(follow, "tags") : str(follow, "branch"));
			return -EEXIST;
		}
		in->tree = str(s->track, "tree");
		return 0;
	}
	if (!in->tree || (!in->tags == !in->branch)) {
		log_err("%s holds no watch yet: --git TREE and --tags PATTERN or --branch BRANCH begin one", in->dir);
		return -EINVAL;
	}
	{
		const char *args[] = { "rev-parse", "--git-dir", NULL };
		_cleanup_free_ char *out = NULL;

		if (git_capture(in->tree, args, &out, err, sizeof(err)) != 0) {
			log_err("--git %s: not a git repository (%s)", in->tree, err);
			return -EINVAL;
		}
	}
	{
		const char *start = in->start;
		char **list = NULL;

		if (in->tags) {
			int n = list_tags(s, in->tags, &list);

			if (n < 0)
				return n;
			if (n == 0) {
				log_err("--tags '%s': no tag of %s matches", in->tags, in->tree);
				strv_free(list);
				return -ENOENT;
			}
			if (!start)
				start = list[n - 1];
		} else if (!start) {
			start = in->branch;
		}
		r = git_resolve(in->tree, start, sha, err, sizeof(err));
		if (r < 0) {
			log_err("--start %s: %s", start, err);
			strv_free(list);
			return r;
		}
		s->track = json_pack("{s:s, s:{s:s?, s:s?}, s:{s:s, s:s}}", "tree", in->tree, "follow", "tags",
				     in->tags, "branch", in->branch, "start", "name", start, "sha", sha);
		strv_free(list);
	}
	if (!s->track)
		return -ENOMEM;
	return write_output(path, s->track, dump_json);
}

static bool stop_asked(struct state *s)
{
	return s->in->stop_file && fileio_exists(s->in->stop_file);
}

/* git fetch in the tree; on failure the wait before the next look doubles (to an hour), reset on success. */
static void fetch(struct state *s, unsigned *wait)
{
	const char *args[] = { "fetch", "--tags", "--quiet", NULL };
	_cleanup_free_ char *out = NULL;
	char err[512];

	if (git_capture(s->in->tree, args, &out, err, sizeof(err)) == 0) {
		*wait = s->in->interval;
		return;
	}
	*wait = *wait * 2 > 3600 ? 3600 : *wait * 2;
	log_warn("track: git fetch in %s failed (%s): the next look in %u s", s->in->tree, err, *wait);
}

static int loop(struct state *s)
{
	unsigned wait = s->in->interval;

	for (;;) {
		json_t *rv;
		size_t i;
		int r;

		if (s->in->fetch)
			fetch(s, &wait);
		if ((r = look(s)) < 0)
			return r == -ENOMEM ? 3 : 2;
		json_array_foreach(s->revs, i, rv) {
			if (stop_asked(s))
				return 0;
			if (!streq(str(rv, "state"), "done") && (r = take_rev(s, rv)) < 0)
				return r == -ENOENT ? 2 : 3;
		}
		if (s->in->once || stop_asked(s))
			return 0;
		for (unsigned t = 0; t < wait && !stop_asked(s); t++)
			sleep(1);
		if (stop_asked(s))
			return 0;
	}
}

int track_loop(struct track_run *in)
{
	struct state s = { .in = in };
	struct qualify_run plan = { .dir = in->dir };
	int r, rc;

	if (statedir_lock(in->dir, "fsagent track") < 0)
		return 2;
	job_stop_on_signals();
	s.revs = json_array();
	if (!s.revs)
		return 3;
	/* the plan every qualification runs: DIR/plan, as qualify keeps its own */
	r = setup_track(&s);
	if (r == 0)
		r = qualify_plan_setup(&plan, in->plan);
	qualify_loop_release(&plan);
	if (r == 0 && (r = replay(&s)) == 0 && !json_array_size(s.revs))
		r = seen(&s, str(json_object_get(s.track, "start"), "name"),
			 str(json_object_get(s.track, "start"), "sha"), true);
	if (r < 0) {
		rc = r == -ENOMEM || r == -EIO ? 3 : 2;
	} else {
		json_t *rv;
		size_t i;

		rc = loop(&s);
		if (rc == 0)
			json_array_foreach(s.revs, i, rv)
				if (streq(str(rv, "verdict"), "regression"))
					rc = 1;
	}
	json_decref(s.track);
	json_decref(s.revs);
	return rc;
}
