// SPDX-License-Identifier: MIT
/* Relative paths that cannot leave their directory (see pathname.h). */
#include "util/pathname.h"

#include <string.h>

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
	       c == '.';
}

bool pathname_relative_ok(const char *path)
{
	const char *p = path;

	if (!*p)
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++)
			if (!name_char(p[i]))
				return false;
		p += n;
		if (*p == '/' && !*++p)
			return false;
	}
	return true;
}
