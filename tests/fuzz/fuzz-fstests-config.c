// SPDX-License-Identifier: MIT
/* The fstests.config reader: the guest wrote the file a report reads back. */
#include "fuzz.h"
#include "model/fstests_config.h"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_string(data, size), err[512];
	json_t *doc = NULL;

	if (!buf)
		return 0;
	if (fstests_config_parse(buf, "fstests.config", &doc, err, sizeof(err)) == 0)
		json_decref(doc);
	free(buf);
	return 0;
}
