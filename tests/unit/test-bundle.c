// SPDX-License-Identifier: MIT
/* bundle: checkpoints, per-iteration journals, torn lines, resume, reading back. */
#include "unit.h"
#include "model/bundle.h"
#include "util/fileio.h"

#include <errno.h>
#include <jansson.h>
#include <unistd.h>

static char t1[] = "generic/001", t2[] = "generic/002", t3[] = "generic/003";
static char *const order[] = { t1, t2, t3, NULL };

static void record(struct bundle *b, json_t *config, json_t *it, const char *name, enum test_status s)
{
	struct test_result t = { .status = s, .duration = 1.5 };

	snprintf(t.name, sizeof(t.name), "%s", name);
	assert_int_equal(bundle_record_test(b, config, it, &t, NULL), 0);
}

/* A run of one config, one iteration: 001 passed, 002 failed, 003 not reached. */
static void make_run(struct bundle *b)
{
	json_t *c, *it;

	assert_int_equal(bundle_create(b, unit_dir, "r1", json_object(), NULL), 0);
	c = bundle_add_config(b, "xfs/4k");
	it = bundle_add_iteration(b, c, 0, "42", order);
	assert_non_null(it);
	assert_int_equal(bundle_write(b), 0);
	record(b, c, it, "generic/001", TS_PASS);
	record(b, c, it, "generic/002", TS_FAIL);
}

static void append(const char *rel, const char *text)
{
	char path[200];

	snprintf(path, sizeof(path), "runs/r1/%s", rel);
	unit_write_file(path, "a", text);
}

static int load(json_t **doc, char *err, size_t es)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/runs/r1", unit_dir);
	return bundle_load(path, doc, err, es);
}

static void test_records_are_journal_lines(void **state)
{
	struct bundle b;
	json_t *doc = NULL, *tests;
	char err[256] = "";

	(void)state;
	make_run(&b);
	/* bundle.json was written before the records: it has no test in it */
	assert_int_equal(b.writes, 2);
	bundle_release(&b);
	assert_int_equal(load(&doc, err, sizeof(err)), 0);
	tests = json_object_get(
		json_array_get(json_object_get(json_array_get(json_object_get(doc, "configs"), 0), "iterations"), 0),
		"tests");
	assert_int_equal(json_array_size(tests), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(tests, 1), "status")), "fail");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "counts"), "pass")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "counts"), "fail")), 1);
	json_decref(doc);
}

static void test_resume_cuts_torn_line_and_goes_on(void **state)
{
	struct bundle b;
	json_t *c = NULL, *it, *doc = NULL;
	char **left = NULL, err[256] = "";

	(void)state;
	make_run(&b);
	bundle_release(&b);
	/* the crash tore the record of generic/003 */
	append("tests/xfs_4k/0.jsonl", "{\"name\":\"generic/003\",\"sta");
	assert_int_equal(bundle_open(&b, unit_dir, "r1"), 0);
	assert_int_equal(bundle_count_recorded(&b), 2);
	c = json_array_get(json_object_get(b.doc, "configs"), 0);
	it = json_array_get(json_object_get(c, "iterations"), 0);
	assert_true(bundle_iteration_running(it));
	assert_string_equal(json_string_value(json_object_get(c, "name")), "xfs/4k");
	assert_false(bundle_config_done(c, 1));
	assert_int_equal(bundle_remaining(&b, c, it, &left), 0);
	assert_non_null(left);
	assert_string_equal(left[0], "generic/003");
	assert_null(left[1]);
	free(left[0]);
	free(left);
	record(&b, c, it, "generic/003", TS_CRASH);
	bundle_iteration_end(it, "done");
	assert_int_equal(bundle_finish(&b, "complete"), 0);
	assert_true(bundle_config_done(c, 1));
	assert_false(bundle_iteration_running(it));
	bundle_release(&b);
	/* the torn bytes are gone: the new record starts its own line */
	assert_int_equal(load(&doc, err, sizeof(err)), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "counts"), "crash")), 1);
	assert_string_equal(json_string_value(json_object_get(doc, "state")), "complete");
	json_decref(doc);
}

static void test_later_record_wins(void **state)
{
	struct bundle b;
	json_t *doc = NULL;
	char err[256] = "";

	(void)state;
	make_run(&b);
	bundle_release(&b);
	append("tests/xfs_4k/0.jsonl", "{\"name\":\"generic/002\",\"status\":\"pass\",\"duration\":1}\n");
	assert_int_equal(load(&doc, err, sizeof(err)), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "counts"), "pass")), 2);
	assert_null(json_object_get(json_object_get(doc, "counts"), "fail"));
	json_decref(doc);
}

static void test_bad_line_named(void **state)
{
	struct bundle b;
	json_t *doc = NULL;
	char err[512] = "";

	(void)state;
	make_run(&b);
	bundle_release(&b);
	append("tests/xfs_4k/0.jsonl", "[1, 2]\n");
	assert_int_equal(load(&doc, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "tests/xfs_4k/0.jsonl:3: not a test record"));
	assert_int_equal(bundle_open(&b, unit_dir, "r1"), -EBADMSG);
}

static void test_hostile_config_refused(void **state)
{
	struct bundle b;
	json_t *doc = NULL;
	char err[512] = "", path[128];

	(void)state;
	make_run(&b);
	json_object_set_new(json_array_get(json_object_get(b.doc, "configs"), 0), "name", json_string("../../etc"));
	assert_int_equal(bundle_write(&b), 0);
	bundle_release(&b);
	assert_int_equal(load(&doc, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "key 'configs[0]'"));
	snprintf(path, sizeof(path), "%s/etc", unit_dir);
	assert_int_equal(access(path, F_OK), -1);
}

static void test_other_schema_refused(void **state)
{
	struct bundle b;
	json_t *doc = NULL;
	char err[512] = "";

	(void)state;
	make_run(&b);
	json_object_set_new(b.doc, "schema", json_string("fsagent-bundle/1"));
	assert_int_equal(bundle_write(&b), 0);
	bundle_release(&b);
	assert_int_equal(load(&doc, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "key 'schema': 'fsagent-bundle/1' is not 'fsagent-bundle/2'"));
}

/* reason and excerpt name the bundle's copy of an artifact, not the guest's path to check's */
static void test_artifact_paths_rebased(void **state)
{
	struct bundle b;
	struct test_result t = { .status = TS_FAIL, .duration = 1 };
	char rdir[128], excerpt[512], err[256] = "";
	json_t *doc = NULL, *c, *it, *rec;

	(void)state;
	snprintf(rdir, sizeof(rdir), "%s/check-results", unit_dir);
	snprintf(excerpt, sizeof(excerpt), "%s/generic", rdir);
	assert_int_equal(fileio_mkdir_p(excerpt), 0);
	unit_write_file("check-results/generic/002.out.bad", "w", "I am intentionally broken\n");
	snprintf(t.name, sizeof(t.name), "generic/002");
	snprintf(t.reason, sizeof(t.reason), "[failed, exit status 1] - output mismatch (see %s/generic/002.out.bad)",
		 rdir);
	snprintf(excerpt, sizeof(excerpt), "+++ %s//generic/002.out.bad\t2026-12-03\n-Silence is golden", rdir);
	t.excerpt = excerpt;
	assert_int_equal(bundle_create(&b, unit_dir, "r1", json_object(), NULL), 0);
	c = bundle_add_config(&b, "xfs/4k");
	it = bundle_add_iteration(&b, c, 0, "42", order);
	assert_int_equal(bundle_record_test(&b, c, it, &t, rdir), 0);
	t.excerpt = NULL;
	assert_int_equal(bundle_finish(&b, "complete"), 0);
	bundle_release(&b);
	assert_int_equal(load(&doc, err, sizeof(err)), 0);
	rec = json_array_get(
		json_object_get(
			json_array_get(
				json_object_get(json_array_get(json_object_get(doc, "configs"), 0), "iterations"), 0),
			"tests"),
		0);
	assert_string_equal(json_string_value(json_object_get(rec, "reason")),
			    "[failed, exit status 1] - output mismatch (see artifacts/xfs_4k/0/generic/002.out.bad)");
	assert_string_equal(json_string_value(json_object_get(rec, "excerpt")),
			    "+++ artifacts/xfs_4k/0/generic/002.out.bad\t2026-12-03\n-Silence is golden");
	assert_string_equal(json_string_value(json_array_get(json_object_get(rec, "artifacts"), 0)),
			    "artifacts/xfs_4k/0/generic/002.out.bad");
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_records_are_journal_lines, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_resume_cuts_torn_line_and_goes_on, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_later_record_wins, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_bad_line_named, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_hostile_config_refused, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_other_schema_refused, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_artifact_paths_rebased, unit_mkdtemp, unit_rmdir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
