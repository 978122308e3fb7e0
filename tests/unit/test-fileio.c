// SPDX-License-Identifier: MIT
/* fileio: reading a file another party wrote, beneath a directory, refusing what could steer it. */
#include "unit.h"
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static int dfd = -1;

static void make_tree(void)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/tests", unit_dir);
	assert_int_equal(mkdir(p, 0755), 0);
	unit_write_file("tests/0.jsonl", "w", "{\"name\":\"generic/001\"}\n");
	unit_write_file("secret", "w", "host secret\n");
	snprintf(p, sizeof(p), "%s/link", unit_dir);
	assert_int_equal(symlink("secret", p), 0);
	snprintf(p, sizeof(p), "%s/dirlink", unit_dir);
	assert_int_equal(symlink("tests", p), 0);
	snprintf(p, sizeof(p), "%s/fifo", unit_dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	dfd = open(unit_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
}

static void test_beneath(void **state)
{
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	make_tree();
	assert_int_equal(fileio_read_beneath(dfd, "tests/0.jsonl", 1024, &buf, &len), 0);
	assert_string_equal(buf, "{\"name\":\"generic/001\"}\n");
	assert_int_equal(len, 23);
	free(buf);
	/* a symlink as the file, or on the way, is not followed */
	assert_int_equal(fileio_read_beneath(dfd, "link", 1024, &buf, &len), -ELOOP);
	assert_int_equal(fileio_read_beneath(dfd, "dirlink/0.jsonl", 1024, &buf, &len), -ELOOP);
	/* a FIFO is refused without waiting for a writer; a directory is no file */
	assert_int_equal(fileio_read_beneath(dfd, "fifo", 1024, &buf, &len), -EINVAL);
	assert_int_equal(fileio_read_beneath(dfd, "tests", 1024, &buf, &len), -EINVAL);
	/* no way out */
	assert_int_equal(fileio_read_beneath(dfd, "../etc/passwd", 1024, &buf, &len), -EINVAL);
	assert_int_equal(fileio_read_beneath(dfd, "tests/../secret", 1024, &buf, &len), -EINVAL);
	assert_int_equal(fileio_read_beneath(dfd, "/etc/passwd", 1024, &buf, &len), -EINVAL);
	assert_int_equal(fileio_read_beneath(dfd, "", 1024, &buf, &len), -EINVAL);
	/* capped */
	assert_int_equal(fileio_read_beneath(dfd, "tests/0.jsonl", 22, &buf, &len), -EFBIG);
	assert_int_equal(fileio_read_beneath(dfd, "nothing", 1024, &buf, &len), -ENOENT);
	close(dfd);
}

static void test_regular(void **state)
{
	char p[256], *buf = NULL;
	size_t len;

	(void)state;
	make_tree();
	close(dfd);
	snprintf(p, sizeof(p), "%s/secret", unit_dir);
	assert_int_equal(fileio_read_regular(p, 1024, &buf, &len), 0);
	free(buf);
	/* the last component is not followed; the directory (the caller's to name) is */
	snprintf(p, sizeof(p), "%s/link", unit_dir);
	assert_int_equal(fileio_read_regular(p, 1024, &buf, &len), -ELOOP);
	snprintf(p, sizeof(p), "%s/dirlink/0.jsonl", unit_dir);
	assert_int_equal(fileio_read_regular(p, 1024, &buf, &len), 0);
	free(buf);
	assert_int_equal(fileio_read_regular("/dev/zero", 1024, &buf, &len), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_beneath, unit_mkdtemp, unit_rmdir),
		cmocka_unit_test_setup_teardown(test_regular, unit_mkdtemp, unit_rmdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
