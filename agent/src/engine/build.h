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

/*
 * Build sha of tree into kdir (made first). Returns 0 built, 1 cannot be
 * built (why: the log's first line that says error, else its last), or
 * -errno (logged).
 */
int build_commit(const char *cmd, const char *tree, const char *sha, const char *kdir, const char *log, char *why,
		 size_t ws);
