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

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The last lines the crashed kernel left in pstore (then cleared), or NULL. */
static char *pstore_tail(void)
{
	DIR *d = opendir("/sys/fs/pstore");
	struct dirent *de;
	char *all = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&all, &len);

	while (d && f && (de = readdir(d))) {
		_cleanup_free_ char *buf = NULL;
		char path[PATH_MAX];

		if (!startswith(de->d_name, "dmesg-") && !startswith(de->d_name, "console-"))
			continue;
		snprintf(path, sizeof(path), "/sys/fs/pstore/%s", de->d_name);
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
	/* keep the end: the oops and the panic are the last lines */
	if (all && len > 16384) {
		memmove(all, all + len - 16384, 16384);
		all[16384] = '\0';
	}
	return all;
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

/* The test that was running when the machine went down: recorded as a crash. */
void crash_record(struct bundle *b)
{
	json_t *config = NULL, *it = bundle_running_iteration(b, &config);
	struct test_result t = { 0 };
	char **left = NULL;

	if (!it || bundle_remaining(b, config, it, &left) < 0 || !left) {
		strv_free(left);
		return; /* between iterations: nothing was in flight */
	}
	/* a parallel run names the tests it had in flight: one is the crash's, several its suspects */
	if (json_is_array(json_object_get(it, "in_flight"))) {
		char **suspects = in_flight_left(it, left);
		size_t n = strv_length(suspects);

		json_object_del(it, "in_flight");
		strv_free(left);
		left = suspects;
		if (n != 1) {
			if (n) {
				log_warn("%s: the machine went down with %zu tests in flight (%s ...): each runs again "
					 "alone to find which",
					 json_string_value(json_object_get(config, "name")), n, suspects[0]);
				json_object_set_new(it, "suspects", strv_to_json(suspects));
			}
			strv_free(suspects);
			bundle_write(b);
			return;
		}
	}
	snprintf(t.name, sizeof(t.name), "%s", left[0]);
	strv_free(left);
	t.status = TS_CRASH;
	/* how long it ran before the crash is not known: its duration stays 0 */
	t.kernel_log = pstore_tail();
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
