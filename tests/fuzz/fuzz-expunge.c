// SPDX-License-Identifier: MIT
/* Expunge files, and matching their rules. */
#include "fuzz.h"
#include "model/expunge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_string(data, size), err[512];
	struct expunge_list l = { 0 };
	char *caps[] = { "dax", "lockdep", NULL };
	struct expunge_ctx ctx = { .fs = "xfs", .config = "xfs/4k", .arch = "x86_64", .caps = caps };

	if (!buf)
		return 0;
	ctx.kernel.major = 6;
	ctx.kernel.minor = 1;
	ctx.kernel.patch = 50;
	if (expunge_parse(&l, "expunge", buf, err, sizeof(err)) == 0) {
		expunge_match(&l, "generic/001", &ctx);
		expunge_match(&l, "xfs/123", &ctx);
	}
	expunge_list_release(&l);
	free(buf);
	return 0;
}
