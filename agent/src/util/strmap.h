/* SPDX-License-Identifier: MIT */
/*
 * Interned strings: each distinct key gets the next index (0, 1, 2, ...),
 * found again in constant time (open addressing, FNV-1a). For the tables
 * of bundle readers keyed by config, test, release or source line; callers
 * keep their records in an array beside it, by the same index.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strmap {
	char **keys; /* index -> key */
	size_t n, cap;
	uint32_t *slots; /* index + 1, 0 free */
	size_t nslots;
};

/* The index of key, added when new (*added says so; may be NULL). Returns it, or -ENOMEM. */
long strmap_put(struct strmap *m, const char *key, bool *added);
/* The index of key, or -ENOENT. */
long strmap_get(const struct strmap *m, const char *key);
void strmap_release(struct strmap *m);
