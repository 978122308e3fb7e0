// SPDX-License-Identifier: MIT
/*
 * The rerun plan of a comparison (see compare.h): the candidate's failures
 * and flakes, each config only its own, to run on the baseline.
 */
#include "analysis/compare.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int compare_rerun_plan(json_t *res, const char *path, unsigned iterations, char *err, size_t es)
{
	char **configs = strv_split("", ","), **tests = strv_split("", ",");
	_cleanup_free_ char *plan = NULL, *exp = NULL;
	char exp_path[PATH_MAX], *slash;
	size_t plen = 0, elen = 0, n = 0, i;
	FILE *pf = NULL, *ef = NULL;
	json_t *t;
	int r = 0;

	if (!configs || !tests) {
		r = -ENOMEM;
		goto out;
	}
	/* a crash of tests together is no test to run again alone */
	json_array_foreach(json_object_get(res, "tests"), i, t)
		if (compare_num(json_object_get(t, "candidate"), "failures") &&
		    !streq(compare_str(t, "class"), "failing") && !compare_together(t)) {
			if (!strv_contains(configs, compare_str(t, "config")))
				r = r < 0 ? r : strv_push(&configs, compare_str(t, "config"));
			if (!strv_contains(tests, compare_str(t, "test")))
				r = r < 0 ? r : strv_push(&tests, compare_str(t, "test"));
			n++;
		}
	if (r < 0 || n == 0)
		goto out;
	if (snprintf(exp_path, sizeof(exp_path), "%s.expunge", path) >= (int)sizeof(exp_path)) {
		r = -ENAMETOOLONG;
		goto out;
	}
	pf = open_memstream(&plan, &plen);
	ef = open_memstream(&exp, &elen);
	if (!pf || !ef) {
		r = -ENOMEM;
		goto out;
	}
	/* each config gets only its own suspects: the others are expunged there */
	for (char **c = configs; *c; c++)
		for (char **x = tests; *x; x++) {
			bool suspect = false;

			json_array_foreach(json_object_get(res, "tests"), i, t)
				suspect |= streq(compare_str(t, "config"), *c) && streq(compare_str(t, "test"), *x) &&
					   compare_num(json_object_get(t, "candidate"), "failures") &&
					   !streq(compare_str(t, "class"), "failing") && !compare_together(t);
			if (!suspect)
				fprintf(ef, "%s config=%s # not a suspect on this config\n", *x, *c);
		}
	fflush(ef);
	slash = strrchr(exp_path, '/');
	fprintf(pf, "# fsagent compare: the candidate's failures and flakes, to run on the baseline\n");
	fprintf(pf, "configs =");
	for (char **c = configs; *c; c++)
		fprintf(pf, " %s", *c);
	fprintf(pf, "\ntests =");
	for (char **x = tests; *x; x++)
		fprintf(pf, " %s", *x);
	fprintf(pf, "\niterations = %u\norder = random\n", iterations);
	if (elen)
		fprintf(pf, "expunge_files = %s\n", slash ? slash + 1 : exp_path);
	fclose(pf);
	pf = NULL;
	fclose(ef);
	ef = NULL;
	if (elen && (r = fileio_write_atomic(exp_path, exp, elen)) < 0) {
		snprintf(err, es, "write '%s' failed: %s", exp_path, strerror(-r));
		goto out;
	}
	r = fileio_write_atomic(path, plan, plen);
	if (r < 0)
		snprintf(err, es, "write '%s' failed: %s", path, strerror(-r));
out:
	if (pf)
		fclose(pf);
	if (ef)
		fclose(ef);
	strv_free(configs);
	strv_free(tests);
	if (r == -ENOMEM)
		snprintf(err, es, "out of memory");
	return r < 0 ? r : (int)n;
}
