// SPDX-License-Identifier: MIT
/* The lazy greedy set cover (see cover.h). */
#include "analysis/cover.h"

#include <math.h>
#include <stdlib.h>

static size_t gain_of(const struct cover_set *s, const uint8_t *covered)
{
	size_t g = 0;

	for (size_t i = 0; i < s->n; i++)
		g += !covered[s->elems[i]];
	return g;
}

static double score(const struct cover_set *s, size_t gain, bool by_cost)
{
	return by_cost ? (double)gain / (s->cost > 1e-9 ? s->cost : 1e-9) : (double)gain;
}

size_t cover_greedy(const struct cover_set *sets, size_t n, size_t universe, size_t target, bool by_cost, size_t *order)
{
	uint8_t *covered = calloc(universe ? universe : 1, 1);
	double *bound = calloc(n ? n : 1, sizeof(*bound));
	bool *taken = calloc(n ? n : 1, sizeof(*taken));
	size_t have = 0, picks = 0;

	if (!covered || !bound || !taken) {
		picks = (size_t)-1;
		goto out;
	}
	/* a set's score only falls as others are taken: stale scores are upper bounds */
	for (size_t i = 0; i < n; i++)
		bound[i] = score(&sets[i], sets[i].n, by_cost);
	while (have < target) {
		size_t best = n;

		for (;;) {
			size_t top = n, g;

			for (size_t i = 0; i < n; i++)
				if (!taken[i] && (top == n || bound[i] > bound[top]))
					top = i;
			if (top == n || bound[top] <= 0)
				break;
			g = gain_of(&sets[top], covered);
			if (score(&sets[top], g, by_cost) >= bound[top]) {
				best = top;
				break;
			}
			bound[top] = score(&sets[top], g, by_cost);
		}
		if (best == n) {
			picks = (size_t)-1;
			break;
		}
		taken[best] = true;
		order[picks++] = best;
		for (size_t i = 0; i < sets[best].n; i++)
			if (!covered[sets[best].elems[i]]) {
				covered[sets[best].elems[i]] = 1;
				have++;
			}
	}
out:
	free(covered);
	free(bound);
	free(taken);
	return picks;
}
