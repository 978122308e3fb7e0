// SPDX-License-Identifier: MIT
/* results: the claims ledger and durable JSON writes. */
#include "unit.h"
#include "boot/results.h"
#include "util/fileio.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_ledger(const char *text)
{
	unit_write_file("claims.json", "w", text);
}

static void test_parse(void **state)
{
	char **v = NULL, err[256];

	(void)state;
	assert_int_equal(results_parse_claims("{\"schema\":\"fsagent-claims/1\",\"claims\":[{\"id\":\"serial:a\"},"
					      "{\"id\":\"path:/dev/vdb\",\"role\":\"test\"}]}",
					      &v, err, sizeof(err)),
			 0);
	assert_string_equal(v[0], "serial:a");
	assert_string_equal(v[1], "path:/dev/vdb");
	assert_null(v[2]);
	results_claims_free(v);
}

static void expect_bad(const char *doc, const char *needle)
{
	char **v = NULL, err[256] = "";

	assert_int_equal(results_parse_claims(doc, &v, err, sizeof(err)), -EBADMSG);
	assert_null(v);
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
}

static void test_parse_bad(void **state)
{
	(void)state;
	expect_bad("{\"schema\":\"fsagent-claims/1\",\n\"claims\": [", "claims.json: line 2");
	expect_bad("{\"schema\":\"fsagent-claims/9\",\"claims\":[]}", "key 'schema'");
	expect_bad("{\"schema\":\"fsagent-claims/1\"}", "key 'claims'");
	expect_bad("{\"schema\":\"fsagent-claims/1\",\"claims\":[{\"x\":1}]}", "claims[0].id");
}

static void test_write_keeps_old(void **state)
{
	struct device a = { .name = "vdb", .devnode = "/dev/vdb", .serial = (char *)"fsagent-test", .size_bytes = 42 };
	struct roles r = { .n = 1 };
	char path[128], **v = NULL, err[256];

	(void)state;
	r.v[0] = (struct role_slot){ .role = ROLE_TEST, .dev = &a, .state = ROLE_ASSIGNED };
	snprintf(path, sizeof(path), "%s/claims.json", unit_dir);
	write_ledger("{\"schema\":\"fsagent-claims/1\",\"claims\":[{\"id\":\"serial:old\",\"note\":\"kept\"}]}");
	assert_int_equal(results_write_claims(unit_dir, &r), 0);
	assert_int_equal(results_read_claims(unit_dir, &v, err, sizeof(err)), 0);
	assert_string_equal(v[0], "serial:old");
	assert_string_equal(v[1], "serial:fsagent-test");
	assert_null(v[2]);
	results_claims_free(v);
	/* the unknown key of the old entry survived */
	{
		char *text = NULL;

		assert_int_equal(fileio_read_full(path, &text, NULL), 0);
		assert_non_null(strstr(text, "\"note\": \"kept\""));
		free(text);
	}
}

static void test_write_refuses_bad_ledger(void **state)
{
	struct device a = { .name = "vdb", .devnode = "/dev/vdb" };
	struct roles r = { .n = 1 };
	char path[128], *text = NULL;

	(void)state;
	r.v[0] = (struct role_slot){ .role = ROLE_TEST, .dev = &a, .state = ROLE_ASSIGNED };
	snprintf(path, sizeof(path), "%s/claims.json", unit_dir);
	write_ledger("{ not json");
	assert_int_equal(results_write_claims(unit_dir, &r), -EBADMSG);
	assert_int_equal(fileio_read_full(path, &text, NULL), 0);
	assert_string_equal(text, "{ not json");
	free(text);
}

static void test_missing_ledger(void **state)
{
	char **v = NULL, err[256];

	(void)state;
	assert_int_equal(results_read_claims(unit_dir, &v, err, sizeof(err)), 0);
	assert_null(v[0]);
	results_claims_free(v);
}

static void test_write_json_atomic(void **state)
{
	json_t *doc = json_pack("{s:i}", "a", 1);
	char path[128], tmp[140], *text = NULL;
	struct stat st;

	(void)state;
	assert_int_equal(results_write_json(unit_dir, "caps.json", doc), 0);
	snprintf(path, sizeof(path), "%s/caps.json", unit_dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(fileio_read_full(path, &text, NULL), 0);
	assert_string_equal(text, "{\n  \"a\": 1\n}\n");
	assert_int_equal(stat(tmp, &st), -1); /* no temp file left behind */
	free(text);
	assert_int_equal(results_write_json("/nonexistent/dir", "x.json", doc), -ENOENT);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test_setup_teardown(test_write_keeps_old, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_write_refuses_bad_ledger, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_missing_ledger, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_write_json_atomic, unit_mkdtemp, unit_rmdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
