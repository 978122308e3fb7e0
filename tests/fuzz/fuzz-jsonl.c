// SPDX-License-Identifier: MIT
/* Journals (runs.jsonl, track.jsonl): the one reader of append-only state, NULs and torn tails included. */
#include "fuzz.h"
#include "engine/jsonl.h"

#include <errno.h>

static int take(void *ctx, json_t *rec, const char *path, unsigned line)
{
	size_t *n = ctx;

	(void)path;
	(void)line;
	if (!json_is_object(rec))
		return -EBADMSG;
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = 0;
	long end;

	end = jsonl_parse((const char *)data, size, "runs.jsonl", take, &n);
	/* what is kept ends a line; nothing past the input */
	if (end > 0 && ((size_t)end > size || data[end - 1] != '\n'))
		abort();
	return 0;
}
