// SPDX-License-Identifier: MIT
/* schedule: a queue of tests over runners, longest first, equals by seed; its makespan against check-parallel's. */
#include "unit.h"
#include "model/schedule.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void test_longest_first(void **state)
{
	const struct sched_item it[] = { { "generic/001", 1 }, { "generic/002", 5 }, { "generic/003", 3 } };
	size_t order[3];

	(void)state;
	assert_int_equal(sched_order(it, 3, 7, order), 0);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 0);
}

/* the names of a queue of ten equal tests, in order, for a seed; the list given in either direction */
static void equal_names(uint64_t seed, bool reversed, char *out, size_t size)
{
	static const char *const names[] = { "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9" };
	struct sched_item it[10];
	size_t order[10], len = 0;

	for (size_t i = 0; i < 10; i++)
		it[i] = (struct sched_item){ names[reversed ? 9 - i : i], 2.5 };
	assert_int_equal(sched_order(it, 10, seed, order), 0);
	out[0] = '\0';
	for (size_t i = 0; i < 10; i++)
		len += (size_t)snprintf(out + len, size - len, "%s ", it[order[i]].name);
}

static void test_equals_by_seed(void **state)
{
	char a[64], b[64], c[64];

	(void)state;
	equal_names(42, false, a, sizeof(a));
	equal_names(42, true, b, sizeof(b));
	equal_names(43, false, c, sizeof(c));
	/* a seed replays its queue, wherever the tests sat in the list; another seed another queue */
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	assert_string_not_equal(a, "t0 t1 t2 t3 t4 t5 t6 t7 t8 t9 ");
}

/*
 * 5, 4, 3, 3, 3 seconds on 2 runners. The queue: 5 on runner 0, 4 on 1,
 * then each 3 to whichever is free first: 1 (at 4), 0 (at 5), 1 (at 7):
 * done at 10. Dealt round-robin, runner 0 holds 5 + 3 + 3 = 11. No schedule
 * beats 18 / 2 = 9.
 */
static void test_makespans(void **state)
{
	const struct sched_item it[] = { { "a", 3 }, { "b", 5 }, { "c", 3 }, { "d", 4 }, { "e", 3 } };
	size_t order[5];
	unsigned runner[5];
	double start[5];

	(void)state;
	assert_int_equal(sched_order(it, 5, 1, order), 0);
	assert_true(it[order[0]].seconds == 5 && it[order[1]].seconds == 4);
	assert_true(sched_makespan(it, order, 5, 2, runner, start) == 10);
	assert_int_equal(runner[1], 0);
	assert_true(start[1] == 0);
	assert_int_equal(runner[3], 1);
	assert_true(start[3] == 0);
	assert_true(start[order[2]] == 4 && runner[order[2]] == 1);
	assert_true(start[order[3]] == 5 && runner[order[3]] == 0);
	assert_true(start[order[4]] == 7 && runner[order[4]] == 1);
	assert_true(sched_round_robin(it, order, 5, 2) == 11);
	assert_true(sched_lower_bound(it, 5, 2) == 9);
	/* one runner: the sum; more runners than tests: the longest */
	assert_true(sched_makespan(it, order, 5, 1, NULL, NULL) == 18);
	assert_true(sched_makespan(it, order, 5, 8, NULL, NULL) == 5);
	assert_true(sched_lower_bound(it, 5, 8) == 5);
	assert_true(sched_makespan(it, order, 5, 0, NULL, NULL) < 0);
}

/* Batches: long tests alone, short ones together up to a minimum, never past a fair share, finer at the end. */
static void test_batches(void **state)
{
	double e[104];

	(void)state;
	/* a longest-first queue: two 300 s tests, then a hundred of 2 s */
	e[0] = e[1] = 300;
	for (int i = 2; i < 102; i++)
		e[i] = 2;
	assert_int_equal(sched_batch(e, 102, 4, 60), 1);      /* 800 s left: 100 s a batch, the 300 s test alone */
	assert_int_equal(sched_batch(e + 2, 100, 4, 60), 25); /* 200 s left: 50 s, a runner's fair share, under 60 */
	assert_int_equal(sched_batch(e + 2, 100, 4, 20), 12); /* a minimum under 200 / 8: 25 s, twelve 2 s tests */
	assert_int_equal(sched_batch(e + 72, 30, 4, 60), 7);  /* 60 s left: the fair share, 15 s */
	assert_int_equal(sched_batch(e + 100, 2, 4, 60), 1);  /* the end: one at a time */
	assert_int_equal(sched_batch(e + 2, 100, 1, 60), 50); /* one runner: half of what is left */
	e[102] = e[103] = 1;
	assert_int_equal(sched_batch(e + 2, 102, 2, 60), 30); /* 202 s for 2 runners: 60 s of 2 s tests */
	assert_int_equal(sched_batch(e, 0, 4, 60), 0);
	/* nothing known: counts (1 each) */
	for (int i = 0; i < 8; i++)
		e[i] = 1;
	assert_int_equal(sched_batch(e, 8, 2, 0), 2);
	/* ... as fsagent takes them: a runner's share of all, the others' batches in flight counted */
	assert_int_equal(sched_batch_busy(e, 8, 2, HUGE_VAL, 0), 4);
	assert_int_equal(sched_batch_busy(e, 4, 2, HUGE_VAL, 4), 4); /* the other took 4 of 8: the rest */
	assert_int_equal(sched_batch_busy(e, 6, 3, HUGE_VAL, 6), 4); /* 12 in all over 3 runners */
}

static void test_median(void **state)
{
	const double e[] = { -1, 5, 1, 30, -1, 2 };
	bool known;

	(void)state;
	assert_true(sched_median_known(e, 6, &known) == 5 && known);  /* of 1 2 5 30, the upper middle */
	assert_true(sched_median_known(e, 1, &known) == 1 && !known); /* none known: 1 */
	assert_true(sched_median_known(NULL, 3, &known) == 1 && !known);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longest_first), cmocka_unit_test(test_equals_by_seed),
		cmocka_unit_test(test_makespans),     cmocka_unit_test(test_batches),
		cmocka_unit_test(test_median),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
