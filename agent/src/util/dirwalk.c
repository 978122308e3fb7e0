// SPDX-License-Identifier: MIT
/*
 * Directory walks (see dirwalk.h).
 */
#include "dirwalk.h"
#include "macro.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int dirwalk_files(const char *dir, const char *rel, const char *suffix,
		  int (*fn)(void *data, const char *path, const char *rel), void *data, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int r = 0;

	if (!d)
		return -errno;
	while (r >= 0 && (de = readdir(d))) {
		char path[PATH_MAX], sub[PATH_MAX];
		struct stat st;
		size_t len = strlen(de->d_name), sl = strlen(suffix);

		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name) >= (int)sizeof(sub) ||
		    lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth > 0)
			r = dirwalk_files(path, sub, suffix, fn, data, depth - 1);
		else if (S_ISREG(st.st_mode) && len > sl && streq(de->d_name + len - sl, suffix))
			r = fn(data, path, sub);
	}
	closedir(d);
	return r;
}
