// SPDX-License-Identifier: MIT
/*
 * Bundle summaries (see report.h).
 */
#include "analysis/report.h"
#include "analysis/provenance.h"
#include "model/bundle.h"
#include "model/result.h"
#include "util/macro.h"
#include "util/utctime.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* "1 h 2 min", "3 min 4 s", "5.2 s" */
static void span_text(double secs, char *buf, size_t size)
{
	long long s = (long long)(secs + 0.5);

	if (secs < 60)
		snprintf(buf, size, "%.1f s", secs);
	else if (s < 3600)
		snprintf(buf, size, "%lld min %lld s", s / 60, s % 60);
	else
		snprintf(buf, size, "%lld h %lld min", s / 3600, s / 60 % 60);
}

/* One test's failures of one status in a config, over its iterations. */
struct failed {
	const char *test, *status;
	unsigned n, runs;	  /* of that status; runs of the test that could pass or fail */
	char why[BUNDLE_WHY_MAX]; /* the first one's */
	char iters[96];		  /* "0, 3, 5, ..." */
};

static struct failed *failed_of(struct failed **v, size_t *n, const char *test, const char *status)
{
	struct failed *nv;

	for (size_t i = 0; i < *n; i++)
		if (streq((*v)[i].test, test) && streq((*v)[i].status, status))
			return &(*v)[i];
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	*v = nv;
	memset(&nv[*n], 0, sizeof(*nv));
	nv[*n].test = test;
	nv[*n].status = status;
	return &nv[(*n)++];
}

/* How many runs of test the config's iterations hold that could pass or fail. */
static unsigned runs_of(json_t *c, const char *test)
{
	json_t *it, *t;
	size_t k, m;
	unsigned n = 0;

	json_array_foreach(json_object_get(c, "iterations"), k, it)
		json_array_foreach(json_object_get(it, "tests"), m, t)
			n += streq(str(t, "name"), test) &&
			     !test_status_skipped(test_status_from_string(str(t, "status")));
	return n;
}

/*
 * A config's failures, one line a test and status however many iterations
 * it failed in: how many of its runs, in which iterations, and why the first
 * did (check's reason without its noise, the output's first differing line).
 */
static void config_failures(json_t *c, FILE *out)
{
	_cleanup_free_ struct failed *v = NULL;
	size_t n = 0, k, m;
	json_t *it, *t;
	bool many = json_array_size(json_object_get(c, "iterations")) > 1;

	json_array_foreach(json_object_get(c, "iterations"), k, it)
		json_array_foreach(json_object_get(it, "tests"), m, t) {
			struct failed *f;
			size_t len;

			if (!test_status_name_failed(str(t, "status")))
				continue;
			if (!(f = failed_of(&v, &n, str(t, "name"), str(t, "status"))))
				return;
			if (!f->n++)
				bundle_why(str(t, "reason"), str(t, "excerpt"), str(t, "first_report"), f->why,
					   sizeof(f->why));
			len = strlen(f->iters);
			if (len < sizeof(f->iters) - 8)
				snprintf(f->iters + len, sizeof(f->iters) - len, "%s%zu", len ? ", " : "", k);
			else if (!strstr(f->iters, "..."))
				snprintf(f->iters + len, sizeof(f->iters) - len, ", ...");
		}
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "  %-16s %-8s %s", v[i].test, v[i].status, v[i].why[0] ? v[i].why : "(no reason given)");
		if (many)
			fprintf(out, " (%u of %u runs; iteration%s %s)", v[i].n, runs_of(c, v[i].test),
				v[i].n > 1 ? "s" : "", v[i].iters);
		fputc('\n', out);
	}
}

/* Reruns found flaky and kernel findings, one line a test: counts summed over the iterations. */
static void config_findings(json_t *c, FILE *out)
{
	json_auto_t *flaky = json_object(), *found = json_object();
	json_t *it, *t, *v, *e;
	const char *name, *kind;
	size_t k, m;

	json_array_foreach(json_object_get(c, "iterations"), k, it)
		json_array_foreach(json_object_get(it, "tests"), m, t) {
			json_t *re = json_object_get(t, "reruns");

			if (re && streq(str(re, "classification"), "flaky")) {
				e = json_object_get(flaky, str(t, "name"));
				if (!e)
					json_object_set_new(flaky, str(t, "name"),
							    e = json_pack("{s:I, s:I}", "fails", 0, "runs", 0));
				json_object_set_new(e, "fails",
						    json_integer(json_integer_value(json_object_get(e, "fails")) +
								 json_integer_value(json_object_get(re, "fails"))));
				json_object_set_new(e, "runs",
						    json_integer(json_integer_value(json_object_get(e, "runs")) +
								 json_integer_value(json_object_get(re, "runs"))));
			}
			json_object_foreach(json_object_get(t, "findings"), kind, v) {
				char key[512];

				snprintf(key, sizeof(key), "%s\x1f%s", str(t, "name"), kind);
				e = json_object_get(found, key);
				if (!e)
					json_object_set_new(
						found, key,
						e = json_pack("{s:I, s:s}", "n", 0, "first", str(t, "first_report")));
				json_object_set_new(e, "n",
						    json_integer(json_integer_value(json_object_get(e, "n")) +
								 json_integer_value(v)));
			}
		}
	json_object_foreach(flaky, name, e)
		fprintf(out, "  %-16s flaky: failed %lld of %lld runs\n", name,
			(long long)json_integer_value(json_object_get(e, "fails")),
			(long long)json_integer_value(json_object_get(e, "runs")));
	json_object_foreach(found, name, e) {
		const char *sep = strchr(name, '\x1f');

		fprintf(out, "  %-16.*s kernel %s x%lld%s%s\n", (int)(sep - name), name, sep + 1,
			(long long)json_integer_value(json_object_get(e, "n")), *str(e, "first") ? ": " : "",
			str(e, "first"));
	}
}

/* "userspace: ..." folded at its "; " and ", " into lines of at most 120 columns, the rest indented */
/* Crashes no single test's record holds: one two tests made together, or one none of its suspects made again. */
static void config_crashes(json_t *c, FILE *out)
{
	json_t *it, *v, *before = json_object_get(c, "crash_before_tests");
	size_t k, i;

	if (before) {
		long long boots = (long long)json_integer_value(json_object_get(before, "boots"));

		fprintf(out, "  CRASH before any test started, %lld boot%s", boots, boots == 1 ? "" : "s");
		if (*str(before, "first_report"))
			fprintf(out, ": %s", str(before, "first_report"));
		fputc('\n', out);
	}

	json_array_foreach(json_object_get(c, "iterations"), k, it) {
		json_t *pair = json_object_get(it, "crash_pair"), *none = json_object_get(it, "crash_unexplained");

		if (pair) {
			json_t *two = json_object_get(pair, "tests");

			fprintf(out, "  CRASH iteration %lld: %s and %s together (neither alone)",
				(long long)json_integer_value(json_object_get(it, "index")),
				json_string_value(json_array_get(two, 0)) ?: "?",
				json_string_value(json_array_get(two, 1)) ?: "?");
			if (*str(pair, "first_report"))
				fprintf(out, ": %s", str(pair, "first_report"));
			fputc('\n', out);
		}
		if (json_is_array(none)) {
			fprintf(out,
				"  CRASH iteration %lld: not made again by any of its suspects, alone or two at a "
				"time:",
				(long long)json_integer_value(json_object_get(it, "index")));
			json_array_foreach(none, i, v)
				fprintf(out, " %s", json_string_value(v) ?: "?");
			fputc('\n', out);
		}
	}
}

static void userspace_text(json_t *us, FILE *out)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0, col = 11;
	FILE *m = open_memstream(&text, &len);
	const char *p;

	if (!m)
		return;
	provenance_text(us, m);
	fclose(m);
	fputs("userspace: ", out);
	for (p = text; p && *p;) {
		size_t n = strcspn(p, ";,");

		n += p[n] ? 1 : 0; /* the word with its separator */
		if (col + n > 120 && col > 11) {
			fputs("\n ", out);
			col = 1;
			p += strspn(p, " ");
			n = strcspn(p, ";,") + 1;
			n = n > strlen(p) ? strlen(p) : n;
		}
		fwrite(p, 1, n, out);
		col += n;
		p += n;
	}
	fputc('\n', out);
}

void report_text(json_t *b, FILE *out)
{
	json_t *c, *it, *t;
	size_t i, k, m;
	unsigned total = 0, without_lockdep = 0;
	long long t0, t1;
	char span[64];

	fprintf(out, "run %s: %s", str(b, "run_id"), str(b, "state"));
	if (utctime_parse(str(b, "started"), &t0) == 0 && utctime_parse(str(b, "ended"), &t1) == 0 && t1 >= t0) {
		span_text((double)(t1 - t0), span, sizeof(span));
		fprintf(out, " in %s (%s to %s)", span, str(b, "started"), str(b, "ended"));
	} else if (*str(b, "started")) {
		fprintf(out, " (started %s)", str(b, "started"));
	}
	fputc('\n', out);
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
	userspace_text(json_object_get(b, "userspace"), out);
	json_array_foreach(json_object_get(b, "configs"), i, c) {
		unsigned counts[TS_MAX] = { 0 };
		double secs = 0;

		json_array_foreach(json_object_get(c, "iterations"), k, it)
			json_array_foreach(json_object_get(it, "tests"), m, t) {
				enum test_status st = test_status_from_string(str(t, "status"));

				if (st < TS_MAX)
					counts[st]++;
				secs += json_number_value(json_object_get(t, "duration"));
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
		span_text(secs, span, sizeof(span));
		fprintf(out, " (%zu iteration%s, %s of tests)\n", json_array_size(json_object_get(c, "iterations")),
			json_array_size(json_object_get(c, "iterations")) == 1 ? "" : "s", span);
		config_failures(c, out);
		config_findings(c, out);
		config_crashes(c, out);
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
