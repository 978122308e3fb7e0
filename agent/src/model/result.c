// SPDX-License-Identifier: MIT
/*
 * Test results (see result.h).
 */
#include "model/result.h"

#include "util/macro.h"

#include <stdlib.h>
#include <ctype.h>
#include <string.h>

const char *test_status_to_string(enum test_status s)
{
	static const char *const names[TS_MAX] = {
		[TS_PENDING] = "pending",   [TS_PASS] = "pass",	      [TS_FAIL] = "fail",   [TS_NOTRUN] = "notrun",
		[TS_EXPUNGED] = "expunged", [TS_TIMEOUT] = "timeout", [TS_CRASH] = "crash", [TS_ERROR] = "error",
	};
	return s < TS_MAX ? names[s] : "?";
}

static bool leaf_char(char c, bool globs)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
	       (globs && (c == '*' || c == '?'));
}

bool test_leaf_ok(const char *leaf, bool globs)
{
	if (!leaf || !*leaf)
		return false;
	for (const char *p = leaf; *p; p++)
		if (!leaf_char(*p, globs))
			return false;
	return true;
}

bool test_name_ok(const char *name, bool globs)
{
	const char *slash = name ? strchr(name, '/') : NULL;

	if (!slash || slash == name)
		return false;
	for (const char *p = name; p < slash; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return test_leaf_ok(slash + 1, globs);
}

enum test_status test_status_from_string(const char *s)
{
	for (int i = TS_PASS; s && i < TS_MAX; i++)
		if (streq(s, test_status_to_string((enum test_status)i)))
			return (enum test_status)i;
	return TS_MAX;
}

bool test_status_failed(enum test_status s)
{
	return s == TS_FAIL || s == TS_TIMEOUT || s == TS_CRASH || s == TS_ERROR;
}

bool test_status_skipped(enum test_status s)
{
	return s == TS_NOTRUN || s == TS_EXPUNGED;
}

bool test_status_name_failed(const char *s)
{
	return test_status_failed(test_status_from_string(s));
}

bool test_status_name_skipped(const char *s)
{
	return test_status_skipped(test_status_from_string(s));
}

void test_result_release(struct test_result *t)
{
	free(t->excerpt);
	free(t->kernel_log);
	free(t->beside);
	t->excerpt = t->kernel_log = t->beside = NULL;
	t->kernel_log_len = 0;
}

bool config_name_ok(const char *c)
{
	const char *slash = strchr(c, '/');

	if (!slash || slash == c || !slash[1] || strchr(slash + 1, '/'))
		return false;
	for (const char *p = c; *p; p++)
		if (p != slash && !islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
			return false;
	return true;
}
