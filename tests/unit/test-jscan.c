// SPDX-License-Identifier: MIT
/* jscan: fields found, faults named, and the same verdict as jansson on mutated lines. */
#include "unit.h"
#include "util/jscan.h"

#include <errno.h>
#include <jansson.h>

static const char record[] =
	"{\"name\":\"generic/001\",\"status\":\"pass\",\"duration\":0.482,\"reason\":null,"
	"\"excerpt\":\"--- a\\n+++ b \\u00e9\\ud83d\\ude00\",\"findings\":{\"warn\":[1,2,{\"x\":[]}]},"
	"\"without_lockdep\":false,\"artifacts\":[\"artifacts/x/0/generic/001.out.bad\"]}";

static void test_fields(void **state)
{
	struct jscan_field f[] = { { "name" },	  { "status" },	 { "duration" }, { "reason" },
				   { "missing" }, { "excerpt" }, { "findings" } };
	char buf[64];

	(void)state;
	assert_int_equal(jscan_object(record, strlen(record), f, 7, NULL, NULL), 0);
	assert_int_equal(f[0].type, JSCAN_STRING);
	assert_true(jscan_streq(&f[0], "generic/001"));
	assert_true(jscan_streq(&f[1], "pass"));
	assert_int_equal(f[2].type, JSCAN_NUMBER);
	assert_true(jscan_number(f[2].start, f[2].len) == 0.482);
	assert_int_equal(f[3].type, JSCAN_NULL);
	assert_int_equal(f[4].type, JSCAN_NONE);
	assert_int_equal(f[6].type, JSCAN_OBJECT);
	assert_int_equal(jscan_unescape(f[5].start, f[5].len, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "--- a\n+++ b \xc3\xa9\xf0\x9f\x98\x80");
	assert_int_equal(jscan_unescape(f[5].start, f[5].len, buf, 8), -ENAMETOOLONG);
	/* only top-level keys count */
	{
		const char *t = "{\"a\":{\"name\":\"inner\"},\"name\":\"outer\"}";

		assert_int_equal(jscan_object(t, strlen(t), f, 1, NULL, NULL), 0);
		assert_true(jscan_streq(&f[0], "outer"));
	}
}

static void test_faults(void **state)
{
	static const struct {
		const char *text, *why;
		size_t at;
	} bad[] = {
		{ "", "not a JSON object", 0 },
		{ "[1]", "not a JSON object", 0 },
		{ "{\"a\":1", "expected ',' or '}'", 6 },
		{ "{\"a\":1} x", "text after the object", 8 },
		{ "{\"a\":\"\x01\"}", "control character in a string", 6 },
		{ "{\"a\":\"\\u0000\"}", "\\u0000 in a string", 6 },
		{ "{\"a\":\"\\ud800\"}", "lone high surrogate", 12 },
		{ "{\"a\":\"\xc0\xaf\"}", "invalid UTF-8", 6 },
		{ "{\"a\":01}", "expected ',' or '}'", 6 },
		{ "{\"a\":1.}", "bad number", 7 },
		{ "{\"a\":tru}", "unexpected character", 5 },
		{ "{a:1}", "expected a key", 1 },
	};
	char deep[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t at = 999;
		const char *why = NULL;

		assert_int_equal(jscan_object(bad[i].text, strlen(bad[i].text), NULL, 0, &at, &why), -EBADMSG);
		assert_string_equal(why, bad[i].why);
		assert_int_equal(at, bad[i].at);
	}
	/* hostile nesting ends in an error, not a crashed stack */
	memset(deep, '[', sizeof(deep));
	memcpy(deep, "{\"a\":", 5);
	assert_int_equal(jscan_object(deep, sizeof(deep), NULL, 0, NULL, NULL), -EBADMSG);
}

/* The verdict on text as jansson gives it (an object, nesting within 64). */
static bool jansson_ok(const char *text, size_t n)
{
	json_error_t e;
	json_t *j = json_loadb(text, n, 0, &e);
	bool ok = json_is_object(j);

	json_decref(j);
	return ok;
}

static void test_same_as_jansson(void **state)
{
	static const char alphabet[] = "{}[]\":,\\u0123456789abcdefnrtlsE.+- \n\x01\x80\xc3\xa9";
	unsigned seed = 12345;
	char buf[sizeof(record) + 8];
	unsigned disagree = 0, accepted = 0;

	(void)state;
	/* every mutation of one or two bytes, drawn at random: the two parsers agree */
	for (int i = 0; i < 200000; i++) {
		size_t n = sizeof(record) - 1;
		int edits = 1 + (int)(rand_r(&seed) % 2);

		memcpy(buf, record, n);
		for (int e = 0; e < edits; e++) {
			size_t pos = (size_t)rand_r(&seed) % n;
			int op = rand_r(&seed) % 3;
			char ch = alphabet[(size_t)rand_r(&seed) % (sizeof(alphabet) - 1)];

			if (op == 0) {
				buf[pos] = ch;
			} else if (op == 1 && n > 1) {
				memmove(buf + pos, buf + pos + 1, n - pos - 1);
				n--;
			} else if (n + 1 < sizeof(buf)) {
				memmove(buf + pos + 1, buf + pos, n - pos);
				buf[pos] = ch;
				n++;
			}
		}
		{
			bool ours = jscan_object(buf, n, NULL, 0, NULL, NULL) == 0;

			accepted += ours;
			if (ours != jansson_ok(buf, n) && disagree++ < 5)
				fprintf(stderr, "disagree (jscan %s): %.*s\n", ours ? "accepts" : "rejects", (int)n,
					buf);
		}
	}
	assert_int_equal(disagree, 0);
	/* the mutations are not all fatal: both kinds of verdict were tried */
	assert_true(accepted > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_same_as_jansson),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
