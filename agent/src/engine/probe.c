// SPDX-License-Identifier: MIT
/*
 * A probe called as a job, and its bundles counted (see probe.h).
 */
#include "engine/probe.h"
#include "analysis/compare.h"
#include "engine/job.h"
#include "model/result.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/output.h"
#include "util/strv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_call(const struct probe *p, const char *sha, const char *kdir, unsigned runs, bool stop, const char *pdir,
	       unsigned long seconds)
{
	char res[PATH_MAX], log[PATH_MAX], echo[64];
	_cleanup_free_ char *tests = NULL;
	char *e[10] = { NULL };
	char **tv = NULL;
	size_t k;
	json_t *v;
	int r, status;

	json_array_foreach(p->tests, k, v)
		strv_push(&tv, json_string_value(v));
	tests = strv_join(tv, ' ');
	strv_free(tv);
	if ((r = fileio_pathf(res, "%s/results", pdir)) < 0 || (r = fileio_pathf(log, "%s/log", pdir)) < 0 ||
	    (r = fileio_mkdir_p(res)) < 0)
		return r;
	if (!tests || asprintf(&e[0], "FSAGENT_BISECT_COMMIT=%s", sha) < 0 ||
	    asprintf(&e[1], "FSAGENT_BISECT_KERNEL=%s", kdir) < 0 ||
	    asprintf(&e[2], "FSAGENT_BISECT_TESTS=%s", tests) < 0 ||
	    asprintf(&e[3], "FSAGENT_BISECT_CONFIG=%s", p->config) < 0 ||
	    asprintf(&e[4], "FSAGENT_BISECT_RUNS=%u", runs) < 0 ||
	    asprintf(&e[5], "FSAGENT_BISECT_STOP=%d", stop) < 0 ||
	    asprintf(&e[6], "FSAGENT_BISECT_RESULTS=%s", res) < 0 ||
	    asprintf(&e[7], "FSAGENT_REDUCE_TESTS=%s", tests) < 0 ||
	    asprintf(&e[8], "FSAGENT_REDUCE_CONFIG=%s", p->config) < 0) {
		r = -ENOMEM;
	} else {
		snprintf(echo, sizeof(echo), "  probe of %.12s: ", sha);
		r = job_run_echo(p->argv, (const char *const *)e, log, (unsigned)seconds, echo, false, &status);
	}
	for (size_t n = 0; n < ARRAY_SIZE(e); n++)
		free(e[n]);
	if (r < 0)
		return r;
	if (status != 0 && status != 1 && status != 125)
		log_err("the probe exited %d at %.12s (0: passed, 1: failed, 125: cannot test); its log: %s. Run "
			"it again to go on",
			status, sha, log);
	return status;
}

int probe_count(const struct probe *p, const char *res, unsigned *runs, unsigned *fails, json_t **how)
{
	struct compare *cmp = NULL;
	char err[1024] = "";
	json_t *doc, *t;
	size_t i, dl = strlen(p->dir);
	int r = compare_new(&cmp);

	*runs = *fails = 0;
	if (r < 0)
		return r;
	r = compare_add(cmp, SIDE_CANDIDATE, res, err, sizeof(err));
	if (r < 0) {
		if (r != -ENOENT)
			log_err("the probe's results: %s", err);
		compare_free(cmp);
		return r;
	}
	doc = compare_result(cmp, 0.01);
	compare_free(cmp);
	if (!doc)
		return -ENOMEM;
	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		json_t *name;
		size_t k;

		if (!streq(compare_str(t, "config"), p->config))
			continue;
		/*
		 * a probe's plan holds its tests alone: a crash no test's record holds (its runs as
		 * concurrent replicas crashing together, none again alone) is theirs, one failing run
		 */
		json_array_foreach(p->tests, k, name)
			if (streq(compare_str(t, "test"), json_string_value(name)) || (k == 0 && compare_together(t))) {
				json_t *cand = json_object_get(t, "candidate");
				const char *art = compare_str(cand, "artifact");

				*runs += (unsigned)compare_num(cand, "runs");
				*fails += (unsigned)compare_num(cand, "failures");
				if (!how || *how || !compare_num(cand, "failures") || !*compare_str(cand, "why"))
					continue;
				/* the page beside DIR links it: the path under DIR */
				art = !strncmp(art, p->dir, dl) && art[dl] == '/' ? art + dl + 1 : "";
				*how = json_pack("{s:s, s:s}", "why", compare_str(cand, "why"), "artifact", art);
			}
	}
	json_decref(doc);
	return 0;
}

int probe_write_step(const char *pdir, json_t *step)
{
	char path[PATH_MAX];
	int r = step ? fileio_mkdir_p(pdir) : -ENOMEM;

	if (r == 0)
		r = fileio_pathf(path, "%s/step.json", pdir);
	if (r == 0)
		r = write_output(path, step, dump_json);
	json_decref(step);
	return r;
}
