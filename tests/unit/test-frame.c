// SPDX-License-Identifier: MIT
/* frame: documents framed on the console and cut out again. */
#include "unit.h"
#include "model/frame.h"

#include <errno.h>
#include <unistd.h>

static char *frame_to_string(const char *name, const char *doc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int fd[2];
	char tmp[4096];
	ssize_t n;

	assert_non_null(f);
	assert_int_equal(pipe(fd), 0);
	assert_int_equal(frame_write(fd[1], name, doc, strlen(doc)), 0);
	close(fd[1]);
	while ((n = read(fd[0], tmp, sizeof(tmp))) > 0)
		fwrite(tmp, 1, (size_t)n, f);
	close(fd[0]);
	fclose(f);
	return buf;
}

static void roundtrip(const char *doc)
{
	char *framed = frame_to_string("caps.json", doc), *out = NULL;
	size_t len;

	assert_int_equal(frame_extract(framed, "caps.json", &out, &len), 0);
	assert_int_equal(len, strlen(doc));
	assert_string_equal(out, doc);
	free(out);
	free(framed);
}

static void test_roundtrip(void **state)
{
	(void)state;
	roundtrip("{\n  \"a\": 1\n}");
	roundtrip("{\n  \"a\": 1\n}\n");
	roundtrip("one line");
	roundtrip("a\n\nb\n\n");
	roundtrip("");
}

static void test_interleaved(void **state)
{
	char *framed = frame_to_string("caps.json", "line1\nline2\nline3"), *out = NULL, *log;
	char *second = strstr(framed, "FSAGENT|caps.json|line2");
	size_t len;

	(void)state;
	assert_non_null(second);
	/* kernel messages between lines, CRLF from the serial console, noise before */
	assert_true(asprintf(&log, "[    1.0] boot noise\r\n%.*s[    2.5] virtio_blk: something\r\n%s",
			     (int)(second - framed), framed, second) > 0);
	assert_int_equal(frame_extract(log, "caps.json", &out, &len), 0);
	assert_string_equal(out, "line1\nline2\nline3");
	free(out);
	free(log);
	free(framed);
}

static void test_damaged(void **state)
{
	char *framed = frame_to_string("caps.json", "line1\nline2"), *out = NULL, *cut;
	char *p;

	(void)state;
	/* cut short: no END */
	cut = strndup(framed, strlen(framed) - 20);
	assert_int_equal(frame_extract(cut, "caps.json", &out, NULL), -EBADMSG);
	free(cut);
	/* a kernel message glued into a document line breaks the CRC */
	p = strstr(framed, "line2");
	assert_non_null(p);
	p[1] = 'X';
	assert_int_equal(frame_extract(framed, "caps.json", &out, NULL), -EBADMSG);
	assert_int_equal(frame_extract("nothing here", "caps.json", &out, NULL), -ENOENT);
	assert_int_equal(frame_extract(framed, "other.json", &out, NULL), -ENOENT);
	free(framed);
}

static void test_last_frame_wins(void **state)
{
	char *a = frame_to_string("x", "first"), *b = frame_to_string("x", "second"), *log, *out;

	(void)state;
	assert_true(asprintf(&log, "%s%s", a, b) > 0);
	assert_int_equal(frame_extract(log, "x", &out, NULL), 0);
	assert_string_equal(out, "second");
	free(out);
	free(log);
	free(a);
	free(b);
}

/* The console is the guest's: lengths that would wrap or outgrow the log are refused. */
static void test_hostile_length(void **state)
{
	static const char *const logs[] = {
		"FSAGENT-BEGIN x len=-1 crc32=00000000\nFSAGENT|x|aaaa\nFSAGENT-END x\n",
		"FSAGENT-BEGIN x len=-2 crc32=00000000\nFSAGENT|x|aaaa\nFSAGENT-END x\n",
		"FSAGENT-BEGIN x len=18446744073709551615 crc32=0\nFSAGENT|x|a\nFSAGENT-END x\n",
		"FSAGENT-BEGIN x len=99999999999999999999999 crc32=0\nFSAGENT-END x\n",
		"FSAGENT-BEGIN x len=4096 crc32=0\nFSAGENT|x|a\nFSAGENT-END x\n",
		"FSAGENT-BEGIN x len= 3 crc32=0\nFSAGENT|x|abc\nFSAGENT-END x\n",
		"FSAGENT-BEGIN x len=3 crc32=\nFSAGENT|x|abc\nFSAGENT-END x\n",
	};
	char *out = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++)
		assert_int_equal(frame_extract(logs[i], "x", &out, NULL), -EBADMSG);
	assert_null(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),      cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_damaged),	       cmocka_unit_test(test_last_frame_wins),
		cmocka_unit_test(test_hostile_length),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
