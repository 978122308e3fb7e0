/* SPDX-License-Identifier: MIT */
/*
 * A change to a source tree as a unified diff (git diff, git format-patch,
 * diff -u): its files, their hunks, every line with its number on the old
 * and the new side, and the mapping of a line number from one side to the
 * other through the hunks. Paths lose their first component (patch -p1:
 * "a/fs/xfs/xfs_file.c" is "fs/xfs/xfs_file.c"); git's "index OLD..NEW"
 * blob ids are kept (they say which version of a file the diff is from).
 * Mail headers before the first file and a signature after the last hunk
 * are skipped. As git apply reads it: names git C-quoted are unquoted; a
 * hunk's counts are exact (a changed line right after the lines it counts
 * is refused), its numbers are decimal and below 2^31, hunks come in order
 * without overlapping; a NUL byte is refused by line. Pure: parses a buffer.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct patch_line {
	char kind;	   /* ' ' context, '-' removed, '+' added */
	uint32_t old_no;   /* its number on the old side (0: an added line) */
	uint32_t new_no;   /* on the new side (0: a removed line) */
	const char *text;  /* into the patch's buffer, without the kind */
	size_t len;	   /* without the newline */
	unsigned patch_no; /* the line of the diff it is on, for messages */
};

struct patch_hunk {
	uint32_t old_start, old_len, new_start, new_len;
	size_t first, n; /* its lines: file->lines[first .. first + n) */
	char *section;	 /* the text after the second "@@" (a function, often), or "" */
};

struct patch_file {
	char *old_path, *new_path;	 /* -p1; NULL for /dev/null (a file added or deleted) */
	char old_blob[41], new_blob[41]; /* git's "index" abbreviations, or "" */
	bool binary;
	struct patch_hunk *hunks;
	size_t nhunks;
	struct patch_line *lines;
	size_t nlines;
};

struct patch {
	struct patch_file *files;
	size_t nfiles;
	char *buf; /* the text the lines point into */
};

/*
 * Parse a unified diff. name is for messages ("FILE:LINE: ..."). Returns 0,
 * -EBADMSG (err says where and what: a hunk header, a count that does not
 * match its lines, hunks out of order, a NUL, no file at all) or -ENOMEM.
 */
int patch_parse(const char *buf, size_t len, const char *name, struct patch **ret, char *err, size_t errsize);
void patch_free(struct patch *p);

/* The file whose new (else old) path is path, or NULL. */
const struct patch_file *patch_find(const struct patch *p, const char *path);

/*
 * A line number of one side carried to the other through the file's hunks
 * (from_new: new -> old, else old -> new). Lines outside every hunk and
 * context lines move by the hunks before them; a line the change removed
 * (or added) has no counterpart: 0.
 */
uint32_t patch_map(const struct patch_file *f, uint32_t line, bool from_new);
