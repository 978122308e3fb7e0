// SPDX-License-Identifier: MIT
/*
 * Seeded, portable shuffling (see order.h): splitmix64 expands the seed into
 * xoshiro256** state; bounded draws reject to stay unbiased. No libc PRNG is
 * used, so orders do not change with the C library.
 */
#include "model/order.h"
#include "util/hash.h"

#include <string.h>
#include <sys/random.h>
#include <time.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

struct xoshiro {
	uint64_t s[4];
};

static uint64_t next(struct xoshiro *x)
{
	uint64_t r = rotl(x->s[1] * 5, 7) * 9, t = x->s[1] << 17;

	x->s[2] ^= x->s[0];
	x->s[3] ^= x->s[1];
	x->s[1] ^= x->s[2];
	x->s[0] ^= x->s[3];
	x->s[2] ^= t;
	x->s[3] = rotl(x->s[3], 45);
	return r;
}

/* uniform in [0, bound) */
static uint64_t below(struct xoshiro *x, uint64_t bound)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound, r;

	do
		r = next(x);
	while (r >= limit);
	return r % bound;
}

uint64_t order_derive_seed(uint64_t run_seed, unsigned iteration, const char *config)
{
	/* FNV-1a of the config name, mixed with the seed and iteration */
	uint64_t x =
		run_seed ^ hash_fnv1a(config ? config : "", config ? strlen(config) : 0) ^ ((uint64_t)iteration << 32);
	return splitmix64(&x);
}

void order_shuffle(char **v, size_t n, uint64_t seed)
{
	struct xoshiro x;
	uint64_t sm = seed;

	for (int i = 0; i < 4; i++)
		x.s[i] = splitmix64(&sm);
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)below(&x, i);
		char *t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

uint64_t order_new_seed(void)
{
	uint64_t s;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) == sizeof(s))
		return s;
	/* early boot without entropy: time is good enough to pick an order */
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	s = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
	return splitmix64(&s);
}
