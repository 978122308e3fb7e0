// SPDX-License-Identifier: MIT
/* checkout: check's stdout, in the formats fstests prints (fstests-interface.md section 2). */
#include "unit.h"
#include "model/checkout.h"

struct log {
	char lines[64][256];
	int n;
};

static void record(void *data, const struct checkout_event *ev)
{
	struct log *l = data;
	static const char *const kinds[] = { "START", "RESULT", "EXCERPT", "AGGREGATE" };

	if (l->n >= 64)
		return;
	if (ev->kind == CE_RESULT)
		snprintf(l->lines[l->n++], 256, "RESULT %s v=%d s=%ld %s", ev->test, ev->verdict, ev->seconds,
			 ev->text);
	else if (ev->kind == CE_AGGREGATE)
		snprintf(l->lines[l->n++], 256, "AGGREGATE %s fail=%u pass=%u", ev->test, ev->fails, ev->passes);
	else
		snprintf(l->lines[l->n++], 256, "%s %s%s%s", kinds[ev->kind], ev->test, ev->text ? " " : "",
			 ev->text ? ev->text : "");
}

static char t1[] = "generic/001", t2[] = "selftest/001", t3[] = "selftest/002", t4[] = "selftest/003",
	    t5[] = "selftest/004", t6[] = "selftest/900", t7[] = "xfs/999", t8[] = "generic/005";
static char *tests[] = { t1, t2, t3, t4, t5, t6, t7, t8, NULL };

static void test_session(void **state)
{
	const char *out = "xfs/999 - unknown test, ignored\n"
			  "FSTYP         -- xfs (non-debug)\n"
			  "PLATFORM      -- Linux/x86_64 vm 6.18.44 #1 SMP PREEMPT_DYNAMIC @0\n"
			  "\n"
			  "generic/001         3s\n"
			  "selftest/001 1s ...  0s\n"
			  "selftest/002       - output mismatch (see /r//selftest/002.out.bad)\n"
			  "    --- tests/selftest/002.out\t2026-01-01 13:14:26.000000000 +0000\n"
			  "    +++ /r//selftest/002.out.bad\t2026-12-03 07:56:52.434984285 +0000\n"
			  "    @@ -1,2 +1,2 @@\n"
			  "    -Silence is golden\n"
			  "    ...\n"
			  "    (Run 'diff -u /x /y'  to see the entire diff)\n"
			  "selftest/003       [failed, exit status 1]- output mismatch (see /r//selftest/003.out.bad)\n"
			  "selftest/004       [not run] Always skip me\n"
			  "selftest/004 18s ...  [not run] No hardlink support\n"
			  "selftest/900       _check_dmesg: something found in dmesg (see /r//selftest/900.dmesg)\n"
			  "\n"
			  "generic/005        - output mismatch (see x)\n"
			  "generic/005        2s\n"
			  "generic/005 aggregate results across 2 runs: fail=1 (50.0%), pass=1 (50.0%)\n"
			  "Ran: generic/001 selftest/001\n"
			  "Passed all 2 tests\n";
	struct checkout p;
	struct log l = { 0 };

	(void)state;
	checkout_init(&p, tests, record, &l);
	/* bytes arrive in odd pieces */
	for (size_t i = 0; i < strlen(out); i += 7)
		checkout_feed(&p, out + i, strlen(out) - i < 7 ? strlen(out) - i : 7);
	checkout_finish(&p);
	assert_string_equal(l.lines[0], "START xfs/999");
	assert_string_equal(l.lines[1], "RESULT xfs/999 v=4 s=-1 - unknown test, ignored");
	assert_string_equal(l.lines[2], "START generic/001");
	assert_string_equal(l.lines[3], "RESULT generic/001 v=0 s=3 3s");
	assert_string_equal(l.lines[5], "RESULT selftest/001 v=0 s=0 1s ...  0s");
	assert_string_equal(l.lines[7],
			    "RESULT selftest/002 v=3 s=-1 - output mismatch (see /r//selftest/002.out.bad)");
	assert_string_equal(l.lines[8],
			    "EXCERPT selftest/002 --- tests/selftest/002.out\t2026-01-01 13:14:26.000000000 +0000");
	assert_string_equal(l.lines[13], "EXCERPT selftest/002 (Run 'diff -u /x /y'  to see the entire diff)");
	assert_string_equal(l.lines[15], "RESULT selftest/003 v=3 s=-1 [failed, exit status 1] - output mismatch (see "
					 "/r//selftest/003.out.bad)");
	assert_string_equal(l.lines[17], "RESULT selftest/004 v=1 s=-1 [not run] Always skip me");
	/* a run before left its time first (real check, exfat): the reason still from "[not run]" on */
	assert_string_equal(l.lines[19], "RESULT selftest/004 v=1 s=-1 [not run] No hardlink support");
	assert_string_equal(
		l.lines[21],
		"RESULT selftest/900 v=3 s=-1 _check_dmesg: something found in dmesg (see /r//selftest/900.dmesg)");
	assert_string_equal(l.lines[23], "RESULT generic/005 v=3 s=-1 - output mismatch (see x)");
	assert_string_equal(l.lines[25], "RESULT generic/005 v=0 s=2 2s");
	assert_string_equal(l.lines[26], "AGGREGATE generic/005 fail=1 pass=1");
	assert_int_equal(l.n, 27);
}

static bool startswith_said(const char *s)
{
	return strncmp(s, "mkfs.xfs: some complaint or other / ", 36) == 0;
}

static void test_partial_line_is_running(void **state)
{
	struct checkout p;
	struct log l = { 0 };

	(void)state;
	checkout_init(&p, tests, record, &l);
	checkout_feed(&p, "generic/00", 10);
	assert_int_equal(l.n, 0);
	checkout_feed(&p, "1        ", 9); /* name and padding: the test is running */
	assert_int_equal(l.n, 1);
	assert_string_equal(l.lines[0], "START generic/001");
	checkout_feed(&p, " 5s\n", 4);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.lines[1], "RESULT generic/001 v=0 s=5 5s");
}

static void test_verdicts(void **state)
{
	long s;

	(void)state;
	assert_int_equal(checkout_parse_verdict("  12s", &s), CV_PASS);
	assert_int_equal(s, 12);
	assert_int_equal(checkout_parse_verdict(" [07:57:15] [07:57:16] 1s", &s), CV_PASS);
	assert_int_equal(s, 1);
	assert_int_equal(checkout_parse_verdict(" [07:57:16] [07:57:16] [not run]", &s), CV_NOTRUN);
	assert_int_equal(checkout_parse_verdict("[expunged]", &s), CV_EXPUNGED);
	assert_int_equal(
		checkout_parse_verdict("_check_xfs_filesystem: filesystem on /dev/loop1 is inconsistent (r)", &s),
		CV_FAIL);
	assert_int_equal(checkout_parse_verdict("[dumped core]", &s), CV_FAIL);
	assert_int_equal(checkout_parse_verdict("- no such test?", &s), CV_UNKNOWN_TEST);
}

/* check stopping before any test (the real check's _fatal on a failed mkfs): its own words are kept */
static void test_said(void **state)
{
	static const char out[] = "SECTION       -- xfs_logdev\n"
				  "FSTYP         -- xfs (non-debug)\n"
				  "PLATFORM      -- Linux/x86_64 fsagent 6.1.0-57-amd64\n"
				  "MKFS_OPTIONS  -- -f -llogdev=/dev/vdf /dev/vdd\n"
				  "\n"
				  "our local _scratch_mkfs routine ...\n"
				  "/dev/vdf: No such file or directory\n"
				  "check: failed to mkfs $SCRATCH_DEV using specified options\n"
				  "Interrupted!\n"
				  "Passed all 0 tests\n";
	struct checkout p;
	struct log l = { 0 };

	(void)state;
	checkout_init(&p, tests, record, &l);
	checkout_feed(&p, out, sizeof(out) - 1);
	checkout_finish(&p);
	assert_int_equal(l.n, 0);
	assert_string_equal(p.said, "our local _scratch_mkfs routine ... / /dev/vdf: No such file or directory / "
				    "check: failed to mkfs $SCRATCH_DEV using specified options");
	/* bounded: a flood keeps the first words and stays terminated */
	checkout_init(&p, tests, record, &l);
	for (int i = 0; i < 100; i++)
		checkout_feed(&p, "mkfs.xfs: some complaint or other\n", 34);
	assert_true(strlen(p.said) < sizeof(p.said));
	assert_true(startswith_said(p.said));
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_partial_line_is_running),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_said),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
