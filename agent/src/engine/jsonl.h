/* SPDX-License-Identifier: MIT */
/*
 * A loop's record: one JSON object a line, each appended and fsync'd as the
 * step it records ends, so that a stop at any instant loses nothing
 * finished; read back in order, a last line cut off by a stop while it was
 * written is said, left out and cut away (the next record starts a line of
 * its own).
 */
#pragma once

#include <jansson.h>

/* rec appended to path as one line, fsync'd. Returns 0 or -errno (logged). */
int jsonl_append(const char *path, json_t *rec);

/*
 * Each record of path (none when it does not exist) to take(ctx, rec,
 * line), in order; take returns 0, or -EBADMSG having said what is wrong
 * with the line (path and line are given for that). Returns 0 or -errno
 * (logged but take's).
 */
int jsonl_replay(const char *path, int (*take)(void *ctx, json_t *rec, const char *path, unsigned line), void *ctx);
