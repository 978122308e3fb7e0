/* SPDX-License-Identifier: MIT */
/*
 * A bisection's line, DIR/line.json: the tree, the good revisions, the bad
 * one, the tests, the config, the build command and the commits between
 * (the first good one at 0, then git's topological order, the bad one
 * last), fixed at the start. Given the revisions, they are resolved and
 * checked (each good an ancestor of the bad one, the tree clean) and the
 * line made, or compared with the directory's; given none, the
 * directory's is read back and checked.
 */
#pragma once

#include <jansson.h>

#include "engine/bisect_loop.h"

/*
 * The line into *ret (owned by the caller); in->build becomes the line's
 * (a different one given is refused). Returns 0 or -errno (logged, naming
 * the revision, file or key).
 */
int bisect_line_setup(struct bisect_run *in, json_t **ret);
