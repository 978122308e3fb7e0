/* SPDX-License-Identifier: MIT */
/*
 * Test order: fixed as listed, or shuffled from a seed so that the same seed
 * gives the same order on any machine (fstests' own -r cannot be seeded).
 * Each iteration and config gets its own seed derived from the run's.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* A seed for one iteration of one config, derived from the run's seed. */
uint64_t order_derive_seed(uint64_t run_seed, unsigned iteration, const char *config);

/* Shuffle v[0..n) in place (Fisher-Yates over xoshiro256**). */
void order_shuffle(char **v, size_t n, uint64_t seed);

/* A fresh seed from the kernel's random pool (for a random order with no seed given). */
uint64_t order_new_seed(void);
