// SPDX-License-Identifier: MIT
/*
 * A queue of tests over runners (see schedule.h): longest processing time
 * first, a min-heap of the runners' free times to simulate it.
 */
#include "model/schedule.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: a well-mixed 64-bit value from x */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* FNV-1a of a name: the seed's draw for it does not depend on where it sits in the list */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

struct key {
	double seconds;
	uint64_t draw;
	size_t index;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->seconds != y->seconds)
		return x->seconds > y->seconds ? -1 : 1;
	if (x->draw != y->draw)
		return x->draw < y->draw ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int sched_order(const struct sched_item *items, size_t n, uint64_t seed, size_t *order)
{
	struct key *k = calloc(n ? n : 1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct key){ items[i].seconds, mix(seed ^ name_hash(items[i].name)), i };
	qsort(k, n, sizeof(*k), cmp_key);
	for (size_t i = 0; i < n; i++)
		order[i] = k[i].index;
	free(k);
	return 0;
}

/* The runners' free times as a binary min-heap, ties to the lower runner. */
struct slot {
	double free_at;
	unsigned runner;
};

static bool before(const struct slot *a, const struct slot *b)
{
	return a->free_at < b->free_at || (a->free_at == b->free_at && a->runner < b->runner);
}

static void sift_down(struct slot *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct slot t;

		if (l < n && before(&h[l], &h[m]))
			m = l;
		if (r < n && before(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

double sched_makespan(const struct sched_item *items, const size_t *order, size_t n, unsigned runners,
		      unsigned *runner_of, double *start)
{
	struct slot *h = calloc(runners ? runners : 1, sizeof(*h));
	double end = 0;

	if (!h || !runners) {
		free(h);
		return -1;
	}
	for (unsigned r = 0; r < runners; r++)
		h[r] = (struct slot){ 0, r };
	for (size_t i = 0; i < n; i++) {
		size_t t = order[i];

		/* the runner free first takes the next test */
		if (runner_of)
			runner_of[t] = h[0].runner;
		if (start)
			start[t] = h[0].free_at;
		h[0].free_at += items[t].seconds;
		if (h[0].free_at > end)
			end = h[0].free_at;
		sift_down(h, runners, 0);
	}
	free(h);
	return end;
}

double sched_round_robin(const struct sched_item *items, const size_t *order, size_t n, unsigned runners)
{
	double *sum = calloc(runners ? runners : 1, sizeof(*sum)), worst = 0;

	if (!sum || !runners) {
		free(sum);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		sum[i % runners] += items[order[i]].seconds;
	for (unsigned r = 0; r < runners; r++)
		if (sum[r] > worst)
			worst = sum[r];
	free(sum);
	return worst;
}

double sched_lower_bound(const struct sched_item *items, size_t n, unsigned runners)
{
	double total = 0, longest = 0;

	for (size_t i = 0; i < n; i++) {
		total += items[i].seconds;
		if (items[i].seconds > longest)
			longest = items[i].seconds;
	}
	return runners && total / runners > longest ? total / runners : longest;
}

size_t sched_batch(const double *e, size_t n, unsigned runners, double min_seconds)
{
	return sched_batch_busy(e, n, runners, min_seconds, 0);
}

size_t sched_batch_busy(const double *e, size_t n, unsigned runners, double min_seconds, double busy)
{
	double left = busy > 0 ? busy : 0, sum, fair, target;
	size_t count = 1;

	if (!n)
		return 0;
	runners = runners ? runners : 1;
	for (size_t i = 0; i < n; i++)
		left += e[i];
	fair = left / runners;
	target = left / (2.0 * runners);
	if (target < (min_seconds < fair ? min_seconds : fair))
		target = min_seconds < fair ? min_seconds : fair;
	for (sum = e[0]; count < n && sum + e[count] <= target; count++)
		sum += e[count];
	return count;
}

static int cmp_seconds(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double sched_median_known(const double *e, size_t n, bool *known)
{
	double *v = e ? calloc(n ? n : 1, sizeof(*v)) : NULL, m = 1;
	size_t k = 0;

	for (size_t i = 0; v && i < n; i++)
		if (e[i] >= 0)
			v[k++] = e[i];
	*known = k > 0;
	if (k) {
		qsort(v, k, sizeof(*v), cmp_seconds);
		m = v[k / 2] > 0 ? v[k / 2] : 1;
	}
	free(v);
	return m;
}
