// SPDX-License-Identifier: MIT
/*
 * The crashes a bundle holds outside any test's record, handed to
 * bundle_scan's readers (bundle_scan_ops.crash): an iteration's
 * crash_pair and crash_unexplained, a config's crash_before_tests.
 */
#include "model/bundle.h"
#include "model/bundle_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A test name of a crash record, or NULL. */
static const char *crash_name(json_t *v)
{
	const char *s = json_string_value(v);

	return s && bundle_test_name_ok(s) ? s : NULL;
}

static int crash_bad(const char *dir, const char *key, const char *cname, json_t *it, const char *what, char *err,
		     size_t es)
{
	snprintf(err, es, "%s/bundle.json: key '%s' (config %s, iteration %lld): not %s", dir, key, cname,
		 (long long)json_integer_value(json_object_get(it, "index")), what);
	return -EBADMSG;
}

/*
 * An iteration's crash that no test's record holds (bundle_scan_ops.crash):
 * crash_pair {tests: [A, B], first_report?} or crash_unexplained [A, ...],
 * checked as the guest wrote them.
 */
int bundle_scan_crash(const char *dir, json_t *c, json_t *it, const struct bundle_scan_ops *ops, void *ctx, char *err,
		      size_t es)
{
	json_t *pair = json_object_get(it, "crash_pair"), *none = json_object_get(it, "crash_unexplained"), *v;
	const char *cname = bundle_config_name(c);
	char test[520], why[BUNDLE_WHY_MAX], names[192] = "";
	size_t i;
	int r = 0;

	if (pair) {
		json_t *tests = json_object_get(pair, "tests"), *fr = json_object_get(pair, "first_report");
		const char *a = crash_name(json_array_get(tests, 0)), *b = crash_name(json_array_get(tests, 1));
		const char *first = json_string_value(fr);

		if (!a || !b || json_array_size(tests) != 2 || (fr && !first))
			return crash_bad(dir, "crash_pair", cname, it, "{tests: two test names, first_report: text}",
					 err, es);
		if (strcmp(a, b) > 0) {
			const char *t = a;

			a = b;
			b = t;
		}
		snprintf(test, sizeof(test), "%s+%s", a, b);
		snprintf(why, sizeof(why), "crashed together, neither alone%s%s", first ? ": " : "",
			 first ? first : "");
		r = ops->crash(ctx, &(struct bundle_outcome){
					    .config = cname, .test = test, .status = "crash", .count = 1, .why = why });
	}
	if (r < 0 || !none)
		return r;
	if (!json_is_array(none) || !json_array_size(none))
		return crash_bad(dir, "crash_unexplained", cname, it, "a list of test names", err, es);
	json_array_foreach(none, i, v) {
		if (!crash_name(v))
			return crash_bad(dir, "crash_unexplained", cname, it, "a list of test names", err, es);
		if (strlen(names) + strlen(json_string_value(v)) + 8 < sizeof(names))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
				 json_string_value(v));
	}
	snprintf(why, sizeof(why), "the machine went down with %s in flight; none crashed again alone or in pairs",
		 names);
	return ops->crash(
		ctx,
		&(struct bundle_outcome){
			.config = cname, .test = BUNDLE_CRASH_UNPINNED, .status = "crash", .count = 1, .why = why });
}

/*
 * Each config's crash before any test (crash_before_tests {boots,
 * first_report}: the machine went down while it was set up, boot after
 * boot) as a crash no test's record holds, checked as the guest wrote it.
 */
int bundle_scan_crash_before_tests(const char *dir, json_t *doc, const struct bundle_scan_ops *ops, void *ctx,
				   char *err, size_t es)
{
	json_t *c;
	size_t i;
	int r = 0;

	json_array_foreach(json_object_get(doc, "configs"), i, c) {
		json_t *rec = json_object_get(c, "crash_before_tests"), *boots = json_object_get(rec, "boots");
		const char *first = json_string_value(json_object_get(rec, "first_report"));
		char why[BUNDLE_WHY_MAX];

		if (!rec)
			continue;
		if (!json_is_integer(boots) || json_integer_value(boots) < 1 || json_integer_value(boots) > 1000000 ||
		    !first) {
			snprintf(err, es,
				 "%s/bundle.json: key 'crash_before_tests' (config %s): not {boots: 1 or more, "
				 "first_report: text}",
				 dir, bundle_config_name(c));
			return -EBADMSG;
		}
		snprintf(why, sizeof(why), "the machine went down before any test started, %lld boot%s%s%s",
			 (long long)json_integer_value(boots), json_integer_value(boots) == 1 ? "" : "s",
			 first[0] ? ": " : "", first);
		r = ops->crash(ctx, &(struct bundle_outcome){ .config = bundle_config_name(c),
							      .test = BUNDLE_CRASH_UNPINNED,
							      .status = "crash",
							      .count = 1,
							      .why = why });
		if (r < 0)
			return r;
	}
	return 0;
}
