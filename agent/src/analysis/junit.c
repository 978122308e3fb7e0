// SPDX-License-Identifier: MIT
/*
 * JUnit XML in check's shape (see junit.h).
 */
#include "analysis/junit.h"
#include "model/result.h"
#include "util/macro.h"
#include "util/markup.h"
#include "util/utctime.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define XUNIT_NS "https://git.kernel.org/pub/scm/fs/xfs/xfstests-dev.git"

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* XML 1.0 has no place for control characters but tab and newline */
static int xml_char(unsigned char c)
{
	return c < 0x20 && c != '\n' && c != '\t' ? '?' : c;
}

/* s as CDATA, the way check writes .full and the diff; "]]>" split across two sections */
static void cdata(FILE *out, const char *tag, const char *s)
{
	if (!s || !*s)
		return;
	fprintf(out, "\t\t<%s>\n<![CDATA[\n", tag);
	for (; *s; s++) {
		if (strncmp(s, "]]>", 3) == 0) {
			fputs("]]]]><![CDATA[>", out);
			s += 2;
			continue;
		}
		fputc(xml_char((unsigned char)*s), out);
	}
	fprintf(out, "\n]]>\n\t\t</%s>\n", tag);
}

/* A bundle time ("2026-12-05T06:56:35Z") as check writes one ("...+00:00"); the epoch when it is not one. */
static void check_time(const char *t, char buf[32])
{
	long long secs = 0;
	char utc[UTCTIME_SIZE];

	if (utctime_parse(t, &secs) < 0)
		secs = 0;
	utctime_format(secs, utc, sizeof(utc));
	snprintf(buf, 32, "%.19s+00:00", utc);
}

struct suite {
	FILE *cases; /* the <testcase> elements, written before the counts are known */
	char *text;
	size_t len;
	unsigned tests, failures, skipped;
	double time;
};

static void testcase(struct suite *s, const char *classname, const char *name, double time)
{
	s->tests++;
	s->time += time;
	fputs("\t<testcase classname=\"", s->cases);
	markup_escape(s->cases, classname);
	fputs("\" name=\"", s->cases);
	markup_escape(s->cases, name);
	fprintf(s->cases, "\" time=\"%.3f\">\n", time);
}

/* <failure> for a failure, <error type=STATUS> for a timeout, crash or error */
static void failed(struct suite *s, const char *status, const char *message)
{
	bool fail = streq(status, "fail");

	s->failures += fail;
	fprintf(s->cases, "\t\t<%s message=\"", fail ? "failure" : "error");
	markup_escape(s->cases, message);
	fprintf(s->cases, "\" type=\"%s\" />\n", fail ? "TestFail" : status);
}

/* One record: its own run, then its reruns (check -L writes one testcase per run) */
static void record(struct suite *s, const char *classname, json_t *t)
{
	const char *st = str(t, "status"), *reason = str(t, "reason");
	json_t *re = json_object_get(t, "reruns");
	json_int_t runs = re ? json_integer_value(json_object_get(re, "runs")) : 1,
		   fails = re ? json_integer_value(json_object_get(re, "fails")) : 0;

	testcase(s, classname, str(t, "name"), json_number_value(json_object_get(t, "duration")));
	if (test_status_name_failed(st)) {
		failed(s, st, reason);
		cdata(s->cases, "system-err", json_string_value(json_object_get(t, "excerpt")));
		if (json_object_size(json_object_get(t, "findings")))
			cdata(s->cases, "kernel-log", json_string_value(json_object_get(t, "first_report")));
	} else if (test_status_name_skipped(st) || streq(st, "pending")) {
		char msg[600];

		s->skipped++;
		snprintf(msg, sizeof(msg), "%s%s%s", streq(st, "notrun") ? "" : st, streq(st, "notrun") ? "" : ": ",
			 *reason ? reason : "not run");
		fputs("\t\t<skipped message=\"", s->cases);
		markup_escape(s->cases, msg);
		fputs("\" />\n", s->cases);
	}
	fputs("\t</testcase>\n", s->cases);
	/* the bundle keeps how many reruns failed, not which: failures first */
	for (json_int_t k = 1; k < runs && k < 1000; k++) {
		char msg[96];

		testcase(s, classname, str(t, "name"), 0);
		if (k < fails) {
			snprintf(msg, sizeof(msg), "rerun %lld of %lld failed too", (long long)k, (long long)runs - 1);
			failed(s, test_status_name_failed(st) ? st : "fail", msg);
		}
		fputs("\t</testcase>\n", s->cases);
	}
}

/* The section fsagent wrote for config cname: its own name, or the one section there is */
static json_t *section_of(json_t *sections, const char *cname, char name[80])
{
	const char *k;
	json_t *v;

	snprintf(name, 80, "%s", cname);
	for (char *p = name; *p; p++)
		if (*p == '/')
			*p = '_';
	if (json_object_get(sections, name) || json_object_size(sections) != 1)
		return json_object_get(sections, name);
	json_object_foreach(sections, k, v) {
		snprintf(name, 80, "%s", k);
		return v;
	}
	return NULL;
}

static void prop(json_t *props, const char *name, json_t *value)
{
	char buf[64];

	if (json_is_integer(value)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(value));
		json_object_set_new(props, name, json_string(buf));
	} else if (json_is_string(value) && *json_string_value(value)) {
		json_object_set(props, name, value);
	}
	json_decref(value);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* check's properties (sorted, none empty) with xfstests-bld's and fsagent's beside them */
static void properties(FILE *out, json_t *b, json_t *c, json_t *it, json_t *section, const char *section_name)
{
	json_auto_t *props = json_object();
	json_t *m = json_object_get(json_object_get(b, "caps"), "machine"), *k = json_object_get(b, "kernel"), *v;
	const char *key, **names;
	size_t n = 0;
	char fstyp[64];

	if (!props)
		return;
	snprintf(fstyp, sizeof(fstyp), "%.*s", (int)strcspn(str(c, "name"), "/"), str(c, "name"));
	prop(props, "FSTYP", json_string(fstyp));
	json_object_foreach(section, key, v)
		prop(props, key, json_incref(v));
	prop(props, "SECTION", json_string(section_name));
	prop(props, "ARCH", json_incref(json_object_get(m, "arch")));
	prop(props, "CPUS", json_incref(json_object_get(m, "cpus")));
	prop(props, "MEM_KB", json_incref(json_object_get(m, "mem_total_kb")));
	prop(props, "KERNEL", json_incref(json_object_get(k, "release")));
	prop(props, "CMDLINE", json_incref(json_object_get(k, "cmdline")));
	prop(props, "TESTCFG", json_incref(json_object_get(c, "name")));
	prop(props, "TESTRUNID", json_incref(json_object_get(b, "run_id")));
	prop(props, "FSTESTVER",
	     json_incref(json_object_get(json_object_get(json_object_get(b, "userspace"), "fstests"), "describe")));
	prop(props, "FSAGENT_VERSION", json_incref(json_object_get(b, "fsagent_version")));
	if (it) {
		prop(props, "FSAGENT_ITERATION", json_incref(json_object_get(it, "index")));
		prop(props, "FSAGENT_SEED", json_incref(json_object_get(it, "seed")));
	}
	names = calloc(json_object_size(props) + 1, sizeof(*names));
	if (!names)
		return;
	json_object_foreach(props, key, v)
		names[n++] = key;
	qsort(names, n, sizeof(*names), by_name);
	fputs("\t<properties>\n", out);
	for (size_t i = 0; i < n; i++) {
		fputs("\t\t<property name=\"", out);
		markup_escape(out, names[i]);
		fputs("\" value=\"", out);
		markup_escape(out, json_string_value(json_object_get(props, names[i])));
		fputs("\"/>\n", out);
	}
	fputs("\t</properties>\n", out);
	free(names);
}

/*
 * Config c's testsuite over its iterations [from, to), records only
 * (folded ones have none); id >= 0 adds the aggregated document's package
 * and id. Returns 0 or -ENOMEM.
 */
static int suite(FILE *out, json_t *b, json_t *c, size_t from, size_t to, json_t *sections, long id)
{
	struct suite s = { 0 };
	char section_name[80], start[32], end[32], classname[96];
	json_t *section = section_of(sections, str(c, "name"), section_name), *its = json_object_get(c, "iterations");
	json_t *it, *t;
	size_t i;

	s.cases = open_memstream(&s.text, &s.len);
	if (!s.cases)
		return -ENOMEM;
	snprintf(classname, sizeof(classname), "xfstests.%s", section_name);
	for (size_t k = from; k < to && (it = json_array_get(its, k)); k++)
		json_array_foreach(json_object_get(it, "tests"), i, t)
			record(&s, classname, t);
	if (fclose(s.cases) != 0) {
		free(s.text);
		return -ENOMEM;
	}
	check_time(json_string_value(json_object_get(b, "started")), start);
	check_time(json_is_string(json_object_get(b, "ended")) ? str(b, "ended") : str(b, "started"), end);
	fputs(id >= 0 ? "<testsuite\n"
		      : "<testsuite\n xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
			" xsi:schemaLocation=\"" XUNIT_NS " " XUNIT_NS "/tree/doc/xunit.xsd\"\n",
	      out);
	if (id >= 0)
		fprintf(out, " package=\"xfstests\" id=\"%ld\"\n", id);
	fprintf(out,
		" name=\"xfstests\"\n failures=\"%u\" skipped=\"%u\" tests=\"%u\" time=\"%.3f\"\n"
		" hostname=\"localhost\"\n  start_timestamp=\"%s\"\n        timestamp=\"%s\"\n"
		" report_timestamp=\"%s\"\n>\n",
		s.failures, s.skipped, s.tests, s.time, start, end, end);
	properties(out, b, c, to - from == 1 ? json_array_get(its, from) : NULL, section, section_name);
	fwrite(s.text, 1, s.len, out);
	fputs("</testsuite>\n", out);
	free(s.text);
	return 0;
}

static bool folded(json_t *it)
{
	return json_is_true(json_object_get(it, "folded")) && !json_array_size(json_object_get(it, "tests"));
}

void junit_suites(json_t *b, json_t *sections, FILE *out)
{
	json_t *c, *it;
	size_t i, k;
	long id = 0;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites\n "
	      "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
	      " xsi:schemaLocation=\"" XUNIT_NS " " XUNIT_NS "/tree/doc/xunit.xsd\">\n",
	      out);
	json_array_foreach(json_object_get(b, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it)
			if (!folded(it) && suite(out, b, c, k, k + 1, sections, id) == 0)
				id++;
	fputs("</testsuites>\n", out);
}

int junit_config_suite(json_t *b, json_t *sections, size_t ci, FILE *out)
{
	json_t *c = json_array_get(json_object_get(b, "configs"), ci);

	if (!c)
		return -ENOENT;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	return suite(out, b, c, 0, json_array_size(json_object_get(c, "iterations")), sections, -1);
}
