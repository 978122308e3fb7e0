// SPDX-License-Identifier: MIT
/*
 * A run resumed after the machine went down (see crash.h).
 */
#include "boot/crash.h"
#include "model/console.h"
#include "model/kmsg.h"
#include "model/result.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"
#include "util/sysroot.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* All the crashed kernel left in pstore (then cleared), or NULL. */
static char *pstore_read(void)
{
	char dir[PATH_MAX];
	DIR *d = sysroot_path(dir, sizeof(dir), "/sys/fs/pstore") < 0 ? NULL : opendir(dir);
	struct dirent *de;
	char *all = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&all, &len);

	while (d && f && (de = readdir(d))) {
		_cleanup_free_ char *buf = NULL;
		char path[PATH_MAX + 256];

		if (!startswith(de->d_name, "dmesg-") && !startswith(de->d_name, "console-"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (fileio_read_full(path, &buf, NULL) == 0) {
			fprintf(f, "--- pstore %s\n%s\n", de->d_name, buf);
			unlink(path); /* read once: a later crash must not inherit it */
		}
	}
	if (d)
		closedir(d);
	if (f)
		fclose(f);
	if (all && !*all) {
		free(all);
		return NULL;
	}
	return all;
}

/* The end of what pstore kept, as a crash's record keeps it: the oops and the panic are the last lines. */
static const char *log_tail(const char *all)
{
	size_t len = all ? strlen(all) : 0;

	return len > 16384 ? all + len - 16384 : all;
}

/* Of iteration's in_flight, the tests still without a result (in left), as a strv; bad entries left out. */
static char **in_flight_left(json_t *it, char **left)
{
	json_t *v;
	char **out = NULL;
	size_t i;

	json_array_foreach(json_object_get(it, "in_flight"), i, v)
		if (json_is_string(v) && strv_contains(left, json_string_value(v)) &&
		    !strv_contains(out, json_string_value(v)))
			strv_push(&out, json_string_value(v));
	return out;
}

/* Whether config runs its tests beside each other: its iterations name what they have in flight. */
static bool parallel_config(json_t *config)
{
	return json_integer_value(json_object_get(json_object_get(config, "parallel"), "runners")) > 1;
}

/* test of iteration it (config's) recorded as the crash, with log: what pstore kept of the kernel's last words. */
static void record_crash(struct bundle *b, json_t *config, json_t *it, const char *test, const char *log)
{
	struct test_result t = { 0 };

	snprintf(t.name, sizeof(t.name), "%s", test);
	t.status = TS_CRASH;
	/* how long it ran before the crash is not known: its duration stays 0 */
	t.kernel_log = log ? strdup(log) : NULL;
	t.kernel_log_len = t.kernel_log ? strlen(t.kernel_log) : 0;
	/* what the crashed kernel reported, as the live log would have been read */
	if (t.kernel_log)
		kmsg_classify_log(t.kernel_log, t.kernel_log_len, t.findings, t.first_report, sizeof(t.first_report));
	snprintf(t.reason, sizeof(t.reason), "the machine crashed or was reset during the test%s",
		 t.kernel_log ? " (kernel log from pstore kept)" : "");
	log_warn("%s %s" CONSOLE_CRASH, json_string_value(json_object_get(config, "name")), t.name);
	bundle_record_test(b, config, it, &t, NULL);
	test_result_release(&t);
}

/* A pair of test names in name order (a copy): the order they started in is the runners' race. */
static json_t *sorted_pair(json_t *pairing)
{
	json_t *a = json_array_get(pairing, 0), *b = json_array_get(pairing, 1);

	if (json_is_string(a) && json_is_string(b) && strcmp(json_string_value(a), json_string_value(b)) > 0)
		return json_pack("[O, O]", b, a);
	return json_deep_copy(pairing);
}

/*
 * Two suspects running together (run/iterations.c's pairs) when the
 * machine went down: the crash is the pair's, recorded on each iteration
 * that named them ("crash_pair", with the crashed kernel's first report).
 * Returns whether a pair was running.
 */
static bool record_pair(struct bundle *b, const char *log)
{
	json_t *c, *it, *pair = NULL;
	unsigned findings[KMSG_FINDING_MAX] = { 0 };
	char first[256] = "";
	size_t i, k;

	json_array_foreach(json_object_get(b->doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it) {
			json_t *rec, *two;

			if (!bundle_iteration_running(it) || !json_is_array(json_object_get(it, "pairing")))
				continue;
			two = sorted_pair(json_object_get(it, "pairing"));
			if (!pair) {
				pair = json_incref(two);
				if (log)
					kmsg_classify_log(log, strlen(log), findings, first, sizeof(first));
				log_warn(
					"%s: the machine went down with %s and %s running together, neither alone: the "
					"crash is the pair's%s%s",
					json_string_value(json_object_get(c, "name")),
					json_string_value(json_array_get(pair, 0)) ?: "?",
					json_string_value(json_array_get(pair, 1)) ?: "?", first[0] ? ": " : "", first);
			}
			rec = json_pack("{s:o}", "tests", two);
			if (rec && first[0])
				json_object_set_new(rec, "first_report", json_string(first));
			json_object_set_new(it, "crash_pair", rec);
			json_object_del(it, "pairing");
			json_object_del(it, "in_flight");
		}
	if (!pair)
		return false;
	bundle_write(b);
	json_decref(pair);
	return true;
}

/*
 * Of a serial run's tests without a result (left, in order), the one
 * that crashed: the first, unless the crashed kernel's log (all pstore
 * kept) says check had
 * started the next one. check starts it the moment the first ends, before
 * fsagent has read the first's verdict and written it down: that result
 * went down with the machine, and the first runs again.
 */
static const char *serial_crashed(json_t *config, char **left, const char *log)
{
	char last[256];

	if (parallel_config(config) || !log || !left[1] ||
	    kmsg_log_last_marker(log, strlen(log), last, sizeof(last)) < 0 || !streq(last, left[1]))
		return left[0];
	log_warn("%s %s ended before %s started (the crashed kernel's log says so), but its result went down with "
		 "the machine: it runs again",
		 json_string_value(json_object_get(config, "name")), left[0], left[1]);
	return left[1];
}

/*
 * Whether the crashed kernel's log, whole since its boot, holds no check
 * marker: no test had started (fsagent was formatting or mounting, or
 * check was starting).
 */
static bool before_any_test(const char *all)
{
	char test[256];

	return all && kmsg_log_from_boot(all, strlen(all)) &&
	       kmsg_log_last_marker(all, strlen(all), test, sizeof(test)) == -ENOENT;
}

/*
 * A crash before any test, on the config being set up (the last one begun:
 * configs are added as their turn comes), counted in its
 * crash_before_tests {boots, first_report}: the run failed, and compare
 * sees the crash though no test's record holds it.
 */
static void record_before_tests(struct bundle *b, const char *first)
{
	json_t *configs = json_object_get(b->doc, "configs"), *c = NULL, *rec;
	size_t i;

	for (i = json_array_size(configs); i-- > 0 && !c;)
		if (streq(json_string_value(json_object_get(json_array_get(configs, i), "status")) ?: "", "run"))
			c = json_array_get(configs, i);
	if (!c)
		return; /* before any config began: the boot's own setup, no config's crash */
	rec = json_object_get(c, "crash_before_tests");
	rec = json_pack("{s:I, s:s}", "boots", json_integer_value(json_object_get(rec, "boots")) + 1, "first_report",
			first);
	json_object_set_new(c, "crash_before_tests", rec);
	bundle_write(b);
}

/*
 * The test that was running when the machine went down: recorded as a
 * crash. Parallel runners (one queue over one config or several, each
 * config's iteration running) name the tests they had in flight: one is
 * the crash's, several its suspects, each config's in its iteration.
 */
int crash_record(struct bundle *b, char *why, size_t ws)
{
	json_t *c, *it, *first_cfg = NULL, *first_it = NULL, *one_cfg = NULL, *one_it = NULL;
	char **first_left = NULL, **one = NULL;
	size_t i, k, total = 0;
	/* read (and cleared) once, whoever is named: a later crash must not inherit it */
	_cleanup_free_ char *all = pstore_read();
	const char *log = log_tail(all);

	why[0] = '\0';
	if (before_any_test(all)) {
		unsigned findings[KMSG_FINDING_MAX] = { 0 };
		char first[256] = "";

		kmsg_classify_log(log, strlen(log), findings, first, sizeof(first));
		snprintf(why, ws,
			 "the machine went down before any test started (formatting, mounting, or check's own "
			 "start)%s%s",
			 first[0] ? ": " : "", first);
		log_warn("%s: no test is its crash; the run goes on (or stops, when every boot goes down so)", why);
		record_before_tests(b, first);
		return 1;
	}
	if (record_pair(b, log))
		return 0;
	json_array_foreach(json_object_get(b->doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it) {
			char **left = NULL, **suspects;
			size_t n;

			if (!bundle_iteration_running(it) || bundle_remaining(b, c, it, &left) < 0 || !left) {
				strv_free(left);
				continue;
			}
			if (!first_it) {
				first_cfg = c, first_it = it, first_left = left;
				left = NULL;
			}
			if (!parallel_config(c) || !json_is_array(json_object_get(it, "in_flight"))) {
				strv_free(left);
				continue;
			}
			suspects = in_flight_left(it, left ? left : first_left);
			strv_free(left);
			n = strv_length(suspects);
			json_object_del(it, "in_flight");
			total += n;
			if (n == 1 && !one) {
				one_cfg = c, one_it = it, one = suspects;
				continue;
			}
			if (n)
				json_object_set_new(it, "suspects", strv_to_json(suspects));
			strv_free(suspects);
		}
	if (total == 1) {
		record_crash(b, one_cfg, one_it, one[0], log);
	} else if (total > 1) {
		if (one)
			json_object_set_new(one_it, "suspects", strv_to_json(one));
		log_warn("the machine went down with %zu tests that may have been running: each runs again alone "
			 "to find which",
			 total);
		bundle_write(b);
	} else if (first_it) {
		/* one at a time (or nothing in flight): the test the iteration was at */
		record_crash(b, first_cfg, first_it, serial_crashed(first_cfg, first_left, all), log);
	}
	strv_free(one);
	strv_free(first_left);
	return 0;
}
