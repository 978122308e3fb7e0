// SPDX-License-Identifier: MIT
/*
 * A libFuzzer target's inputs replayed by a plain main, built without
 * sanitizers: valgrind then sees into the libraries ASan does not
 * instrument (jansson, where coverage --diff once wrote after a free).
 * Usage: replay/TARGET FILE...; prints "replayed N inputs".
 */
#include "fuzz.h"

#include <stdio.h>

/* path's bytes (NULL: unreadable) and their count */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		size_t n = 0;
		char *buf = slurp(argv[i], &n);

		if (!buf) {
			perror(argv[i]);
			return 2;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
		free(buf);
	}
	printf("replayed %d inputs\n", argc - 1);
	return 0;
}
