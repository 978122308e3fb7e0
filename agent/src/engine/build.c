// SPDX-License-Identifier: MIT
/*
 * The build command run for one commit (see build.h).
 */
#include "engine/build.h"
#include "engine/job.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first line of a build log that says error, else its last line. */
static void first_error(const char *log, char *buf, size_t size)
{
	_cleanup_free_ char *text = NULL;
	char *line, *save = NULL, *last = NULL;

	snprintf(buf, size, "(no log)");
	if (fileio_read_regular(log, 16 << 20, &text, NULL) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "error:") || strstr(line, "Error ")) {
			snprintf(buf, size, "%s", line);
			return;
		}
		last = line;
	}
	if (last)
		snprintf(buf, size, "%s", last);
}

int build_commit(const char *cmd, const char *tree, const char *sha, const char *kdir, const char *log,
		 unsigned seconds, char *why, size_t ws)
{
	_cleanup_free_ char *e_commit = NULL, *e_tree = NULL, *e_kernel = NULL;
	int r, status;
	char echo[64];

	if ((r = fileio_mkdir_p(kdir)) < 0) {
		log_err("mkdir '%s' failed: %s", kdir, strerror(-r));
		return r;
	}
	if (asprintf(&e_commit, "FSAGENT_BISECT_COMMIT=%s", sha) < 0 ||
	    asprintf(&e_tree, "FSAGENT_BISECT_TREE=%s", tree) < 0 ||
	    asprintf(&e_kernel, "FSAGENT_BISECT_KERNEL=%s", kdir) < 0)
		return -ENOMEM;
	snprintf(echo, sizeof(echo), "  build of %.12s: ", sha);
	r = job_run_echo((char *const[]){ (char *)"/bin/sh", (char *)"-c", (char *)cmd, NULL },
			 (const char *const[]){ e_commit, e_tree, e_kernel, NULL }, log, seconds, echo, false, &status);
	if (r < 0)
		return r;
	if (status == 0)
		return 0;
	first_error(log, why, ws);
	return 1;
}
