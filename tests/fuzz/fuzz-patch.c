// SPDX-License-Identifier: MIT
/*
 * Unified diffs (model/patch) and the whole of coverage --diff over them, on
 * synthetic coverage: two profiled files, functions with names that are not
 * UTF-8, three tests; each side, rebased through the diff itself, every output.
 */
#include "fuzz.h"
#include "analysis/coverage.h"
#include "analysis/coverage_diff.h"
#include "model/patch.h"

#include <stdio.h>

static struct coverage *synthetic(void)
{
	static const char *const files[] = { "/src/linux/fs/xfs/a.c", "/src/linux/fs/x\xff.c" };
	static const char *const tests[] = { "generic/001", "generic/002", "xfs/003" };
	struct coverage *c = NULL;

	if (coverage_new(&c) < 0)
		return NULL;
	for (unsigned f = 0; f < 2; f++)
		for (unsigned l = 1; l <= 64; l++) {
			const char *fn = l % 16 < 8 ? "xfs_f" : "xfs_\xfe";

			if (l % 3 == 0)
				continue; /* not code */
			coverage_add_line(c, NULL, files[f], l, fn, 0);
			for (unsigned t = 0; t < 3; t++)
				if ((l + t) % (t + 2) == 0)
					coverage_add_line(c, tests[t], files[f], l, fn, 1);
		}
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct coverage *c;
	struct patch *p = NULL;
	char err[512];
	FILE *null;

	if (!c && !(c = synthetic()))
		return 0;
	if (patch_parse((const char *)data, size, "fuzz.diff", &p, err, sizeof(err)) < 0)
		return 0;
	for (size_t i = 0; i < p->nfiles; i++)
		for (uint32_t l = 0; l < 70; l++) {
			patch_map(&p->files[i], l, true);
			patch_map(&p->files[i], l, false);
		}
	null = fopen("/dev/null", "we");
	for (int k = 0; k < 4 && null; k++) {
		struct coverage_diff_opts o = { .name = "fuzz\n.diff",
						.result_side = k & 1,
						.rebase = k & 2 ? p : NULL };
		struct coverage_diff *cd;

		if (coverage_diff(c, p, &o, &cd) == 0) {
			coverage_diff_text(cd->summary, null);
			coverage_diff_html(cd, null);
			coverage_diff_json(cd, null);
			coverage_diff_plan(cd->summary, null);
			coverage_diff_list(cd->summary, null);
		}
		coverage_diff_free(cd);
	}
	if (null)
		fclose(null);
	patch_free(p);
	return 0;
}
