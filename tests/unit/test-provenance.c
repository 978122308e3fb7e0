// SPDX-License-Identifier: MIT
/* provenance: a bundle's userspace record summarised and two sides compared; tools' version words. */
#include "unit.h"
#include "analysis/provenance.h"
#include "machine/userspace.h"

#include <string.h>

static json_t *record(const char *describe, const char *image, const char *mkfs)
{
	return json_pack("{s:s, s:{s:s, s:b}, s:s, s:{s:s, s:s}}", "schema", "fsagent-userspace/1", "fstests",
			 "describe", describe, "dirty", 0, "image_id", image, "tools", "mkfs.xfs", mkfs, "mke2fs",
			 "mke2fs 1.47.0 (5-Feb-2023)");
}

/* A record's summary, the record gone. */
static json_t *summ(const char *describe, const char *image, const char *mkfs)
{
	json_t *r = record(describe, image, mkfs), *s = provenance_summary(r);

	json_decref(r);
	return s;
}

static void test_summary_and_diff(void **state)
{
	json_t *b = json_array(), *c = json_array(), *d, *x;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	provenance_add(b, summ("v2026.01.05", "aaaa", "mkfs.xfs version 6.1.0"));
	/* the same again: one summary */
	provenance_add(b, summ("v2026.01.05", "aaaa", "mkfs.xfs version 6.1.0"));
	assert_int_equal(json_array_size(b), 1);
	provenance_add(c, summ("v2026.01.05", "aaaa", "mkfs.xfs version 6.1.0"));
	d = provenance_diff(b, c);
	assert_int_equal(json_array_size(d), 0);
	json_decref(d);
	/* another fstests and another mkfs.xfs on the candidate: both named, the same mke2fs not */
	provenance_add(c, summ("v2026.01.12-dirty", "bbbb", "mkfs.xfs version 6.8.0"));
	d = provenance_diff(b, c);
	assert_int_equal(json_array_size(d), 3);
	x = json_array_get(d, 0);
	assert_string_equal(json_string_value(json_object_get(x, "what")), "fstests");
	assert_int_equal(json_array_size(json_object_get(x, "candidate")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 2), "what")), "mkfs.xfs");
	json_decref(d);
	/* a side that recorded nothing (older bundles) is no difference */
	json_array_clear(c);
	provenance_add(c, provenance_summary(NULL));
	d = provenance_diff(b, c);
	assert_int_equal(json_array_size(d), 0);
	json_decref(d);
	/* text */
	f = open_memstream(&text, &len);
	x = record("v1", "cccc", "mkfs.xfs version 6.1.0");
	provenance_text(x, f);
	fclose(f);
	assert_string_equal(text, "fstests v1, image cccc; mkfs.xfs version 6.1.0, mke2fs 1.47.0 (5-Feb-2023)");
	free(text);
	/* tools built from source are named, with what they came from when known */
	json_object_set_new(
		x, "built_tools",
		json_pack("{s:{s:s}, s:{s:n}}", "xfsprogs", "describe", "v6.12.0", "e2fsprogs", "describe"));
	f = open_memstream(&text, &len);
	provenance_text(x, f);
	fclose(f);
	assert_non_null(strstr(text, "; built from source: e2fsprogs, xfsprogs v6.12.0")
				? strstr(text, "; built from source: e2fsprogs, xfsprogs v6.12.0")
				: strstr(text, "; built from source: xfsprogs v6.12.0, e2fsprogs"));
	free(text);
	json_decref(x);
	json_decref(b);
	json_decref(c);
}

static void test_hostile(void **state)
{
	char big[300];
	json_t *r, *s;

	(void)state;
	/* overlong and non-string values are left out, not trusted */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	r = json_pack("{s:{s:s}, s:i, s:{s:s, s:i}}", "fstests", "describe", big, "image_id", 7, "tools", "mkfs.xfs",
		      big, "xfs_io", 3);
	s = provenance_summary(r);
	assert_false(json_is_string(json_object_get(s, "fstests")));
	assert_false(json_is_string(json_object_get(s, "image")));
	assert_int_equal(json_object_size(json_object_get(s, "tools")), 0);
	json_decref(s);
	json_decref(r);
}

static void test_version_line(void **state)
{
	char buf[32];
	const char *out = "\n\nmke2fs 1.47.0 (5-Feb-2023)\n\tUsing EXT2FS Library version 1.47.0\n";

	(void)state;
	userspace_version_line(out, strlen(out), buf, sizeof(buf));
	assert_string_equal(buf, "mke2fs 1.47.0 (5-Feb-2023)");
	userspace_version_line("a\x1b[31mb\r\n", 10, buf, sizeof(buf));
	assert_string_equal(buf, "a?[31mb");
	userspace_version_line("", 0, buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* cut to the buffer */
	userspace_version_line("0123456789", 10, buf, 5);
	assert_string_equal(buf, "0123");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_and_diff),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_version_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
