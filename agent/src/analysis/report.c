// SPDX-License-Identifier: MIT
/*
 * Bundle summaries (see report.h).
 */
#include "analysis/report.h"
#include "analysis/provenance.h"
#include "model/bundle.h"
#include "model/result.h"
#include "util/macro.h"

#include <errno.h>
#include <string.h>

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

void report_text(json_t *b, FILE *out)
{
	json_t *c, *it, *t;
	size_t i, k, m;
	unsigned total = 0, without_lockdep = 0;

	fprintf(out, "run %s: %s\n", str(b, "run_id"), str(b, "state"));
	if (json_integer_value(json_object_get(b, "records_lost")) > 0)
		fprintf(out, "RESULTS LOST: %lld test records could not be written (the results disk was full)\n",
			(long long)json_integer_value(json_object_get(b, "records_lost")));
	if (json_is_string(json_object_get(b, "error")))
		fprintf(out, "error: %s\n", str(b, "error"));
	fprintf(out, "kernel %s, fsagent %s, seed %s\n", str(json_object_get(b, "kernel"), "release"),
		str(b, "fsagent_version"),
		json_is_string(json_object_get(json_object_get(b, "plan"), "seed"))
			? str(json_object_get(b, "plan"), "seed")
			: "none (fixed order)");
	fputs("userspace: ", out);
	provenance_text(json_object_get(b, "userspace"), out);
	fputc('\n', out);
	json_array_foreach(json_object_get(b, "configs"), i, c) {
		unsigned counts[TS_MAX] = { 0 };

		json_array_foreach(json_object_get(c, "iterations"), k, it)
			json_array_foreach(json_object_get(it, "tests"), m, t) {
				enum test_status st = test_status_from_string(str(t, "status"));

				if (st < TS_MAX)
					counts[st]++;
				if (!test_status_skipped(st)) {
					total++;
					without_lockdep += json_is_true(json_object_get(t, "without_lockdep"));
				}
			}
		fprintf(out, "\n%s:", str(c, "name"));
		if (!streq(str(c, "status"), "run"))
			fprintf(out, " %s: %s", str(c, "status"), str(c, "reason"));
		/* in the statuses' own order: pass fail notrun expunged timeout crash error */
		for (int s = TS_PASS; s < TS_MAX; s++)
			if (counts[s])
				fprintf(out, " %s %u", test_status_to_string((enum test_status)s), counts[s]);
		fputc('\n', out);
		json_array_foreach(json_object_get(c, "iterations"), k, it)
			json_array_foreach(json_object_get(it, "tests"), m, t) {
				json_t *re = json_object_get(t, "reruns"), *f = json_object_get(t, "findings");
				const char *key;
				json_t *v;

				if (test_status_name_failed(str(t, "status")))
					fprintf(out, "  [%zu] %-16s %-8s %s\n", k, str(t, "name"), str(t, "status"),
						str(t, "reason"));
				if (re && streq(str(re, "classification"), "flaky"))
					fprintf(out, "  [%zu] %-16s flaky: failed %lld of %lld runs\n", k,
						str(t, "name"),
						(long long)json_integer_value(json_object_get(re, "fails")),
						(long long)json_integer_value(json_object_get(re, "runs")));
				json_object_foreach(f, key, v)
					fprintf(out, "  [%zu] %-16s kernel %s x%lld%s%s\n", k, str(t, "name"), key,
						(long long)json_integer_value(v),
						json_is_string(json_object_get(t, "first_report")) ? ": " : "",
						str(t, "first_report"));
			}
	}
	/* "0 of N ran with lockdep off" on a kernel without lockdep would read as coverage it never had */
	{
		json_t *configured =
			json_object_get(json_object_get(json_object_get(b, "caps"), "lockdep"), "configured");

		if (total && json_is_false(configured))
			fprintf(out, "\nlockdep: not in this kernel (CONFIG_PROVE_LOCKING off)\n");
		else if (total && (json_is_true(configured) || without_lockdep))
			fprintf(out, "\nlockdep: %u of %u tests ran with lockdep off\n", without_lockdep, total);
	}
}

/* Add n runs of a status with their durations to one test's entry. */
static int agg_add(json_t *agg, const char *config, const char *test, const char *status, json_int_t n, double total,
		   double max)
{
	json_t *per = json_object_get(agg, config), *a, *st, *c;

	if (!per && json_object_set_new(agg, config, per = json_object()) < 0)
		return -ENOMEM;
	a = json_object_get(per, test);
	if (!a && json_object_set_new(per, test,
				      a = json_pack("{s:i, s:{}, s:f, s:f}", "runs", 0, "statuses", "duration_total",
						    0.0, "duration_max", 0.0)) < 0)
		return -ENOMEM;
	st = json_object_get(a, "statuses");
	c = json_object_get(st, status);
	json_object_set_new(st, status, json_integer((c ? json_integer_value(c) : 0) + n));
	json_object_set_new(a, "runs", json_integer(json_integer_value(json_object_get(a, "runs")) + n));
	json_object_set_new(a, "duration_total",
			    json_real(json_number_value(json_object_get(a, "duration_total")) + total));
	if (max > json_number_value(json_object_get(a, "duration_max")))
		json_object_set_new(a, "duration_max", json_real(max));
	return 0;
}

int report_aggregate(json_t *agg, json_t *b)
{
	json_t *cfgs, *tests, *a, *st, *v, *c, *it, *t;
	const char *cname, *tname, *sname;
	size_t i, k, m;

	/* iterations a soak folded in: its aggregate has them */
	json_object_foreach(json_object_get(b, "aggregate"), cname, tests)
		json_object_foreach(tests, tname, a) {
			double total = json_number_value(json_object_get(a, "duration_total"));
			double max = json_number_value(json_object_get(a, "duration_max"));

			st = json_object_get(a, "statuses");
			json_object_foreach(st, sname, v) {
				/* durations go with the first status; totals stay right */
				if (agg_add(agg, cname, tname, sname, json_integer_value(v), total, max) < 0)
					return -ENOMEM;
				total = 0;
			}
		}
	/* the rest from their records */
	cfgs = json_object_get(b, "configs");
	json_array_foreach(cfgs, i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it) {
			if (json_is_true(json_object_get(it, "aggregated")))
				continue;
			json_array_foreach(json_object_get(it, "tests"), m, t) {
				double d = json_number_value(json_object_get(t, "duration"));

				if (agg_add(agg, str(c, "name"), str(t, "name"), str(t, "status"), 1, d, d) < 0)
					return -ENOMEM;
			}
		}
	return 0;
}
