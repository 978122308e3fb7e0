// SPDX-License-Identifier: MIT
/* select + expunge: group.list expansion, exclusions, expunge conditions with reasons. */
#include "unit.h"
#include "model/expunge.h"
#include "run/select.h"
#include "util/strv.h"

#include <errno.h>

#define FAKE FIXTURE_DIR "/../fake-fstests"

static struct expunge_ctx ctx(const char *kernel, const char *fs, const char *config, char **caps)
{
	struct expunge_ctx c = { .fs = fs, .config = config, .arch = "x86_64", .caps = caps };

	assert_int_equal(kver_parse(kernel, &c.kernel), 0);
	return c;
}

static const char *expunge_text = "# known failures\n"
				  "generic/002 kernel<6.6 fs=xfs          # fixed by a commit in 6.6\n"
				  "generic/00? kernel>=6.1 kernel<6.2 config=ext4/1k,ext4/bigalloc_* # a range\n"
				  "xfs/001 cap=dax                       # needs real DAX\n"
				  "xfs/001 !cap=lockdep arch=aarch64     # never on arm without lockdep\n"
				  "\n";

static void test_expunge_parse_and_match(void **state)
{
	struct expunge_list l = { 0 };
	char err[256] = "", dax_s[] = "dax", *dax[] = { dax_s, NULL }, *none[] = { NULL };
	const struct expunge_rule *r;
	struct expunge_ctx c;

	(void)state;
	assert_int_equal(expunge_parse(&l, "expunge/all.txt", expunge_text, err, sizeof(err)), 0);
	assert_int_equal(l.n, 4);
	c = ctx("6.1.0-57-amd64", "xfs", "xfs/4k", none);
	r = expunge_match(&l, "generic/002", &c);
	assert_non_null(r);
	assert_string_equal(r->reason, "fixed by a commit in 6.6");
	assert_string_equal(r->file, "expunge/all.txt");
	assert_int_equal(r->line, 2);
	c = ctx("6.6.0", "xfs", "xfs/4k", none);
	assert_null(expunge_match(&l, "generic/002", &c)); /* fixed from 6.6 on */
	c = ctx("6.6-rc3", "xfs", "xfs/4k", none);
	assert_non_null(expunge_match(&l, "generic/002", &c)); /* an rc comes before the release */
	c = ctx("6.1.90", "ext4", "ext4/bigalloc_1k", none);
	r = expunge_match(&l, "generic/004", &c);
	assert_non_null(r);
	assert_int_equal(r->line, 3);
	c = ctx("6.1.90", "ext4", "ext4/4k", none);
	assert_null(expunge_match(&l, "generic/004", &c));
	c = ctx("6.1", "xfs", "xfs/dax", dax);
	assert_int_equal(expunge_match(&l, "xfs/001", &c)->line, 4);
	c = ctx("6.1", "xfs", "xfs/4k", none);
	assert_null(expunge_match(&l, "xfs/001", &c)); /* x86_64 */
	c.arch = "aarch64";
	assert_int_equal(expunge_match(&l, "xfs/001", &c)->line, 5);
	expunge_list_release(&l);
}

static void expect_bad(const char *text, const char *needle)
{
	struct expunge_list l = { 0 };
	char err[256] = "";

	assert_int_equal(expunge_parse(&l, "x.txt", text, err, sizeof(err)), -EINVAL);
	assert_int_equal(l.n, 0); /* nothing from a bad file is used */
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
}

static void test_expunge_errors(void **state)
{
	(void)state;
	expect_bad("generic/001 # ok\ngeneric/002\n", "x.txt:2: no reason given");
	expect_bad("generic/001 kernel~6.1 # why\n", "x.txt:1: bad condition 'kernel~6.1'");
	expect_bad("generic/001 kernel<six # why\n", "x.txt:1: bad condition 'kernel<six'");
	expect_bad("001 # why\n", "x.txt:1: '001' is not a test");
	expect_bad("generic/001 fs= # why\n", "x.txt:1: bad condition 'fs='");
	expect_bad("generic/001 colour=red # why\n", "bad condition 'colour=red'");
}

static struct selection run_select(struct plan *p, const struct expunge_list *l, const char *fs)
{
	struct selection s = { 0 };
	char err[256] = "", *none[] = { NULL };
	struct expunge_ctx c = ctx("6.1.0", fs, "xfs/4k", none);

	assert_int_equal(select_tests(FAKE, fs, p, l, &c, &s, err, sizeof(err)), 0);
	return s;
}

static const struct selected_test *find(const struct selection *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, name) == 0)
			return &s->v[i];
	return NULL;
}

static void test_select_groups(void **state)
{
	struct plan p;
	struct selection s;
	char err[256];

	(void)state;
	assert_int_equal(plan_init(&p), 0);
	/* default: group auto over generic + xfs, sorted */
	s = run_select(&p, NULL, "xfs");
	assert_int_equal(s.n, 7);
	assert_string_equal(s.v[0].name, "generic/001");
	assert_string_equal(s.v[6].name, "xfs/001");
	assert_null(find(&s, "generic/006")); /* only in group hang */
	assert_null(find(&s, "ext4/001"));
	selection_release(&s);
	/* quick minus flaky, with an exclusion and ext3 mapped to the ext4 dir */
	assert_int_equal(plan_set(&p, "t", 1, "groups", "quick", err, sizeof(err)), 0);
	assert_int_equal(plan_set(&p, "t", 2, "exclude", "generic/002", err, sizeof(err)), 0);
	s = run_select(&p, NULL, "ext3");
	assert_int_equal(s.n, 4);
	assert_int_equal(find(&s, "generic/002")->state, SEL_EXPUNGED);
	assert_string_equal(find(&s, "generic/002")->source, "plan:exclude");
	assert_non_null(find(&s, "ext4/001"));
	selection_release(&s);
	/* dir/group names one directory only */
	assert_int_equal(plan_set(&p, "t", 3, "groups", "selftest/kernel,generic/hang", err, sizeof(err)), 0);
	s = run_select(&p, NULL, "xfs");
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0].name, "generic/006");
	assert_string_equal(s.v[1].name, "selftest/010");
	selection_release(&s);
	plan_release(&p);
}

static void test_select_tests_and_expunges(void **state)
{
	struct expunge_list l = { 0 };
	struct plan p;
	struct selection s;
	char err[256];

	(void)state;
	assert_int_equal(plan_init(&p), 0);
	assert_int_equal(expunge_parse(&l, "expunge/all.txt", expunge_text, err, sizeof(err)), 0);
	/* explicit tests keep their order; globs expand; the default group does not apply */
	assert_int_equal(
		plan_set(&p, "t", 1, "tests", "xfs/001 generic/00? selftest/011 generic/999", err, sizeof(err)), 0);
	s = run_select(&p, &l, "xfs");
	assert_int_equal(s.n, 10);
	assert_string_equal(s.v[0].name, "generic/999");
	assert_int_equal(s.v[0].state, SEL_UNKNOWN);
	assert_string_equal(s.v[1].name, "xfs/001");
	assert_string_equal(s.v[2].name, "generic/001");
	assert_string_equal(s.v[9].name, "selftest/011");
	assert_int_equal(find(&s, "generic/002")->state, SEL_EXPUNGED);
	assert_string_equal(find(&s, "generic/002")->reason, "fixed by a commit in 6.6");
	assert_string_equal(find(&s, "generic/002")->source, "expunge/all.txt:2");
	assert_int_equal(find(&s, "generic/001")->state, SEL_RUN);
	selection_release(&s);
	/* groups given explicitly are a union with the tests */
	assert_int_equal(plan_set(&p, "t", 2, "tests", "selftest/012", err, sizeof(err)), 0);
	assert_int_equal(plan_set(&p, "t", 3, "groups", "quick", err, sizeof(err)), 0);
	assert_int_equal(plan_set(&p, "t", 4, "exclude_groups", "flaky", err, sizeof(err)), 0);
	s = run_select(&p, &l, "xfs");
	assert_string_equal(s.v[0].name, "selftest/012");
	assert_int_equal(s.n, 5);
	selection_release(&s);
	expunge_list_release(&l);
	plan_release(&p);
}

static void test_group_list_errors(void **state)
{
	struct group_list g;
	char err[256] = "";

	(void)state;
	assert_int_equal(select_parse_group_list("generic", "tests/generic/group.list",
						 "# header\n001 auto\nabc auto\n", &g, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "tests/generic/group.list:3: 'abc' is not a test name");
	assert_int_equal(
		select_parse_group_list("generic", "g", "001-foo auto quick # c\n\n002\n", &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.names[0], "001-foo");
	assert_true(strv_contains(g.groups[0], "quick"));
	assert_int_equal(strv_length(g.groups[1]), 0);
	group_list_release(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expunge_parse_and_match), cmocka_unit_test(test_expunge_errors),
		cmocka_unit_test(test_select_groups),		cmocka_unit_test(test_select_tests_and_expunges),
		cmocka_unit_test(test_group_list_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
