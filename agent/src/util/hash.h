/* SPDX-License-Identifier: MIT */
/*
 * FNV-1a, 64 bits: the one non-cryptographic hash fsagent uses (hash tables,
 * seed derivation, file and id fingerprints).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

uint64_t hash_fnv1a(const void *data, size_t n);
