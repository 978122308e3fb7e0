/* SPDX-License-Identifier: MIT */
/*
 * Directory walks for trees another party wrote: symlinks never followed,
 * names starting with '.' skipped, depth bounded.
 */
#pragma once

/*
 * Call fn for each regular file whose name ends in suffix under dir, depth
 * levels down, with its path and rel/<path within dir> (rel "" for none).
 * A negative return of fn stops the walk and is returned; else 0 or -errno.
 */
int dirwalk_files(const char *dir, const char *rel, const char *suffix,
		  int (*fn)(void *data, const char *path, const char *rel), void *data, int depth);
