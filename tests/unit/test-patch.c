// SPDX-License-Identifier: MIT
/* patch: unified diffs parsed, and line numbers carried through their hunks. */
#include "unit.h"
#include "model/patch.h"

#include <errno.h>

/* git format-patch: a mail header, two files (one hunk a pure insertion), a signature */
static const char MAIL[] = "From 1234 Mon Sep 17 00:00:00 2001\n"
			   "Subject: [PATCH] xfs: fix a thing\n"
			   "\n"
			   "--- a/not/a/header: prose that looks like one\n"
			   "---\n"
			   " fs/xfs/xfs_file.c | 4 +++-\n"
			   "\n"
			   "diff --git a/fs/xfs/xfs_file.c b/fs/xfs/xfs_file.c\n"
			   "index 0123abc..4567def 100644\n"
			   "--- a/fs/xfs/xfs_file.c\n"
			   "+++ b/fs/xfs/xfs_file.c\n"
			   "@@ -10,5 +10,7 @@ xfs_file_write_iter(\n"
			   " 	int a;\n"
			   "-	a = 1;\n"
			   "+	a = 2;\n"
			   "+	b = 3;\n"
			   "+	c = 4;\n"
			   " 	d = 5;\n"
			   "\n"
			   " 	return a;\n"
			   "@@ -40,0 +43,2 @@ xfs_other(\n"
			   "+	new1();\n"
			   "+	new2();\n"
			   "diff --git a/fs/xfs/xfs_gone.c b/fs/xfs/xfs_gone.c\n"
			   "deleted file mode 100644\n"
			   "index 89abcde..0000000\n"
			   "--- a/fs/xfs/xfs_gone.c\n"
			   "+++ /dev/null\n"
			   "@@ -1,2 +0,0 @@\n"
			   "--- a line that was a decrement\n"
			   "-int x;\n"
			   "\\ No newline at end of file\n"
			   "-- \n"
			   "2.39.2\n";

static void test_parse_git(void **state)
{
	struct patch *p;
	const struct patch_file *f;
	char err[256] = "";

	(void)state;
	assert_int_equal(patch_parse(MAIL, strlen(MAIL), "fix.patch", &p, err, sizeof(err)), 0);
	assert_int_equal(p->nfiles, 2);
	f = patch_find(p, "fs/xfs/xfs_file.c");
	assert_non_null(f);
	assert_string_equal(f->old_path, "fs/xfs/xfs_file.c");
	assert_string_equal(f->old_blob, "0123abc");
	assert_string_equal(f->new_blob, "4567def");
	assert_int_equal(f->nhunks, 2);
	assert_string_equal(f->hunks[0].section, "xfs_file_write_iter(");
	assert_int_equal(f->hunks[0].n, 8);
	/* the removed line, old 11; the three added, new 11..13; the empty context line */
	assert_int_equal(f->lines[1].kind, '-');
	assert_int_equal(f->lines[1].old_no, 11);
	assert_int_equal(f->lines[1].new_no, 0);
	assert_int_equal(f->lines[4].kind, '+');
	assert_int_equal(f->lines[4].new_no, 13);
	assert_int_equal(f->lines[6].kind, ' ');
	assert_int_equal(f->lines[6].len, 0);
	assert_int_equal(f->lines[6].old_no, 13);
	assert_int_equal(f->lines[6].new_no, 15);
	assert_int_equal(f->lines[1].patch_no, 14);
	assert_memory_equal(f->lines[2].text, "\ta = 2;", 7);
	/* the deleted file: found by its old path, its "--- ..." line a removed line */
	f = patch_find(p, "fs/xfs/xfs_gone.c");
	assert_non_null(f);
	assert_null(f->new_path);
	assert_int_equal(f->nlines, 2);
	assert_int_equal(f->lines[0].kind, '-');
	assert_memory_equal(f->lines[0].text, "-- a line", 9);
	assert_null(patch_find(p, "fs/xfs/xfs_none.c"));
	patch_free(p);
}

static void test_map(void **state)
{
	struct patch *p;
	const struct patch_file *f;
	char err[256] = "";

	(void)state;
	assert_int_equal(patch_parse(MAIL, strlen(MAIL), "fix.patch", &p, err, sizeof(err)), 0);
	f = patch_find(p, "fs/xfs/xfs_file.c");
	/* before the first hunk, its context, a removed line, between the hunks, after the insertion */
	assert_int_equal(patch_map(f, 9, false), 9);
	assert_int_equal(patch_map(f, 10, false), 10);
	assert_int_equal(patch_map(f, 11, false), 0);
	assert_int_equal(patch_map(f, 12, false), 14);
	assert_int_equal(patch_map(f, 20, false), 22);
	assert_int_equal(patch_map(f, 40, false), 42);
	assert_int_equal(patch_map(f, 41, false), 45);
	/* and back */
	assert_int_equal(patch_map(f, 14, true), 12);
	assert_int_equal(patch_map(f, 12, true), 0);
	assert_int_equal(patch_map(f, 43, true), 0);
	assert_int_equal(patch_map(f, 42, true), 40);
	assert_int_equal(patch_map(f, 45, true), 41);
	patch_free(p);
}

static void test_plain_diff(void **state)
{
	static const char D[] = "diff -ur linux.orig/fs/xfs/a.c linux/fs/xfs/a.c\n"
				"--- linux.orig/fs/xfs/a.c\t2024-01-01 00:00:00.000000000 +0000\n"
				"+++ linux/fs/xfs/a.c\t2024-01-02 00:00:00.000000000 +0000\n"
				"@@ -3 +3 @@\n"
				"-old\n"
				"+new\n"
				"--- linux.orig/fs/xfs/b.c\n"
				"+++ linux/fs/xfs/b.c\n"
				"@@ -1,2 +1,2 @@\r\n"
				" keep\r\n"
				"-x\r\n"
				"+y\r\n";
	struct patch *p;
	char err[256] = "";

	(void)state;
	assert_int_equal(patch_parse(D, strlen(D), "d", &p, err, sizeof(err)), 0);
	assert_int_equal(p->nfiles, 2);
	assert_string_equal(p->files[0].new_path, "fs/xfs/a.c");
	assert_string_equal(p->files[0].old_blob, "");
	assert_int_equal(p->files[0].lines[1].new_no, 3);
	assert_string_equal(p->files[1].old_path, "fs/xfs/b.c");
	assert_int_equal(p->files[1].lines[2].len, 1);
	patch_free(p);
}

static void test_bad(void **state)
{
	struct patch *p = NULL;
	char err[256] = "";

	(void)state;
	assert_int_equal(patch_parse("hello\n", 6, "x", &p, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "x: no file in it: not a unified diff");
	assert_null(p);
	{
		static const char D[] = "--- a/f.c\n+++ b/f.c\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n";

		assert_int_equal(patch_parse(D, strlen(D), "short", &p, err, sizeof(err)), -EBADMSG);
		assert_string_equal(err,
				    "short:6: the diff ends inside the hunk at line 3 (1 old and 1 new lines missing)");
	}
	{
		static const char D[] = "--- a/f.c\n+++ b/f.c\n@@ -1,x +1 @@\n";

		assert_int_equal(patch_parse(D, strlen(D), "hdr", &p, err, sizeof(err)), -EBADMSG);
		assert_string_equal(err, "hdr:3: '@@ -1,x +1 @@' is not a hunk header (@@ -A,B +C,D @@)");
	}
	{
		static const char D[] = "--- a/f.c\n+++ b/f.c\n@@ -1,2 +1,2 @@\n a\n*b\n";

		assert_int_equal(patch_parse(D, strlen(D), "odd", &p, err, sizeof(err)), -EBADMSG);
		assert_string_equal(err, "odd:5: the hunk at line 3 ends early (1 old and 1 new lines missing)");
	}
	{
		static const char D[] = "@@ -1 +1 @@\n-a\n+b\n";

		assert_int_equal(patch_parse(D, strlen(D), "nohdr", &p, err, sizeof(err)), -EBADMSG);
		assert_string_equal(err, "nohdr:1: a hunk before any '---'/'+++' file header");
	}
}

/* What git apply refuses is refused, by line: short counts, NULs, bad numbers, hunks out of order. */
static void test_strict(void **state)
{
	static const struct {
		const char *diff;
		size_t len; /* 0: strlen */
		const char *err;
	} cases[] = {
		{ "--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n+c\n-d\n", 0,
		  "x:6: more lines than the hunk at line 3 counts" },
		{ "--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n+c\n", 0,
		  "x:7: more lines than the hunk at line 3 counts" },
		{ "--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n--- a/g.c\n+++ b/g.c\n@@ -1 +1 @@\n-a\n+\0b\n", 77,
		  "x:10: a NUL byte: not a text diff" },
		{ "--- a/f.c\n+++ b/f.c\n@@ --1 +1 @@\n", 0,
		  "x:3: '@@ --1 +1 @@' is not a hunk header (@@ -A,B +C,D @@)" },
		{ "--- a/f.c\n+++ b/f.c\n@@ -4294967297 +1 @@\n-a\n+b\n", 0,
		  "x:3: a line number or count past 2147483647 in the hunk header" },
		{ "--- a/f.c\n+++ b/f.c\n@@ -2147483647,5 +1 @@\n", 0,
		  "x:3: a line number or count past 2147483647 in the hunk header" },
		{ "--- a/f.c\n+++ b/f.c\n@@ -10,2 +10,2 @@\n-a\n-b\n+c\n+d\n@@ -11 +11 @@\n-b\n+d\n", 0,
		  "x:8: the hunk overlaps or comes before the one at line 3" },
		{ "--- a/f.c\n+++ b/f.c\n@@ -10 +10 @@\n-a\n+c\n@@ -2 +2 @@\n-b\n+d\n", 0,
		  "x:6: the hunk overlaps or comes before the one at line 3" },
		{ "--- \"a/f\\q.c\"\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n", 0, "x:1: a file name quoted wrongly" },
	};
	struct patch *p = NULL;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].diff);

		err[0] = '\0';
		assert_int_equal(patch_parse(cases[i].diff, len, "x", &p, err, sizeof(err)), -EBADMSG);
		assert_string_equal(err, cases[i].err);
		assert_null(p);
	}
}

/* git's C-quoted names (quotes, backslashes, non-ASCII, a newline) unquoted; a signature after the last hunk kept out.
 */
static void test_quoted(void **state)
{
	static const char D[] = "From 1 Mon Sep 17 00:00:00 2001\n"
				"diff --git \"a/fs/x\\\"q\\\"\\303\\244.c\" \"b/fs/x\\\"q\\\"\\303\\244.c\"\n"
				"index 1111111..2222222 100644\n"
				"--- \"a/fs/x\\\"q\\\"\\303\\244.c\"\n"
				"+++ \"b/fs/x\\\"q\\\"\\303\\244.c\"\n"
				"@@ -1 +1 @@\n-a\n+b\n"
				"diff --git \"a/fs/new\\nline.c\" \"b/fs/new\\nline.c\"\n"
				"Binary files a and b differ\n"
				"-- \n2.39.2\n";
	struct patch *p = NULL;
	char err[256] = "";

	(void)state;
	assert_int_equal(patch_parse(D, strlen(D), "q", &p, err, sizeof(err)), 0);
	assert_int_equal(p->nfiles, 2);
	assert_string_equal(p->files[0].old_path, "fs/x\"q\"\303\244.c");
	assert_string_equal(p->files[0].new_path, "fs/x\"q\"\303\244.c");
	assert_string_equal(p->files[1].new_path, "fs/new\nline.c");
	assert_true(p->files[1].binary);
	patch_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_git), cmocka_unit_test(test_map),	 cmocka_unit_test(test_plain_diff),
		cmocka_unit_test(test_bad),	  cmocka_unit_test(test_strict), cmocka_unit_test(test_quoted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
