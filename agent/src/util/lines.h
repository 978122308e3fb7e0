/* SPDX-License-Identifier: MIT */
/*
 * A cursor over the lines of a text file held in memory, for the
 * line-oriented formats fsagent reads (plan, catalog, expunge files,
 * group.list): '#' starts a comment, blanks around are dropped, blank lines
 * are skipped, and the line number is kept for error messages.
 */
#pragma once

#include <stddef.h>

struct lines {
	const char *next;
	unsigned lineno; /* of the current line, 1-based */
	char *buf;	 /* the current line's storage */
	char *line;	 /* the line without comment and outer blanks */
	char *comment;	 /* the text after '#', trimmed, or NULL */
};

void lines_init(struct lines *l, const char *text);
/* Advance to the next non-blank line. Returns 1, 0 at the end, or -ENOMEM. */
int lines_next(struct lines *l);
void lines_release(struct lines *l);

/*
 * Split the current line "key = value" in place into trimmed halves.
 * Returns 0, or -EINVAL with "<file>:<line>: ..." in err.
 */
int lines_key_value(struct lines *l, const char *file, char **ret_key, char **ret_value, char *err, size_t errsize);
