// SPDX-License-Identifier: MIT
/*
 * Reading a bundle's outcomes without holding it, and finding bundles (see
 * bundle.h).
 */
#include "model/bundle.h"
#include "model/result.h"
#include "model/bundle_internal.h"
#include "util/fileio.h"
#include "util/jscan.h"
#include "util/macro.h"
#include "util/strmap.h"
#include "util/strv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- reading outcomes without holding the bundle ------------------------- */

static const char *status_of(const struct jscan_field *f)
{
	for (int i = TS_PASS; i < TS_MAX; i++)
		if (jscan_streq(f, test_status_to_string((enum test_status)i)))
			return test_status_to_string((enum test_status)i);
	return NULL;
}

/* Each string of a validated array span must be a safe artifact path. */
static bool artifacts_ok(const struct jscan_field *f, char *bad, size_t size)
{
	const char *p, *end;

	if (f->type == JSCAN_NONE || f->type == JSCAN_NULL)
		return true;
	if (f->type != JSCAN_ARRAY)
		return false;
	/* an absent field has no start: no arithmetic on it */
	p = f->start;
	end = f->start + f->len;
	while (p < end) {
		const char *s;
		char path[PATH_MAX];

		p = memchr(p, '"', (size_t)(end - p));
		if (!p)
			return true;
		s = ++p;
		while (*p != '"')
			p += *p == '\\' ? 2 : 1;
		if (jscan_unescape(s, (size_t)(p - s), path, sizeof(path)) < 0 || !bundle_artifact_ok(path)) {
			snprintf(bad, size, "%.*s", (int)(p - s), s);
			return false;
		}
		p++;
	}
	return true;
}

/* The last record of each test of a journal, by the test's index in a strmap. */
struct scan_last {
	const char *status;
	double duration;
	unsigned runs, fails;			 /* reruns, 0 0 without */
	char why[BUNDLE_WHY_MAX], artifact[128]; /* a failing record's, else "" */
};

/* A string field unescaped into dst (size > 0), cut to fit; "" when it is not a string. */
static void field_text(const struct jscan_field *f, char *dst, size_t size)
{
	char buf[4096];
	size_t n = f->len < sizeof(buf) / 2 ? f->len : sizeof(buf) / 2 - 4;

	dst[0] = '\0';
	/* cut inside an escape: the unescape refuses it, so back off to before the last backslash */
	while (f->type == JSCAN_STRING && n > 0 && jscan_unescape(f->start, n, buf, sizeof(buf)) < 0)
		n--;
	if (f->type == JSCAN_STRING && n > 0)
		snprintf(dst, size, "%s", buf);
}

void bundle_why(const char *reason, const char *excerpt, const char *report, char *out, size_t size)
{
	char r[512], e[2048], *p, *line = NULL;
	size_t len;

	snprintf(r, sizeof(r), "%s", reason ? reason : "");
	snprintf(e, sizeof(e), "%s", excerpt ? excerpt : "");
	report = report ? report : "";
	/* check's timing before the reason ("0s ... ") and its pointer after it ("(see ...)") */
	p = strstr(r, " ... ");
	if (p && p - r < 16 && strspn(r, "0123456789.s") == (size_t)(p - r))
		memmove(r, p + 5, strlen(p + 5) + 1);
	if ((p = strstr(r, "(see ")))
		*p = '\0';
	len = strlen(r);
	while (len && (r[len - 1] == ' ' || r[len - 1] == '-' || r[len - 1] == '\n'))
		r[--len] = '\0';
	p = r + strspn(r, " -");
	/* the first line the output differs by, past the diff's headers */
	for (char *l = e, *nl; *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = '\0';
		if ((*l == '+' || *l == '-') && strncmp(l, "+++", 3) && strncmp(l, "---", 3)) {
			line = l;
			break;
		}
		if (!nl)
			break;
	}
	snprintf(out, size, "%s%s%s%s%s", p, *p && line ? ": " : "", line ? line : "",
		 (*p || line) && *report ? "; " : "", report);
	for (char *c = out; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = ' ';
}

/* bundle_why from a record's fields. */
static void why_of(const struct jscan_field *reason, const struct jscan_field *excerpt,
		   const struct jscan_field *report, char *out, size_t size)
{
	char r[512], e[2048], k[512];

	field_text(reason, r, sizeof(r));
	field_text(excerpt, e, sizeof(e));
	field_text(report, k, sizeof(k));
	bundle_why(r, e, k, out, size);
}

/* The first artifact of a validated array (the .out.bad first), or "". */
static void artifact_of(const struct jscan_field *f, char *out, size_t size)
{
	char path[PATH_MAX];
	const char *p, *end;

	out[0] = '\0';
	if (f->type != JSCAN_ARRAY)
		return;
	p = f->start;
	end = f->start + f->len;
	while (p < end && (p = memchr(p, '"', (size_t)(end - p)))) {
		const char *s = ++p;

		while (*p != '"')
			p += *p == '\\' ? 2 : 1;
		if (jscan_unescape(s, (size_t)(p - s), path, sizeof(path)) == 0 && strlen(path) < size &&
		    (!out[0] || (strstr(path, ".out.bad") && !strstr(out, ".out.bad"))))
			snprintf(out, size, "%s", path);
		p++;
	}
}

#define BUNDLE_MAX_RERUNS 100000U

/* A record's reruns: {runs, fails}, 1 <= runs, 0 <= fails <= runs, the first run included. */
static bool reruns_of(const struct jscan_field *f, unsigned *runs, unsigned *fails)
{
	struct jscan_field g[] = { { "runs" }, { "fails" } };
	double r, k;

	*runs = *fails = 0;
	if (f->type == JSCAN_NONE)
		return true;
	if (f->type != JSCAN_OBJECT || jscan_object(f->start, f->len, g, ARRAY_SIZE(g), NULL, NULL) < 0 ||
	    g[0].type != JSCAN_NUMBER || g[1].type != JSCAN_NUMBER)
		return false;
	r = jscan_number(g[0].start, g[0].len);
	k = jscan_number(g[1].start, g[1].len);
	if (!(r >= 1 && r <= BUNDLE_MAX_RERUNS && k >= 0 && k <= r) || r != (unsigned)r || k != (unsigned)k)
		return false;
	*runs = (unsigned)r;
	*fails = (unsigned)k;
	return true;
}

/* Validate one journal line and keep it as its test's last record. */
static int scan_line(const char *line, size_t n, const char *shown, unsigned lineno, struct strmap *names,
		     struct scan_last **last, size_t *cap, char *err, size_t es)
{
	struct jscan_field f[] = { { "name" },	 { "status" }, { "duration" }, { "artifacts" },	  { "coverage" },
				   { "reruns" }, { "reason" }, { "excerpt" },  { "first_report" } };
	const char *st;
	unsigned runs, fails;
	const char *why = NULL;
	char name[256], bad[PATH_MAX];
	size_t at = 0;
	long i;

	if (jscan_object(line, n, f, ARRAY_SIZE(f), &at, &why) < 0) {
		snprintf(err, es, "%s:%u: column %zu: %s", shown, lineno, at + 1, why);
		return -EBADMSG;
	}
	if (f[0].type != JSCAN_STRING || jscan_unescape(f[0].start, f[0].len, name, sizeof(name)) < 0 ||
	    !bundle_test_name_ok(name)) {
		snprintf(err, es, "%s:%u: " BUNDLE_WHY_NAME, shown, lineno);
		return -EBADMSG;
	}
	if (!status_of(&f[1])) {
		snprintf(err, es, "%s:%u: " BUNDLE_WHY_STATUS, shown, lineno);
		return -EBADMSG;
	}
	if (f[2].type != JSCAN_NUMBER && f[2].type != JSCAN_NONE) {
		snprintf(err, es, "%s:%u: key 'duration': not a number", shown, lineno);
		return -EBADMSG;
	}
	if (!artifacts_ok(&f[3], bad, sizeof(bad))) {
		snprintf(err, es, "%s:%u: key 'artifacts': '%s' is not a path under artifacts/", shown, lineno, bad);
		return -EBADMSG;
	}
	if (f[4].type != JSCAN_NONE) {
		struct jscan_field dir = { "dir" };

		if (f[4].type != JSCAN_OBJECT || jscan_object(f[4].start, f[4].len, &dir, 1, NULL, NULL) < 0 ||
		    dir.type != JSCAN_STRING || jscan_unescape(dir.start, dir.len, bad, sizeof(bad)) < 0 ||
		    !bundle_rel_path_ok(bad, "coverage")) {
			snprintf(err, es, "%s:%u: key 'coverage.dir': not a path under coverage/", shown, lineno);
			return -EBADMSG;
		}
	}
	if (!reruns_of(&f[5], &runs, &fails)) {
		snprintf(err, es, "%s:%u: key 'reruns': not {runs, fails} with 0 <= fails <= runs <= %u", shown, lineno,
			 BUNDLE_MAX_RERUNS);
		return -EBADMSG;
	}
	i = strmap_put(names, name, NULL);
	if (i < 0)
		return -ENOMEM;
	if ((size_t)i >= *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct scan_last *nv = realloc(*last, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*last = nv;
		*cap = nc;
	}
	st = status_of(&f[1]);
	(*last)[i] = (struct scan_last){ st, f[2].type == JSCAN_NUMBER ? jscan_number(f[2].start, f[2].len) : 0, runs,
					 fails };
	if (streq(st, "fail") || streq(st, "timeout") || streq(st, "crash") || streq(st, "error")) {
		why_of(&f[6], &f[7], &f[8], (*last)[i].why, sizeof((*last)[i].why));
		artifact_of(&f[3], (*last)[i].artifact, sizeof((*last)[i].artifact));
	}
	return 0;
}

/*
 * Validate a journal as it streams by and hand its records on, the last of
 * a test winning: memory grows with the tests it names, not its lines.
 */
static int scan_journal(int fd, const char *shown, const char *config, const struct bundle_scan_ops *ops, void *ctx,
			char *err, size_t es)
{
	size_t bufsize = BUNDLE_MAX_LINE + 65536, len = 0, cap = 0;
	_cleanup_free_ char *buf = malloc(bufsize);
	_cleanup_free_ struct scan_last *last = NULL;
	struct strmap names = { 0 };
	uint64_t total = 0;
	unsigned lineno = 0;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t got = read(fd, buf + len, bufsize - len);
		size_t pos = 0;
		char *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			snprintf(err, es, "%s: %s", shown, strerror(errno));
			break;
		}
		if (got == 0)
			break; /* a last line without its newline was torn by a crash: not a record */
		total += (uint64_t)got;
		if (total > BUNDLE_MAX_JOURNAL) {
			snprintf(err, es, "%s: larger than a reader accepts: refused", shown);
			r = -EBADMSG;
			break;
		}
		len += (size_t)got;
		while (r == 0 && (nl = memchr(buf + pos, '\n', len - pos))) {
			size_t n = (size_t)(nl - buf) - pos;

			lineno++;
			if (n > BUNDLE_MAX_LINE) {
				snprintf(err, es, "%s:%u: longer than %u bytes", shown, lineno, BUNDLE_MAX_LINE);
				r = -EBADMSG;
				break;
			}
			r = scan_line(buf + pos, n, shown, lineno, &names, &last, &cap, err, es);
			pos += n + 1;
		}
		if (r < 0)
			break;
		memmove(buf, buf + pos, len - pos);
		len -= pos;
		if (len > BUNDLE_MAX_LINE) {
			snprintf(err, es, "%s:%u: longer than %u bytes", shown, lineno + 1, BUNDLE_MAX_LINE);
			r = -EBADMSG;
			break;
		}
	}
	for (size_t i = 0; r == 0 && i < names.n; i++)
		r = ops->outcome(ctx, &(struct bundle_outcome){ config, names.keys[i], last[i].status, 1,
								last[i].duration, last[i].duration, last[i].runs,
								last[i].fails, last[i].why[0] ? last[i].why : NULL,
								last[i].artifact[0] ? last[i].artifact : NULL });
	strmap_release(&names);
	return r;
}

/* A soak's aggregate: config -> test -> {statuses, duration_total, duration_max}. */
static int scan_aggregate(json_t *agg, const char *file, const struct bundle_scan_ops *ops, void *ctx, char *err,
			  size_t es)
{
	const char *cname, *tname, *sname;
	json_t *tests, *a, *v;
	int r;

	if (agg && !json_is_object(agg)) {
		snprintf(err, es, "%s: key 'aggregate': not an object", file);
		return -EBADMSG;
	}
	json_object_foreach(agg, cname, tests)
		json_object_foreach(tests, tname, a) {
			double total = json_number_value(json_object_get(a, "duration_total"));
			double max = json_number_value(json_object_get(a, "duration_max"));
			char slug[128];

			if (bundle_config_slug(cname, slug, sizeof(slug)) < 0 || !bundle_test_name_ok(tname)) {
				snprintf(err, es, "%s: key 'aggregate.%s.%s': not a config and a test name", file,
					 cname, tname);
				return -EBADMSG;
			}
			json_object_foreach(json_object_get(a, "statuses"), sname, v) {
				struct jscan_field sf = { "status", JSCAN_STRING, sname, strlen(sname) };
				const char *st = status_of(&sf);

				if (!st || !json_is_integer(v) || json_integer_value(v) < 0 ||
				    json_integer_value(v) > BUNDLE_MAX_COUNT) {
					snprintf(err, es, "%s: key 'aggregate.%s.%s.statuses.%s': not a status count",
						 file, cname, tname, sname);
					return -EBADMSG;
				}
				/* durations go with the first status; totals stay right */
				r = ops->outcome(ctx, &(struct bundle_outcome){ cname, tname, st,
										(uint64_t)json_integer_value(v), total,
										max });
				if (r < 0)
					return r;
				total = 0;
			}
		}
	return 0;
}

struct scan {
	const struct bundle_scan_ops *ops;
	void *ctx;
	int dfd; /* the bundle's directory */
};

static int scan_begin(void *data, json_t *doc, const char *dir, char *err, size_t es)
{
	struct scan *sc = data;
	char file[PATH_MAX + 16];
	int r;

	snprintf(file, sizeof(file), "%s/bundle.json", dir);
	sc->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sc->dfd < 0) {
		snprintf(err, es, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	if (sc->ops->bundle && (r = sc->ops->bundle(sc->ctx, doc)) < 0)
		return r;
	if (sc->ops->crash && (r = bundle_scan_crash_before_tests(dir, doc, sc->ops, sc->ctx, err, es)) < 0)
		return r;
	return scan_aggregate(json_object_get(doc, "aggregate"), file, sc->ops, sc->ctx, err, es);
}

static int scan_iteration(void *data, const char *dir, json_t *c, json_t *it, char *err, size_t es)
{
	struct scan *sc = data;
	char rel[PATH_MAX], shown[PATH_MAX * 2];
	_cleanup_close_ int fd = -1;
	int r;

	if (sc->ops->crash && (r = bundle_scan_crash(dir, c, it, sc->ops, sc->ctx, err, es)) < 0)
		return r;

	/* aggregated iterations are in the aggregate */
	if (json_is_true(json_object_get(it, "aggregated")))
		return 0;
	if (bundle_journal_rel(rel, sizeof(rel), bundle_config_name(c), it) < 0)
		return 0; /* bundle_check_doc vetted the name and index */
	snprintf(shown, sizeof(shown), "%s/%s", dir, rel);
	fd = fileio_open_beneath(sc->dfd, rel);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0) {
		snprintf(err, es, "%s: %s", shown, bundle_read_error(fd));
		return fd == -ENOMEM ? fd : -EBADMSG;
	}
	r = scan_journal(fd, shown, bundle_config_name(c), sc->ops, sc->ctx, err, es);
	return r < 0 ? r : 0;
}

int bundle_scan(const char *path, const struct bundle_scan_ops *ops, void *ctx, char *err, size_t es)
{
	static const struct bundle_walker w = { .begin = scan_begin, .iteration = scan_iteration };
	struct scan sc = { ops, ctx, -1 };
	int r = bundle_walk(path, &w, &sc, NULL, err, es);

	if (sc.dfd >= 0)
		close(sc.dfd);
	return r;
}

/* Bundle directories under dir, depth levels down, symlinks not followed. */
static int find_bundles(const char *dir, int depth, char ***list)
{
	char path[PATH_MAX];
	struct stat st;
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (snprintf(path, sizeof(path), "%s/bundle.json", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (stat(path, &st) == 0)
		return strv_push(list, dir);
	if (depth == 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while (r >= 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.' || snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			r = find_bundles(path, depth - 1, list);
	}
	closedir(d);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int bundle_find_all(const char *path, char ***ret, char *err, size_t es)
{
	struct stat st;
	char **list = strv_split("", ",");
	int r;

	if (!list)
		return -ENOMEM;
	if (stat(path, &st) < 0) {
		r = -errno;
		snprintf(err, es, "%s: %s", path, strerror(errno));
		strv_free(list);
		return r;
	}
	r = S_ISDIR(st.st_mode) ? find_bundles(path, 4, &list) : strv_push(&list, path);
	if (r < 0) {
		snprintf(err, es, "%s: %s", path, strerror(-r));
		strv_free(list);
		return r;
	}
	if (!list[0]) {
		snprintf(err, es, "%s: no bundle (a directory with bundle.json) found", path);
		strv_free(list);
		return -ENOENT;
	}
	qsort(list, strv_length(list), sizeof(*list), cmp_str);
	*ret = list;
	return 0;
}
