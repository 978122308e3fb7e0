// SPDX-License-Identifier: MIT
/* The run plan parser (plan.conf and --set / kernel command line values). */
#include "fuzz.h"
#include "model/plan.h"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_string(data, size), err[512];
	struct plan p;

	if (!buf || plan_init(&p) < 0) {
		free(buf);
		return 0;
	}
	if (plan_apply_file(&p, "plan.conf", buf, err, sizeof(err)) == 0)
		json_decref(plan_to_json(&p));
	plan_release(&p);
	free(buf);
	return 0;
}
