// SPDX-License-Identifier: MIT
/* kver: parsing kernel releases and ordering them. */
#include "unit.h"
#include "model/kver.h"

#include <errno.h>

static void test_parse(void **state)
{
	struct kver v;

	(void)state;
	assert_int_equal(kver_parse("6.1.0-57-amd64", &v), 0);
	assert_int_equal(v.major, 6);
	assert_int_equal(v.minor, 1);
	assert_int_equal(v.patch, 0);
	assert_int_equal(v.rc, 0);
	assert_int_equal(kver_parse("6.6-rc3+", &v), 0);
	assert_int_equal(v.minor, 6);
	assert_int_equal(v.rc, 3);
	assert_int_equal(kver_parse("5.15.148", &v), 0);
	assert_int_equal(v.patch, 148);
	assert_int_equal(kver_parse("6.18.44-fc-v1147", &v), 0);
	assert_int_equal(v.minor, 18);
}

static void test_parse_bad(void **state)
{
	struct kver v;

	(void)state;
	assert_int_equal(kver_parse("", &v), -EINVAL);
	assert_int_equal(kver_parse("6", &v), -EINVAL);
	assert_int_equal(kver_parse("v6.1", &v), -EINVAL);
	assert_int_equal(kver_parse("6.x", &v), -EINVAL);
	assert_int_equal(kver_parse("6.1.", &v), -EINVAL);
}

static int cmp(const char *a, const char *b)
{
	struct kver x, y;

	assert_int_equal(kver_parse(a, &x), 0);
	assert_int_equal(kver_parse(b, &y), 0);
	return kver_cmp(&x, &y);
}

static void test_cmp(void **state)
{
	(void)state;
	assert_true(cmp("6.1.0", "6.6.0") < 0);
	assert_true(cmp("6.10", "6.9") > 0); /* numeric, not lexical */
	assert_true(cmp("6.6-rc3", "6.6") < 0);
	assert_true(cmp("6.6-rc3", "6.6-rc10") < 0);
	assert_true(cmp("6.6", "6.6.1") < 0);
	assert_int_equal(cmp("6.1.0-57-amd64", "6.1"), 0);
	assert_true(cmp("5.15.200", "6.1") < 0);
}

/* fsagent.commit= and fsagent.describe=: the launcher's words for a kernel built from a commit */
static void test_cmdline_git(void **state)
{
	const char *cl = "console=ttyS0 fsagent.commit=0123456789abcdef0123456789abcdef01234567 "
			 "fsagent.describe=v6.1.58-3-g0123456789ab quiet";
	char buf[KVER_DESCRIBE_MAX + 1];

	(void)state;
	assert_int_equal(kver_cmdline_value(cl, "fsagent.commit=", kver_commit_ok, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(kver_cmdline_value(cl, "fsagent.describe=", kver_describe_ok, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "v6.1.58-3-g0123456789ab");
	assert_int_equal(kver_cmdline_value("quiet", "fsagent.commit=", kver_commit_ok, buf, sizeof(buf)), -ENOENT);
	/* short, upper case, too long: refused */
	assert_int_equal(
		kver_cmdline_value("fsagent.commit=0123abc", "fsagent.commit=", kver_commit_ok, buf, sizeof(buf)),
		-EINVAL);
	assert_int_equal(kver_cmdline_value("fsagent.commit=0123456789ABCDEF0123456789abcdef01234567",
					    "fsagent.commit=", kver_commit_ok, buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(
		kver_cmdline_value("fsagent.describe=v6.1`x`", "fsagent.describe=", kver_describe_ok, buf, sizeof(buf)),
		-EINVAL);
	assert_int_equal(kver_cmdline_value("fsagent.describe=v6.1", "fsagent.describe=", kver_describe_ok, buf, 4),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdline_git),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_cmp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
