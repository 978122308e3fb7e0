// SPDX-License-Identifier: MIT
/*
 * The rest of an interrupted side's plan (see qualify_rest.h).
 */
#include "engine/qualify_rest.h"
#include "engine/statedir.h"
#include "model/bundle.h"
#include "model/plan.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every record a bundle holds, by "config\x1ftest": the plan's slots it used (a test not run or expunged too). */
static int count_outcome(void *ctx, const struct bundle_outcome *o)
{
	json_t *done = ctx;
	_cleanup_free_ char *key = NULL;
	json_int_t n;

	if (asprintf(&key, "%s\x1f%s", o->config, o->test) < 0)
		return -ENOMEM;
	n = json_integer_value(json_object_get(done, key)) + (json_int_t)o->count;
	return json_object_set_new(done, key, json_integer(n)) < 0 ? -ENOMEM : 0;
}

/* The runs the bundles under res hold into done; -ENOENT when there is none. err says what a reader refused. */
static int count_finished(const char *res, json_t *done, json_int_t *total, char *err, size_t es)
{
	const struct bundle_scan_ops ops = { .outcome = count_outcome };
	char **bundles = NULL;
	const char *key;
	json_t *v;
	int r = bundle_find_all(res, &bundles, err, es);

	for (char **b = bundles; r >= 0 && *b; b++)
		r = bundle_scan(*b, &ops, done, err, es);
	strv_free(bundles);
	*total = 0;
	json_object_foreach(done, key, v)
		*total += json_integer_value(v);
	return r;
}

/* plan/rest.conf: the side's plan, each test that ran its runs fewer, one with none left expunged. */
static int write_rest(const char *dir, json_t *done, json_int_t total, char rest[PATH_MAX])
{
	char path[PATH_MAX], err[1024];
	_cleanup_free_ char *text = NULL, *out = NULL, *exp = NULL;
	size_t len = 0, olen = 0, elen = 0;
	struct plan p;
	FILE *f = NULL, *e = NULL;
	const char *key;
	json_t *v;
	int r;

	if ((r = fileio_pathf(path, "%s/plan/plan.conf", dir)) < 0 || (r = plan_init(&p)) < 0)
		return r;
	if ((r = fileio_read_regular(path, 1 << 20, &text, &len)) < 0 ||
	    (r = plan_apply_file(&p, path, text, err, sizeof(err))) < 0) {
		log_err("%s: %s", path, r == -EINVAL ? err : strerror(-r));
		goto out;
	}
	f = open_memstream(&out, &olen);
	e = open_memstream(&exp, &elen);
	if (!f || !e) {
		r = -ENOMEM;
		goto out;
	}
	fprintf(f, "%s\n# fsagent qualify: the rest, %lld runs having finished before a stop\n", text,
		(long long)total);
	json_object_foreach(done, key, v) {
		const char *sep = strchr(key, '\x1f');
		_cleanup_free_ char *config = strndup(key, (size_t)(sep - key));
		json_int_t planned = config ? plan_iterations_of(&p, config, sep + 1) : 0;

		if (!config) {
			r = -ENOMEM;
			goto out;
		}
		if (json_integer_value(v) >= planned)
			fprintf(e, "%s config=%s # fsagent qualify: its runs finished before a stop\n", sep + 1,
				config);
		else
			fprintf(f, "iterations.%s/%s = %lld\n", config, sep + 1,
				(long long)(planned - json_integer_value(v)));
	}
	fclose(e);
	e = NULL;
	if (elen) {
		fputs("expunge_files =", f);
		for (char **x = p.expunge_files; x && *x; x++)
			fprintf(f, " %s", *x);
		fputs(" qualify-rest.expunge\n", f);
		if ((r = fileio_pathf(path, "%s/plan/qualify-rest.expunge", dir)) < 0 ||
		    (r = fileio_write_atomic(path, exp, elen)) < 0)
			goto out;
	}
	fclose(f);
	f = NULL;
	if ((r = fileio_pathf(rest, "%s/plan/rest.conf", dir)) == 0)
		r = fileio_write_atomic(rest, out, olen);
out:
	if (f)
		fclose(f);
	if (e)
		fclose(e);
	plan_release(&p);
	return r;
}

int qualify_rest(unsigned k, const char *side, const char *dir, char rest[PATH_MAX])
{
	char res[PATH_MAX], err[1024] = "";
	json_auto_t *done = json_object();
	json_int_t total = 0;
	int r;

	if ((r = fileio_pathf(res, "%s/results", dir)) < 0 || (r = fileio_pathf(rest, "%s/plan/plan.conf", dir)) < 0)
		return r;
	if (!done)
		return -ENOMEM;
	if (!fileio_exists(res))
		return fileio_mkdir_p(res);
	r = count_finished(res, done, &total, err, sizeof(err));
	if (r == -ENOMEM)
		return r;
	if (r < 0 || total == 0) {
		/* nothing finished, or nothing a reader takes: kept aside, unread; the side runs whole */
		if (r < 0 && r != -ENOENT)
			log_warn("round %u %s: what its stopped runner left is not read (%s); set aside, the side runs "
				 "whole",
				 k, side, err[0] ? err : strerror(-r));
		if ((r = statedir_set_aside(res)) < 0)
			return r;
		return fileio_mkdir_p(res);
	}
	if ((r = write_rest(dir, done, total, rest)) < 0) {
		log_err("round %u %s: writing the rest of its plan into %s/plan failed: %s", k, side, dir,
			strerror(-r));
		return r;
	}
	printf("round %u %s: kept the %lld run%s its stopped runner finished (%s); running the rest (%s)\n", k, side,
	       (long long)total, total == 1 ? "" : "s", res, rest);
	fflush(stdout);
	return 0;
}
