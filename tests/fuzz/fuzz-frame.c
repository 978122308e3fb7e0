// SPDX-License-Identifier: MIT
/* The console unframer over a guest's console log. */
#include "fuzz.h"
#include "model/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *log = fuzz_string(data, size), *out = NULL;
	size_t len = 0;

	if (!log)
		return 0;
	if (frame_extract(log, "caps.json", &out, &len) == 0) {
		/* what comes out is whole and as long as it says */
		if (strlen(out) > len)
			abort();
		free(out);
	}
	free(log);
	return 0;
}
