/* SPDX-License-Identifier: MIT */
/*
 * A kernel built from a commit by the user's build command, for a
 * bisection and a watch alike: `sh -c CMD` with FSAGENT_BISECT_COMMIT,
 * FSAGENT_BISECT_TREE and FSAGENT_BISECT_KERNEL (the directory to fill),
 * its output into a log. A build that fails is an answer, not an error:
 * "cannot build" with the compiler's first error line.
 */
#pragma once

#include <stddef.h>

/* A build's seconds at most unless told (--build-timeout): a kernel takes 20-40 minutes on 2 cores. */
#define BUILD_TIMEOUT 14400

/*
 * Build sha of tree into kdir (made first) within seconds (0: no limit;
 * past it the build's process group is stopped). Returns 0 built, 1 cannot
 * be built (why: the log's first line that says error, else its last),
 * -ETIME (stopped at the limit, said in the log) or -errno (logged).
 */
int build_commit(const char *cmd, const char *tree, const char *sha, const char *kdir, const char *log,
		 unsigned seconds, char *why, size_t ws);
