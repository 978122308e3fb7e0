// SPDX-License-Identifier: MIT
/*
 * The userspace record (see userspace.h): the image's file, or the tools
 * asked for their versions.
 */
#include "machine/userspace.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/proc.h"
#include "util/sysroot.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void userspace_version_line(const char *out, size_t len, char *buf, size_t size)
{
	size_t i = 0, n = 0;

	if (!size)
		return;
	/* skip blank lines, then copy one, control characters as '?' */
	while (i < len && (out[i] == '\n' || out[i] == '\r' || out[i] == ' ' || out[i] == '\t'))
		i++;
	for (; i < len && out[i] != '\n' && n + 1 < size; i++)
		buf[n++] = (unsigned char)out[i] < 0x20 || out[i] == 0x7f ? (out[i] == '\t' ? ' ' : '?') : out[i];
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\r' || buf[n - 1] == '?'))
		n--;
	buf[n] = '\0';
}

/* argv's output (stdout and stderr) within 2 s, at most size - 1 bytes. Returns the length or -errno. */
static ssize_t run_capture(const char *const *argv, char *buf, size_t size)
{
	struct proc p = PROC_INIT;
	int fd = memfd_create("fsagent-version", MFD_CLOEXEC), r;
	ssize_t n;

	if (fd < 0)
		return -errno;
	p.argv = argv;
	p.stdout_fd = fd;
	p.stderr_fd = fd;
	r = proc_start(&p);
	if (r == 0) {
		r = proc_wait(&p, 2000);
		if (r == -ETIMEDOUT) {
			proc_kill_group(&p, SIGKILL);
			(void)proc_wait(&p, -1);
		}
	}
	proc_release(&p);
	if (r < 0) {
		close(fd);
		return r;
	}
	n = pread(fd, buf, size - 1, 0);
	close(fd);
	return n < 0 ? -errno : n;
}

static json_t *tool_versions(void)
{
	static const char *const tools[][2] = {
		{ "mkfs.xfs", "-V" },  { "xfs_io", "-V" }, { "xfs_repair", "-V" },	  { "xfs_db", "-V" },
		{ "mke2fs", "-V" },    { "e2fsck", "-V" }, { "mkfs.btrfs", "--version" }, { "btrfs", "--version" },
		{ "mkfs.f2fs", "-V" },
	};
	json_t *j = json_object();

	for (size_t i = 0; j && i < ARRAY_SIZE(tools); i++) {
		const char *argv[] = { tools[i][0], tools[i][1], NULL };
		char out[1024], line[128];
		ssize_t n = run_capture(argv, out, sizeof(out));

		if (n <= 0)
			continue;
		userspace_version_line(out, (size_t)n, line, sizeof(line));
		if (line[0])
			json_object_set_new(j, tools[i][0], json_string(line));
	}
	return j;
}

json_t *userspace_collect(void)
{
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX];
	json_t *doc;
	int r;

	if (sysroot_path(path, sizeof(path), "%s", USERSPACE_FILE) == 0 &&
	    (r = fileio_read_regular(path, 64 << 10, &buf, NULL)) != -ENOENT) {
		const char *schema;

		doc = r == 0 ? json_loads(buf, 0, NULL) : NULL;
		schema = json_string_value(json_object_get(doc, "schema"));
		if (json_is_object(doc) && schema && streq(schema, USERSPACE_SCHEMA))
			return doc;
		json_decref(doc);
		log_warn("%s: not a record of image/build (%s): userspace not recorded", path,
			 r < 0 ? strerror(-r) : "schema");
		return json_pack("{s:s, s:s}", "schema", USERSPACE_SCHEMA, "error", "unreadable " USERSPACE_FILE);
	}
	doc = json_pack("{s:s, s:s}", "schema", USERSPACE_SCHEMA, "source", "this machine's tools");
	/* a captured sysroot has no tools to ask */
	if (doc)
		json_object_set_new(doc, "tools", sysroot_is_real() ? tool_versions() : json_object());
	return doc;
}

void userspace_add_fstests(json_t *us, const char *dir)
{
	const char *describe[] = { "git", "-C", dir, "describe", "--always", "--tags", "--dirty", NULL };
	const char *top[] = { "git", "-C", dir, "rev-parse", "--show-toplevel", "HEAD", NULL };
	char out[PATH_MAX + 128], d[128], c[128], *nl;
	_cleanup_free_ char *real = realpath(dir, NULL);
	ssize_t n;

	if (!us || !real || json_object_get(us, "fstests"))
		return;
	/* the tree's own work tree, not one it sits in (a copy inside another repository) */
	n = run_capture(top, out, sizeof(out));
	if (n <= 0)
		return;
	out[n] = '\0';
	nl = strchr(out, '\n');
	if (!nl || (size_t)(nl - out) != strlen(real) || strncmp(out, real, strlen(real)) != 0)
		return;
	userspace_version_line(nl + 1, strlen(nl + 1), c, sizeof(c));
	n = run_capture(describe, out, sizeof(out));
	if (n <= 0)
		return;
	userspace_version_line(out, (size_t)n, d, sizeof(d));
	if (!d[0] || strstr(d, "fatal") || strlen(c) != 40)
		return;
	json_object_set_new(
		us, "fstests",
		json_pack("{s:s, s:s, s:b}", "describe", d, "commit", c, "dirty", strstr(d, "-dirty") != NULL));
}
