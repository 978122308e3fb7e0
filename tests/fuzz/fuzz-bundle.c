// SPDX-License-Identifier: MIT
/*
 * The bundle readers (bundle_load for report and aggregate, bundle_scan for
 * compare, upkeep, durations) over a guest-written bundle: the first byte
 * picks which file the rest becomes, bundle.json or the journal (the other
 * is a good one), written to a private directory in /dev/shm.
 */
#include "fuzz.h"
#include "model/bundle.h"
#include "analysis/junit.h"
#include "analysis/report.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static const char good_doc[] =
	"{\"schema\":\"fsagent-bundle/2\",\"run_id\":\"r\",\"state\":\"complete\",\"plan\":{},"
	"\"configs\":[{\"name\":\"xfs/4k\",\"iterations\":[{\"index\":0,\"state\":\"done\",\"counts\":{},"
	"\"order\":[\"generic/001\"]}]}],"
	"\"aggregate\":{\"xfs/4k\":{\"generic/"
	"002\":{\"statuses\":{\"pass\":3},\"duration_total\":3,\"duration_max\":1}}}}";
static const char good_journal[] =
	"{\"name\":\"generic/001\",\"status\":\"fail\",\"duration\":1.5,\"artifacts\":[\"artifacts/xfs_4k/0/generic/"
	"001.out.bad\"]}\n";

static char dir[64];

static void cleanup(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/tests/xfs_4k/0.jsonl", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/tests/xfs_4k", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/tests", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/bundle.json", dir);
	unlink(path);
	rmdir(dir);
}

static void put(const char *name, const void *data, size_t len)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	if (len && write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
}

static int on_outcome(void *ctx, const struct bundle_outcome *o)
{
	/* what a scan hands on was validated: it could not steer a path */
	if (!bundle_test_name_ok(o->test) || o->count > BUNDLE_MAX_COUNT)
		abort();
	++*(unsigned long *)ctx;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct bundle_scan_ops ops = { NULL, on_outcome };
	unsigned long n = 0;
	char err[1024];
	json_t *doc = NULL;

	if (!dir[0]) {
		char sub[128];

		snprintf(dir, sizeof(dir), "/dev/shm/fsagent-fuzz.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(sub, sizeof(sub), "%s/tests", dir);
		mkdir(sub, 0700);
		snprintf(sub, sizeof(sub), "%s/tests/xfs_4k", dir);
		mkdir(sub, 0700);
		atexit(cleanup);
	}
	if (size == 0)
		return 0;
	if (data[0] & 1) {
		put("bundle.json", data + 1, size - 1);
		put("tests/xfs_4k/0.jsonl", good_journal, sizeof(good_journal) - 1);
	} else {
		put("bundle.json", good_doc, sizeof(good_doc) - 1);
		put("tests/xfs_4k/0.jsonl", data + 1, size - 1);
	}
	bundle_scan(dir, &ops, &n, err, sizeof(err));
	if (bundle_load(dir, &doc, err, sizeof(err)) == 0) {
		FILE *null = fopen("/dev/null", "we");

		if (null) {
			report_text(doc, null);
			junit_suites(doc, NULL, null);
			junit_config_suite(doc, NULL, 0, null);
			fclose(null);
		}
		json_decref(doc);
	}
	return 0;
}
