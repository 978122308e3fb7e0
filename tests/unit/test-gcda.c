// SPDX-License-Identifier: MIT
/* gcda: a .gcda file read whole, or said to be empty, foreign or cut short. */
#include "unit.h"
#include "model/gcda.h"

#include <errno.h>
#include <string.h>

/* gcc 12's a.gcda of a two-function program, as gcov-io wrote it */
static const unsigned char whole[] = {
	0x61, 0x64, 0x63, 0x67, 0x2a, 0x32, 0x32, 0x42, 0xad, 0x73, 0x89, 0x4c, 0x84, 0x64, 0x7d, 0xac, 0x00,
	0x00, 0x00, 0xa1, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x0c, 0x00, 0x00, 0x00, 0xeb, 0x72, 0x70, 0x06, 0x52, 0x71, 0x12, 0xc8, 0xf9, 0x4a, 0xb3,
	0x7c, 0x00, 0x00, 0xa1, 0x01, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x0c, 0x00, 0x00, 0x00, 0xcc,
	0xe5, 0x33, 0x04, 0xa2, 0xf0, 0xeb, 0x8d, 0xe8, 0xe9, 0x5d, 0xdb, 0x00, 0x00, 0xa1, 0x01, 0x08, 0x00,
	0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void test_whole(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_int_equal(sizeof(whole), 116);
	assert_int_equal(gcda_check(whole, sizeof(whole), &why), 0);
	/* GCC 12 writes counters that are all zero as a negative length with no bytes */
	{
		unsigned char zero[sizeof(whole) - 16];

		memcpy(zero, whole, 56);
		memcpy(zero + 56, (const unsigned char[]){ 0xf0, 0xff, 0xff, 0xff }, 4);
		memcpy(zero + 60, whole + 76, sizeof(whole) - 76);
		assert_int_equal(gcda_check(zero, sizeof(zero), &why), 0);
	}
	/* a pre-GCC-12 header (no checksum word) */
	{
		unsigned char old[sizeof(whole) - 4];

		memcpy(old, whole, 12);
		memcpy(old + 12, whole + 16, sizeof(whole) - 16);
		assert_int_equal(gcda_check(old, sizeof(old), &why), 0);
	}
}

static void test_refused(void **state)
{
	const char *why = NULL;
	unsigned char bad[sizeof(whole)];

	(void)state;
	assert_int_equal(gcda_check(whole, 0, &why), -EBADMSG);
	assert_string_equal(why, "empty");
	/* gcov reads these as "nothing reached" and says nothing (cut inside a record; at a record's end it cannot
	 * tell) */
	for (size_t k = 0; k < 6; k++) {
		assert_int_equal(gcda_check(whole, (size_t[]){ 20, 28, 40, 60, 80, 100 }[k], &why), -EBADMSG);
		assert_non_null(strstr(why, "cut short"));
	}
	assert_int_equal(gcda_check(whole, 8, &why), -EBADMSG);
	assert_string_equal(why, "not a gcov data file");
	memcpy(bad, whole, sizeof(bad));
	bad[0] = 'x';
	assert_int_equal(gcda_check(bad, sizeof(bad), &why), -EBADMSG);
	assert_string_equal(why, "not a gcov data file");
	/* a record's length past the end */
	memcpy(bad, whole, sizeof(bad));
	bad[20] = 0x40;
	assert_int_equal(gcda_check(bad, sizeof(bad), &why), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
