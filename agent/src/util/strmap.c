// SPDX-License-Identifier: MIT
/*
 * Interned strings (see strmap.h).
 */
#include "strmap.h"
#include "hash.h"
#include "macro.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv(const char *s)
{
	return hash_fnv1a(s, strlen(s));
}

static int rehash(struct strmap *m, size_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		size_t h = (size_t)fnv(m->keys[i]) & (nslots - 1);

		while (s[h])
			h = (h + 1) & (nslots - 1);
		s[h] = (uint32_t)i + 1;
	}
	free(m->slots);
	m->slots = s;
	m->nslots = nslots;
	return 0;
}

long strmap_put(struct strmap *m, const char *key, bool *added)
{
	size_t h;

	if (added)
		*added = false;
	if ((m->n + 1) * 2 > m->nslots && rehash(m, m->nslots ? m->nslots * 2 : 1024) < 0)
		return -ENOMEM;
	for (h = (size_t)fnv(key) & (m->nslots - 1); m->slots[h]; h = (h + 1) & (m->nslots - 1))
		if (streq(m->keys[m->slots[h] - 1], key))
			return m->slots[h] - 1;
	if (m->n == m->cap) {
		char **nv = realloc(m->keys, (m->cap = m->cap ? m->cap * 2 : 1024) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		m->keys = nv;
	}
	m->keys[m->n] = strdup(key);
	if (!m->keys[m->n])
		return -ENOMEM;
	m->slots[h] = (uint32_t)++m->n;
	if (added)
		*added = true;
	return (long)m->n - 1;
}

long strmap_get(const struct strmap *m, const char *key)
{
	if (!m->nslots)
		return -ENOENT;
	for (size_t h = (size_t)fnv(key) & (m->nslots - 1); m->slots[h]; h = (h + 1) & (m->nslots - 1))
		if (streq(m->keys[m->slots[h] - 1], key))
			return m->slots[h] - 1;
	return -ENOENT;
}

void strmap_release(struct strmap *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
