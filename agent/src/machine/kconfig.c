// SPDX-License-Identifier: MIT
/*
 * Kernel build configuration: reading it (see kconfig.h) and looking
 * options up in it.
 */
#include "machine/kconfig.h"
#include "util/macro.h"
#include "util/sysroot.h"

#include <limits.h>
#include <string.h>
#include <zlib.h>

int kconfig_get(const char *buf, const char *key, const char **ret_val)
{
	static char val[256];
	char needle[128];
	size_t klen = strlen(key), n;
	const char *p, *eol;

	/* one strstr per key: a walk line by line cost ~100 ms under TCG for caps' 40 keys */
	if (klen + 3 > sizeof(needle))
		return 0;
	snprintf(needle, sizeof(needle), "\n%s=", key);
	if (strncmp(buf, needle + 1, klen + 1) == 0)
		p = buf;
	else if ((p = strstr(buf, needle)))
		p++;
	else
		return 0;
	p += klen + 1;
	eol = strchrnul(p, '\n');
	n = (size_t)(eol - p);
	if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
		p++;
		n -= 2;
	}
	if (n >= sizeof(val))
		n = sizeof(val) - 1;
	memcpy(val, p, n);
	val[n] = '\0';
	*ret_val = val;
	return 1;
}

/* /proc/config.gz (IKCONFIG_PROC) first, then /boot/config-<release>. */
int kconfig_read(const char *release, char **ret, const char **ret_source)
{
	char path[PATH_MAX];
	gzFile gz;
	int r;

	if (sysroot_path(path, sizeof(path), "/proc/config.gz") == 0 && (gz = gzopen(path, "rbe")) != NULL) {
		size_t cap = 1 << 18, len = 0;
		char *buf = malloc(cap);
		int n;

		while (buf && (n = gzread(gz, buf + len, (unsigned)(cap - len - 1))) > 0) {
			len += (size_t)n;
			if (cap - len < 4096) {
				char *nb = realloc(buf, cap *= 2);

				if (!nb) {
					free(buf);
					buf = NULL;
				}
				buf = nb;
			}
		}
		gzclose(gz);
		if (!buf)
			return -ENOMEM;
		buf[len] = '\0';
		*ret = buf;
		*ret_source = "/proc/config.gz";
		return 0;
	}
	r = sysroot_read_file(ret, NULL, "/boot/config-%s", release);
	if (r == 0)
		*ret_source = "/boot/config-<release>";
	return r;
}
