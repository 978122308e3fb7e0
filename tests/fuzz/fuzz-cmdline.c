// SPDX-License-Identifier: MIT
/* The kernel command line's fsagent.* words. */
#include "fuzz.h"
#include "boot/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_string(data, size), err[512];
	struct boot_config cfg;

	if (!buf)
		return 0;
	if (config_parse_cmdline(buf, &cfg, err, sizeof(err)) == 0)
		boot_config_release(&cfg);
	free(buf);
	return 0;
}
