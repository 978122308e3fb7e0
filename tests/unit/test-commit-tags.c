// SPDX-License-Identifier: MIT
/* commit_tags: a stable backport's upstream id and a commit's Fixes: lines, as the kernel's trees write them. */
#include "unit.h"
#include "model/commit_tags.h"

#include <errno.h>
#include <string.h>

#define UP "0123456789abcdef0123456789abcdef01234567"

static void test_upstream_id(void **state)
{
	static const struct {
		const char *msg, *want; /* want NULL: none */
	} cases[] = {
		/* the stable maintainer's line, under the subject */
		{ "xfs: fix a leak\n\ncommit " UP " upstream.\n\nBody.\n", UP },
		/* AUTOSEL's, upper-case hex */
		{ "xfs: x\n\n[ Upstream commit 0123456789ABCDEF0123456789ABCDEF01234567 ]\n\nBody\n", UP },
		/* git cherry-pick -x, at the end without a newline */
		{ "xfs: x\n\nBody\n(cherry picked from commit " UP ")", UP },
		/* indented, as git log shows it */
		{ "    xfs: x\n    \n    commit " UP " upstream.\n", UP },
		/* an abbreviated id is no upstream line; nor is a commit named in the body */
		{ "xfs: x\n\ncommit 0123456789ab upstream.\n", NULL },
		{ "xfs: x\n\nThis reverts commit " UP ".\n", NULL },
		{ "xfs: x\n\ncommit " UP " (a body line)\n", NULL },
		{ "", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char id[COMMIT_ID_SIZE] = "x";
		int r = commit_upstream_id(cases[i].msg, strlen(cases[i].msg), id);

		if (cases[i].want) {
			assert_int_equal(r, 0);
			assert_string_equal(id, cases[i].want);
		} else {
			assert_int_equal(r, -ENOENT);
		}
	}
}

static void test_fixes(void **state)
{
	static const char msg[] = "xfs: fix the fix\n\n"
				  "Fixes: 0123456789ab (\"xfs: a change\")\n"
				  "fixes: ABCDEF01 (\"xfs: lower case tag, upper case id\")\n"
				  "  Fixes: 0123456789ab (\"the same again: once\")\n"
				  "Fixes: 0123456 (\"seven digits: too short\")\n"
				  "Fixes: 0123456789abz (\"not an id\")\n"
				  "Cc: stable@vger.kernel.org # Fixes: 99999999\n"
				  "Fixes: " UP;
	char ids[4][COMMIT_ID_SIZE];

	(void)state;
	assert_int_equal(commit_fixes(msg, strlen(msg), ids, 4), 3);
	assert_string_equal(ids[0], "0123456789ab");
	assert_string_equal(ids[1], "abcdef01");
	assert_string_equal(ids[2], UP);
	/* more than max: counted, not kept */
	assert_int_equal(commit_fixes(msg, strlen(msg), ids, 1), 3);
	assert_string_equal(ids[0], "0123456789ab");
	/* nothing read past len: the buffer cut inside the last id */
	assert_int_equal(commit_fixes(msg, strlen(msg) - 35, ids, 4), 2);
}

static void test_id_names(void **state)
{
	(void)state;
	assert_true(commit_id_names("0123456789ab", UP));
	assert_true(commit_id_names("0123456789AB", UP));
	assert_true(commit_id_names(UP, UP));
	assert_false(commit_id_names("0123456", UP));
	assert_false(commit_id_names("0123456789ac", UP));
}

static int mail(const char *text, char *id, char *subject, size_t ss)
{
	return commit_mail(text, strlen(text), id, subject, ss);
}

static void test_mail(void **state)
{
	char id[COMMIT_ID_SIZE], subj[128];

	(void)state;
	/* git format-patch's, a folded Subject with AUTOSEL's tags */
	assert_int_equal(mail("From 0123456789ABCDEF0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
			      "From: A <a@b>\nSubject: [PATCH AUTOSEL 6.1 03/12] xfs: fix the\n"
			      " log's tail\nDate: Mon, 7 Dec 2026\n\n[ Upstream commit " UP " ]\n---\n"
			      "diff --git a/fs/xfs/x.c b/fs/xfs/x.c\n--- a/fs/xfs/x.c\n+++ b/fs/xfs/x.c\n",
			      id, subj, sizeof(subj)),
			 0);
	assert_string_equal(id, "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(subj, "xfs: fix the log's tail");
	/* no From line of git's, a plain diff -u: no id */
	assert_int_equal(mail("Subject: xfs: a\n\nbody\n--- a/x\n+++ b/x\n", id, subj, sizeof(subj)), 0);
	assert_string_equal(id, "");
	assert_string_equal(subj, "xfs: a");
	/* a mail that is no patch; one with no Subject; a header after Subject does not join it */
	assert_int_equal(mail("Subject: [PATCH 0/3] the cover letter\n\nthree patches\n", id, subj, sizeof(subj)),
			 -EINVAL);
	assert_int_equal(mail("From: a\n\ndiff --git a/x b/x\n", id, subj, sizeof(subj)), -EINVAL);
	assert_int_equal(mail("Subject: xfs: b\nDate: now\n subject? no\n\n+++ b/x\n", id, subj, sizeof(subj)), 0);
	assert_string_equal(subj, "xfs: b");
	/* a Subject that is only tags; a subject longer than the buffer is cut */
	assert_int_equal(mail("Subject: [PATCH]\n\n+++ b/x\n", id, subj, sizeof(subj)), -EINVAL);
	assert_int_equal(mail("Subject: xfs: a long one\n\n+++ b/x\n", id, subj, 8), 0);
	assert_string_equal(subj, "xfs: a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upstream_id),
		cmocka_unit_test(test_fixes),
		cmocka_unit_test(test_id_names),
		cmocka_unit_test(test_mail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
