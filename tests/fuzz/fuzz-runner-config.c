// SPDX-License-Identifier: MIT
/*
 * A parallel runner's fstests config made from any config text, and any
 * kernel record's device: the runner's values must come out as written,
 * after every line of the section kept, and a device name must be a name.
 */
#include "fuzz.h"
#include "model/kmsg_device.h"
#include "model/runner_config.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const sets[] = { "TEST_DIR=/p/runner-1/test", "RESULT_BASE=/p/runner-1/results", NULL };
	char *text = malloc(size + 1), *out = NULL, err[256], val[64], dev[32];
	const char *section = NULL;

	if (!text)
		return 0;
	/* the device of a record of exactly size bytes (ASan sees a read past it) */
	memcpy(text, data, size);
	if (kmsg_device(text, size, dev, sizeof(dev)) == 0 && (!dev[0] || strpbrk(dev, " ():,\n")))
		abort();
	text[size] = '\0';
	/* the first line names the section when it is one word */
	if (size && text[0] == '[')
		section = "s";
	if (runner_config_text(text, section, sets, &out, err, sizeof(err)) == 0) {
		/* the runner's own values win: read back, they are what was set */
		if (runner_config_get(out, section, "TEST_DIR", val, sizeof(val)) != 0 ||
		    strcmp(val, "/p/runner-1/test"))
			abort();
		free(out);
	}
	free(text);
	return 0;
}
