// SPDX-License-Identifier: MIT
/*
 * FNV-1a (see hash.h).
 */
#include "util/hash.h"

uint64_t hash_fnv1a(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}
