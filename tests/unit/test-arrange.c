// SPDX-License-Identifier: MIT
/* arrange: a parallel queue's parts (a crash's suspects first, the serial tail last), each keeping its order. */
#include "unit.h"
#include "run/arrange.h"
#include "util/strv.h"

#include <stdlib.h>

static void test_queue(void **state)
{
	char n1[] = "generic/001", n2[] = "generic/002", n3[] = "generic/003", n4[] = "generic/004",
	     n5[] = "generic/005";
	struct selected_test v[] = {
		{ .name = n1 }, { .name = n2, .serial = true }, { .name = n3 },
		{ .name = n4 }, { .name = n5, .serial = true },
	};
	struct selection sel = { v, 5, true };
	char **order = strv_split("generic/005 generic/004 generic/003 generic/002 generic/001", " ");
	char s1[] = "generic/001", s2[] = "generic/005", s3[] = "generic/999";
	char *const suspects[] = { s1, s2, s3, NULL };
	size_t head = 9, par = 9;
	char *joined;

	(void)state;
	assert_int_equal(arrange_queue(order, &sel, NULL, &head, &par), 0);
	assert_int_equal(head, 0);
	assert_int_equal(par, 3);
	joined = strv_join(order, ' ');
	assert_string_equal(joined, "generic/004 generic/003 generic/001 generic/005 generic/002");
	free(joined);
	/* a suspect in the serial group runs as a suspect, first; one not in the queue is no test */
	assert_int_equal(arrange_queue(order, &sel, suspects, &head, &par), 0);
	assert_int_equal(head, 2);
	assert_int_equal(par, 2);
	joined = strv_join(order, ' ');
	assert_string_equal(joined, "generic/001 generic/005 generic/004 generic/003 generic/002");
	free(joined);
	strv_free(order);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
