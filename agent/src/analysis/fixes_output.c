// SPDX-License-Identifier: MIT
/*
 * fsagent fixes' answer in words (see fixes_output.h).
 */
#include "analysis/fixes_output.h"
#include "util/macro.h"

#include <string.h>

static const char *s_of(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k)) ?: "";
}

/* How a candidate applied to the failing revision (engine/fixes_apply.h), when it was tried. */
static void apply_text(json_t *a, const char *head, FILE *out)
{
	const char *v = s_of(a, "verdict");
	json_t *x;
	size_t i;

	if (!a)
		return;
	if (streq(v, "cannot apply")) {
		fprintf(out, "      cannot apply to %.12s: %s\n", head, s_of(a, "reason"));
		return;
	}
	fprintf(out, "      applies to %.12s", head);
	if (json_array_size(json_object_get(a, "after"))) {
		fputs(" after", out);
		json_array_foreach(json_object_get(a, "after"), i, x)
			fprintf(out, "%s %.12s", i ? "," : "", json_string_value(x) ?: "");
		fprintf(out, " (alone: %s)", s_of(a, "reason"));
	} else {
		fputs(" cleanly", out);
	}
	fprintf(out, ", as %.12s\n", s_of(a, "commit"));
}

void fixes_text(json_t *res, FILE *out)
{
	json_t *c = json_object_get(res, "culprit"), *u = json_object_get(res, "upstream"), *f;
	size_t i, n = json_array_size(json_object_get(res, "fixes"));

	if (!c) {
		/* an mbox's patches: no culprit, every patch a candidate */
		fprintf(out, "%zu patch%s of %s, in its order:\n", n, n == 1 ? "" : "es", s_of(res, "mbox"));
		json_array_foreach(json_object_get(res, "fixes"), i, f) {
			fprintf(out, "  %.12s \"%s\"\n", s_of(f, "id"), s_of(f, "subject"));
			apply_text(json_object_get(f, "apply"), s_of(res, "head"), out);
		}
		return;
	}
	fprintf(out, "culprit %.12s \"%s\": upstream %.12s \"%s\" (%s)\n", s_of(c, "sha"), s_of(c, "subject"),
		s_of(u, "id"), s_of(u, "subject"), s_of(u, "how"));
	if (!n) {
		fprintf(out, "no commit in %s says it fixes it (Fixes: %.12s)\n", s_of(res, "range"), s_of(u, "id"));
		return;
	}
	if (json_is_true(json_object_get(res, "ranked")))
		fprintf(out,
			"candidates from %s: those naming it in Fixes:, then those touching its files, then the "
			"rest, oldest first in each:\n",
			s_of(res, "range"));
	else
		fprintf(out, "fixed upstream in %s, oldest first (Fixes: naming it, then those fixing them):\n",
			s_of(res, "range"));
	json_array_foreach(json_object_get(res, "fixes"), i, f) {
		/* two lines a fix: a kernel subject is up to 75 columns, the terminal 100 */
		if (json_object_get(f, "rank"))
			fprintf(out, "  %.12s \"%s\"\n      %s; ", s_of(f, "id"), s_of(f, "subject"), s_of(f, "rank"));
		else
			fprintf(out, "  %.12s \"%s\"\n      Fixes: %.12s; ", s_of(f, "id"), s_of(f, "subject"),
				s_of(f, "of"));
		if (json_is_string(json_object_get(f, "in_stable")))
			fprintf(out, "in the stable tree already, as %.12s\n", s_of(f, "in_stable"));
		else
			fputs("not in the stable tree: a candidate\n", out);
		apply_text(json_object_get(f, "apply"), s_of(res, "head"), out);
	}
	fprintf(out, "%lld candidate%s to backport\n",
		(long long)json_integer_value(json_object_get(res, "candidates")),
		json_integer_value(json_object_get(res, "candidates")) == 1 ? "" : "s");
}
