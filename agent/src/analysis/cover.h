/* SPDX-License-Identifier: MIT */
/*
 * Greedy (weighted) set cover, the algorithm under coverage-driven test
 * selection (coverage.h): elements are integers, each set a sorted array.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One candidate set: its elements (sorted, unique) and its cost. */
struct cover_set {
	const uint32_t *elems;
	size_t n;
	double cost;
};

/*
 * Greedy set cover over elements [0, universe): pick sets until at least
 * target elements are covered, each time the set adding the most new
 * elements (by_cost: the most per unit of cost; ties to the lower index),
 * with lazy re-evaluation. order[] gets the picks; returns how many, or
 * (size_t)-1 when the sets cannot reach target (or on no memory).
 */
size_t cover_greedy(const struct cover_set *sets, size_t n, size_t universe, size_t target, bool by_cost,
		    size_t *order);
