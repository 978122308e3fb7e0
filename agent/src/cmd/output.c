// SPDX-License-Identifier: MIT
/*
 * What the commands' output shares beyond util/output.h.
 */
#include "cmd/cmd.h"
#include "util/macro.h"

#include <string.h>

/* The length of path's directory part when it names a bundle.json, else all of it. */
size_t bundle_dir_len(const char *path)
{
	size_t n = strlen(path);

	if (n >= 11 && streq(path + n - 11, "bundle.json"))
		return n > 11 ? n - 12 : 1;
	while (n > 1 && path[n - 1] == '/')
		n--;
	return n;
}
