// SPDX-License-Identifier: MIT
/*
 * mkfs via proc.c (see mkfs.h).
 */
#include "machine/mkfs.h"
#include "util/proc.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static const char *force_flag(const char *fstype)
{
	if (startswith(fstype, "ext"))
		return "-F";
	if (streq(fstype, "xfs") || streq(fstype, "btrfs") || streq(fstype, "f2fs"))
		return "-f";
	return NULL;
}

const char *mkfs_why(char *out)
{
	char *line, *save = NULL;
	const char *why = "";

	/* the last line that says error (mkfs.btrfs closes with a "See http://..." hint), else the last line */
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "\r")] = '\0';
		if (!line[strspn(line, " \t")])
			continue;
		if (strcasestr(line, "error") || !strcasestr(why, "error"))
			why = line;
	}
	return why;
}

int mkfs_format(const char *fstype, const char *options, const char *dev, char *why, size_t size)
{
	char prog[64], out[4096] = "";
	char **argv = NULL, **opts = strv_split(options ? options : "", " \t");
	struct proc p = PROC_INIT;
	const char *f = force_flag(fstype);
	int fd, r;
	ssize_t n;

	snprintf(prog, sizeof(prog), "mkfs.%s", fstype);
	if (!opts || strv_push(&argv, prog) < 0 || (f && strv_push(&argv, f) < 0) || strv_extend(&argv, opts) < 0 ||
	    strv_push(&argv, dev) < 0) {
		strv_free(opts);
		strv_free(argv);
		return -ENOMEM;
	}
	strv_free(opts);
	/* mkfs's output, to report why it failed */
	fd = memfd_create("mkfs-output", MFD_CLOEXEC);
	p.argv = (const char *const *)argv;
	p.stdout_fd = fd;
	p.stderr_fd = fd;
	r = proc_start(&p);
	if (r == 0)
		r = proc_wait(&p, 600 * 1000);
	if (r == -ETIMEDOUT) {
		proc_kill_group(&p, SIGKILL);
		proc_wait(&p, -1);
	}
	proc_release(&p);
	if (fd >= 0) {
		n = pread(fd, out, sizeof(out) - 1, 0);
		out[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	if (r < 0) {
		snprintf(why, size, "%s: %s", prog, strerror(-r));
	} else if (p.status != 0) {
		snprintf(why, size, "%s %s failed with status %d: %s", prog, dev, p.status, mkfs_why(out));
		r = -EIO;
	}
	strv_free(argv);
	return r;
}
