/* SPDX-License-Identifier: MIT */
/*
 * A loop's record: one JSON object a line, each appended and fsync'd as the
 * step it records ends, so that a stop at any instant loses nothing
 * finished; read back in order. Only the bytes after the file's last
 * newline (a record cut off by a stop while it was written) are said, left
 * out and cut away, so that the next record starts a line of its own; any
 * other line that is not one JSON object (a NUL, garbage, a duplicate key)
 * is refused by file and line, and nothing is cut.
 */
#pragma once

#include <jansson.h>
#include <stddef.h>

/* rec appended to path as one line, fsync'd. Returns 0 or -errno (logged). */
int jsonl_append(const char *path, json_t *rec);

/*
 * Each record of path (none when it does not exist) to take(ctx, rec,
 * line), in order; take returns 0, or -EBADMSG having said what is wrong
 * with the line (path and line are given for that). Returns 0, -EBADMSG
 * for a damaged line, or -errno (logged but take's).
 */
int jsonl_replay(const char *path, int (*take)(void *ctx, json_t *rec, const char *path, unsigned line), void *ctx);

/*
 * The records of text[0..len) (a journal read whole; path names it in
 * errors) to take, as jsonl_replay does, without cutting anything. Returns
 * the length of the whole records (what follows is a torn write, said), or
 * -EBADMSG (logged) or take's error.
 */
long jsonl_parse(const char *text, size_t len, const char *path,
		 int (*take)(void *ctx, json_t *rec, const char *path, unsigned line), void *ctx);
