// SPDX-License-Identifier: MIT
/* machine_wide (see machine_wide.h): a scan of a test's lines for what reaches the whole machine. */
#include "model/machine_wide.h"
#include "util/macro.h"

#include <string.h>

static const struct {
	const char *needle, *why;
} wide[] = {
	{ "/sys/devices/system/cpu", "it takes CPUs offline (CPU hotplug)" },
	{ "_reload_fs_module", "it unloads the filesystem's module, which every runner's mounts hold" },
	{ "_require_loadable_fs_module", "it unloads the filesystem's module, which every runner's mounts hold" },
	{ "_test_loadable_fs_module", "it unloads the filesystem's module, which every runner's mounts hold" },
	{ "_require_loadable_module", "it unloads a kernel module the machine shares" },
	{ "/proc/sys/vm/dirty", "it changes the machine's writeback settings (/proc/sys/vm)" },
	{ "dirtytime_expire", "it changes the machine's writeback settings (/proc/sys/vm)" },
	{ "/proc/sys/vm/compact_memory", "it compacts the machine's memory" },
};

const char *machine_wide_why(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *s = p;

		while (s < le && (*s == ' ' || *s == '\t'))
			s++;
		if (s < le && *s != '#')
			for (size_t i = 0; i < ARRAY_SIZE(wide); i++)
				if (memmem(s, (size_t)(le - s), wide[i].needle, strlen(wide[i].needle)))
					return wide[i].why;
		p = le + 1;
	}
	return NULL;
}
