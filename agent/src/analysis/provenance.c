// SPDX-License-Identifier: MIT
/*
 * Userspace records read back (see provenance.h).
 */
#include "analysis/provenance.h"
#include "util/macro.h"

#include <stdbool.h>
#include <string.h>

#define MAX_VALUE 120

/* A string of the record, when it is one and short enough; else NULL. */
static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && s[0] && strlen(s) <= MAX_VALUE ? s : NULL;
}

json_t *provenance_summary(json_t *us)
{
	json_t *f = json_object_get(us, "fstests"), *tools = json_object(), *v;
	const char *fs = str(f, "describe") ?: str(f, "commit") ?: str(f, "content_id") ?: str(f, "build"), *k;
	size_t n = 0;

	json_object_foreach(json_object_get(us, "tools"), k, v)
		if (strlen(k) <= 32 && json_is_string(v) && strlen(json_string_value(v)) <= MAX_VALUE && n++ < 32)
			json_object_set(tools, k, v);
	return json_pack("{s:s?, s:s?, s:o}", "fstests", fs, "image", str(us, "image_id"), "tools", tools);
}

void provenance_text(json_t *us, FILE *out)
{
	json_auto_t *s = provenance_summary(us);
	json_t *f = json_object_get(us, "fstests"), *v;
	const char *k;
	bool first = true;

	if (!json_is_object(us)) {
		fputs("not recorded", out);
		return;
	}
	fprintf(out, "fstests %s", str(s, "fstests") ?: "unknown");
	if (json_is_true(json_object_get(f, "dirty")))
		fputs(" (dirty)", out);
	if (str(s, "image"))
		fprintf(out, ", image %s", str(s, "image"));
	json_object_foreach(json_object_get(s, "tools"), k, v) {
		fprintf(out, "%s%s", first ? "; " : ", ", json_string_value(v));
		first = false;
	}
	/* the tools built from source in place of Debian's, and from what */
	first = true;
	json_object_foreach(json_object_get(us, "built_tools"), k, v) {
		const char *from = str(v, "describe") ?: str(v, "commit");

		if (strlen(k) > 32)
			continue;
		fprintf(out, "%s%s", first ? "; built from source: " : ", ", k);
		if (from && strlen(from) <= MAX_VALUE)
			fprintf(out, " %s", from);
		first = false;
	}
}

/* The values field takes across a side's summaries (tool names: within "tools"). */
static json_t *values(json_t *side, const char *what, bool tool)
{
	json_t *vals = json_array(), *s;
	size_t i;

	json_array_foreach(side, i, s) {
		json_t *v = tool ? json_object_get(json_object_get(s, "tools"), what) : json_object_get(s, what);
		bool have = false;
		json_t *x;
		size_t k;

		if (!json_is_string(v))
			continue;
		json_array_foreach(vals, k, x)
			have |= json_equal(x, v);
		if (!have)
			json_array_append(vals, v);
	}
	return vals;
}

static bool same_set(json_t *a, json_t *b)
{
	json_t *x, *y;
	size_t i, k;

	if (json_array_size(a) != json_array_size(b))
		return false;
	json_array_foreach(a, i, x) {
		bool found = false;

		json_array_foreach(b, k, y)
			found |= json_equal(x, y);
		if (!found)
			return false;
	}
	return true;
}

static void diff_one(json_t *out, json_t *b, json_t *c, const char *what, bool tool)
{
	json_t *vb = values(b, what, tool), *vc = values(c, what, tool);

	if (json_array_size(vb) && json_array_size(vc) && !same_set(vb, vc))
		json_array_append_new(out, json_pack("{s:s, s:o, s:o}", "what", what, "baseline", vb, "candidate", vc));
	else {
		json_decref(vb);
		json_decref(vc);
	}
}

json_t *provenance_diff(json_t *b, json_t *c)
{
	json_t *out = json_array(), *names = json_object(), *s, *v;
	const char *k;
	size_t i;

	diff_one(out, b, c, "fstests", false);
	diff_one(out, b, c, "image", false);
	json_array_foreach(b, i, s)
		json_object_foreach(json_object_get(s, "tools"), k, v)
			json_object_set(names, k, json_true());
	json_array_foreach(c, i, s)
		json_object_foreach(json_object_get(s, "tools"), k, v)
			json_object_set(names, k, json_true());
	json_object_foreach(names, k, v)
		diff_one(out, b, c, k, true);
	json_decref(names);
	return out;
}

void provenance_add(json_t *side, json_t *summary)
{
	json_t *x;
	size_t i;

	json_array_foreach(side, i, x)
		if (json_equal(x, summary)) {
			json_decref(summary);
			return;
		}
	json_array_append_new(side, summary);
}
