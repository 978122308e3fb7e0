// SPDX-License-Identifier: MIT
/*
 * Static device nodes from modules.devname (see static_nodes.h).
 */
#include "machine/static_nodes.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/pathname.h"
#include "util/sysroot.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

int static_nodes_parse(const char *text, size_t len, struct static_node *v, size_t max, size_t *n, unsigned *bad_line)
{
	const char *p = text, *end = text + len;
	unsigned lineno = 0;

	*n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[256], type[2], extra[2];
		struct static_node s = { 0 };

		lineno++;
		if (ll && ll < sizeof(line) && p[0] != '#') {
			memcpy(line, p, ll);
			line[ll] = '\0';
			if (sscanf(line, "%63s %63s %1[cb]%u:%u %1s", s.module, s.name, type, &s.major, &s.minor,
				   extra) == 5 &&
			    pathname_relative_ok(s.name) && s.major < 4096 && s.minor < (1u << 20)) {
				if (*n == max)
					return -E2BIG;
				s.type = type[0];
				v[(*n)++] = s;
			} else if (bad_line && !*bad_line) {
				*bad_line = lineno;
			}
		} else if (ll >= sizeof(line) && bad_line && !*bad_line) {
			*bad_line = lineno;
		}
		p += ll + 1;
	}
	return 0;
}

int static_nodes_make(const char *release)
{
	_cleanup_free_ char *text = NULL;
	struct static_node v[128];
	size_t len = 0, n = 0;
	unsigned bad = 0;
	int r, made = 0;

	r = sysroot_read_file(&text, &len, "/lib/modules/%s/modules.devname", release);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = static_nodes_parse(text, len, v, ARRAY_SIZE(v), &n, &bad);
	if (r < 0)
		return r;
	if (bad)
		log_warn("/lib/modules/%s/modules.devname:%u: not 'module name c|bMAJOR:MINOR', skipped", release, bad);
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX], *slash;

		if (sysroot_path(path, sizeof(path), "/dev/%s", v[i].name) < 0)
			continue;
		slash = strrchr(path, '/');
		if (strchr(v[i].name, '/')) {
			*slash = '\0';
			r = fileio_mkdir_p(path);
			*slash = '/';
			if (r < 0)
				return r;
		}
		if (mknod(path, (v[i].type == 'c' ? S_IFCHR : S_IFBLK) | 0600, makedev(v[i].major, v[i].minor)) == 0)
			made++;
		else if (errno != EEXIST)
			return -errno;
	}
	return made;
}
