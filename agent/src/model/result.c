// SPDX-License-Identifier: MIT
/*
 * Test results (see result.h).
 */
#include "model/result.h"

#include <stdlib.h>

const char *test_status_to_string(enum test_status s)
{
	static const char *const names[TS_MAX] = {
		[TS_PENDING] = "pending", [TS_PASS] = "pass",	    [TS_FAIL] = "fail",
		[TS_NOTRUN] = "notrun",	  [TS_EXPUNGED] = "expunged", [TS_TIMEOUT] = "timeout",
		[TS_CRASH] = "crash",	  [TS_ERROR] = "error",
	};
	return s < TS_MAX ? names[s] : "?";
}

void test_result_release(struct test_result *t)
{
	free(t->excerpt);
	free(t->kernel_log);
	t->excerpt = t->kernel_log = NULL;
	t->kernel_log_len = 0;
}
