// SPDX-License-Identifier: MIT
/* probe_count: a probe's runs and failures from its results, crashes no test's record holds among them. */
#include "unit.h"
#include "engine/probe.h"
#include "util/fileio.h"

#include <limits.h>
#include <string.h>

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX], dir[PATH_MAX];

	snprintf(path, sizeof(path), "%s/run/%s", unit_dir, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(fileio_mkdir_p(dir), 0);
	assert_int_equal(fileio_write_atomic(path, text, strlen(text)), 0);
}

/* Two replicas of generic/001 in one queue: each passed alone after a crash with both in flight. */
static void test_replicas_crash(void **state)
{
	json_t *tests = json_pack("[s]", "generic/001"), *how = NULL;
	struct probe p = { .tests = tests, .config = "xfs/4k", .dir = unit_dir };
	unsigned runs, fails;

	(void)state;
	put("bundle.json",
	    "{\"schema\": \"fsagent-bundle/2\", \"run_id\": \"r\", \"state\": \"complete\", \"plan\": {},"
	    " \"configs\": [{\"name\": \"xfs/4k\", \"iterations\": ["
	    "{\"index\": 0, \"order\": [\"generic/001\"], \"crash_unexplained\": [\"generic/001\"]},"
	    "{\"index\": 1, \"order\": [\"generic/001\"]}]}]}\n");
	put("tests/xfs_4k/0.jsonl", "{\"name\": \"generic/001\", \"status\": \"pass\", \"duration\": 1}\n");
	put("tests/xfs_4k/1.jsonl", "{\"name\": \"generic/001\", \"status\": \"pass\", \"duration\": 1}\n");
	assert_int_equal(probe_count(&p, unit_dir, &runs, &fails, &how), 0);
	/* the two records and the crash: before, 2 runs and no failure, the crash lost */
	assert_int_equal(runs, 3);
	assert_int_equal(fails, 1);
	assert_non_null(how);
	assert_string_equal(json_string_value(json_object_get(how, "why")),
			    "the machine went down with generic/001 in flight; none crashed again alone or in pairs");
	json_decref(how);
	/* another config's probe: none of it */
	p.config = "ext4/4k";
	assert_int_equal(probe_count(&p, unit_dir, &runs, &fails, NULL), 0);
	assert_int_equal(runs, 0);
	assert_int_equal(fails, 0);
	json_decref(tests);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_replicas_crash, unit_mkdtemp, unit_rmdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
