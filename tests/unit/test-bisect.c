// SPDX-License-Identifier: MIT
/* bisect: the posterior over a line's culprit and the steps it asks for, with simulated runs. */
#include "unit.h"
#include "analysis/bisect.h"

#include <errno.h>
#include <string.h>

/* A deterministic line: commits >= culprit fail every run of every `period`-th run overall, the others never. */
struct line {
	size_t culprit;
	unsigned period, counter;
	unsigned long runs;
	unsigned probes;
};

static unsigned run(struct line *l, const struct bisect_step *s, unsigned *done)
{
	unsigned f = 0, k;

	for (k = 0; k < s->runs;) {
		k++;
		l->runs++;
		if (s->commit >= l->culprit && ++l->counter % l->period == 0) {
			f++;
			if (s->stop_at_fail)
				break;
		}
	}
	*done = k;
	return f;
}

/* Drive b over l until it stops; returns the last step. */
static struct bisect_step drive(struct bisect *b, struct line *l, unsigned max_probes)
{
	struct bisect_step s;

	for (;;) {
		unsigned done, f;

		assert_int_equal(bisect_next(b, &s), 0);
		if (s.action != BISECT_PROBE)
			return s;
		assert_true(s.runs >= 1);
		assert_false(bisect_skipped(b, s.commit));
		assert_true(++l->probes <= max_probes);
		f = run(l, &s, &done);
		bisect_record(b, s.commit, done, f);
	}
}

static void test_always_fails(void **state)
{
	struct bisect_opts o;
	struct bisect *b;
	struct line l = { .culprit = 73, .period = 1 };
	struct bisect_step s;

	(void)state;
	bisect_opts_default(&o);
	assert_int_equal(bisect_new(201, &o, &b), 0);
	assert_int_equal(bisect_next(b, &s), 0);
	/* the ends first: the bad end, then the good one */
	assert_int_equal(s.action, BISECT_PROBE);
	assert_string_equal(s.phase, "bad end");
	assert_int_equal(s.commit, 200);
	s = drive(b, &l, 40);
	assert_int_equal(s.action, BISECT_FOUND);
	assert_int_equal(s.commit, 73);
	assert_int_equal(s.first, 73);
	assert_true(s.confidence >= 0.99);
	assert_true(bisect_posterior(b, 73) >= 0.99);
	assert_true(bisect_posterior(b, 0) < 0.01);
	/* confirmed: the culprit failed twice, its parent ran */
	assert_true(bisect_fails(b, 73) >= 2);
	assert_true(bisect_runs(b, 72) >= 1);
	assert_int_equal(bisect_fails(b, 72), 0);
	assert_true(l.runs <= 40);
	bisect_free(b);
}

/* Failing one run in four: found, at more runs, with the rates estimated near the truth. */
static void test_flaky(void **state)
{
	struct bisect_opts o;
	struct bisect *b;
	struct line l = { .culprit = 150, .period = 4 };
	struct bisect_step s;
	double good, bad;

	(void)state;
	bisect_opts_default(&o);
	assert_int_equal(bisect_new(301, &o, &b), 0);
	s = drive(b, &l, 200);
	assert_int_equal(s.action, BISECT_FOUND);
	assert_int_equal(s.commit, 150);
	bisect_rates(b, &good, &bad);
	assert_true(good < 0.05);
	assert_true(bad > 0.15 && bad < 0.4);
	bisect_free(b);
}

/* The culprit's neighbour cannot be built: "one of A, B", never a probe of the skipped one. */
static void test_skipped_neighbour(void **state)
{
	struct bisect_opts o;
	struct bisect *b;
	struct line l = { .culprit = 41, .period = 1 };
	struct bisect_step s;

	(void)state;
	bisect_opts_default(&o);
	assert_int_equal(bisect_new(101, &o, &b), 0);
	bisect_skip(b, 40);
	s = drive(b, &l, 60);
	assert_int_equal(s.action, BISECT_FOUND);
	assert_int_equal(s.commit, 41);
	assert_int_equal(s.first, 40);
	assert_int_equal(bisect_runs(b, 40), 0);
	/* the group's parent is the commit before the skipped one */
	assert_true(bisect_runs(b, 39) >= 1);
	bisect_free(b);
}

/* A commit that failed, then gave no result: known bad, the verdict names it alone; stuck when its proof needs it. */
static void test_skipped_after_runs(void **state)
{
	struct bisect_opts o;
	struct bisect *b;
	struct line l = { .culprit = 40, .period = 1 };
	struct bisect_step s;

	(void)state;
	bisect_opts_default(&o);
	assert_int_equal(bisect_new(101, &o, &b), 0);
	bisect_record(b, 40, 5, 5);
	bisect_skip(b, 40);
	s = drive(b, &l, 60);
	assert_int_equal(s.action, BISECT_FOUND);
	assert_int_equal(s.commit, 40);
	assert_int_equal(s.first, 40);
	assert_int_equal(bisect_runs(b, 40), 5);
	bisect_free(b);

	/* a flaky culprit that failed once, then gave no result: the confirmation cannot be run */
	assert_int_equal(bisect_new(101, &o, &b), 0);
	bisect_record(b, 40, 1, 1);
	bisect_skip(b, 40);
	l = (struct line){ .culprit = 40, .period = 2 };
	s = drive(b, &l, 300);
	assert_int_equal(s.action, BISECT_STUCK);
	assert_non_null(strstr(s.why, "last probe gave no result"));
	assert_int_equal(bisect_runs(b, 40), 1);
	bisect_free(b);
}

static void test_no_difference(void **state)
{
	struct bisect_opts o;
	struct bisect *b;
	struct bisect_step s;
	struct line l = { .culprit = 0, .period = 2 };

	(void)state;
	bisect_opts_default(&o);
	/* both ends fail half their runs */
	assert_int_equal(bisect_new(51, &o, &b), 0);
	s = drive(b, &l, 100);
	assert_int_equal(s.action, BISECT_NO_DIFFERENCE);
	assert_non_null(s.why);
	bisect_free(b);
	/* the bad end never fails: said after max_end_runs, not run forever */
	o.max_end_runs = 30;
	assert_int_equal(bisect_new(51, &o, &b), 0);
	l = (struct line){ .culprit = 1000, .period = 1 };
	s = drive(b, &l, 100);
	assert_int_equal(s.action, BISECT_NO_DIFFERENCE);
	assert_int_equal(bisect_runs(b, 50), 30);
	assert_int_equal(bisect_runs(b, 0), 0);
	bisect_free(b);
}

/* Every commit between the ends skipped: the culprit is one of them all, or the bad end. */
static void test_all_skipped(void **state)
{
	struct bisect_opts o;
	struct bisect *b;
	struct line l = { .culprit = 3, .period = 1 };
	struct bisect_step s;

	(void)state;
	bisect_opts_default(&o);
	assert_int_equal(bisect_new(6, &o, &b), 0);
	for (size_t j = 1; j < 5; j++)
		bisect_skip(b, j);
	s = drive(b, &l, 30);
	assert_int_equal(s.action, BISECT_FOUND);
	assert_int_equal(s.first, 1);
	assert_int_equal(s.commit, 5);
	bisect_free(b);
}

/* An end that cannot be built or tested ends the bisection: nothing to compare */
static void test_end_skipped(void **state)
{
	struct bisect_opts o;
	struct bisect *b;
	struct bisect_step s;

	(void)state;
	bisect_opts_default(&o);
	assert_int_equal(bisect_new(10, &o, &b), 0);
	bisect_skip(b, 9);
	assert_int_equal(bisect_next(b, &s), 0);
	assert_int_equal(s.action, BISECT_STUCK);
	assert_string_equal(s.why, "the bad end cannot be built or tested");
	bisect_free(b);
	assert_int_equal(bisect_new(10, &o, &b), 0);
	bisect_record(b, 9, 2, 2);
	bisect_skip(b, 0);
	assert_int_equal(bisect_next(b, &s), 0);
	assert_int_equal(s.action, BISECT_STUCK);
	assert_string_equal(s.why, "the good end cannot be built or tested");
	bisect_free(b);
}

static void test_bad_options(void **state)
{
	struct bisect_opts o;
	struct bisect *b = NULL;

	(void)state;
	bisect_opts_default(&o);
	assert_int_equal(bisect_new(1, &o, &b), -EINVAL);
	o.confidence = 1;
	assert_int_equal(bisect_new(10, &o, &b), -EINVAL);
	bisect_opts_default(&o);
	o.end_fails = 0;
	assert_int_equal(bisect_new(10, &o, &b), -EINVAL);
	assert_null(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_always_fails),	  cmocka_unit_test(test_flaky),
		cmocka_unit_test(test_skipped_neighbour), cmocka_unit_test(test_skipped_after_runs),
		cmocka_unit_test(test_no_difference),	  cmocka_unit_test(test_all_skipped),
		cmocka_unit_test(test_bad_options),	  cmocka_unit_test(test_end_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
