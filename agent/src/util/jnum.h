/* SPDX-License-Identifier: MIT */
/*
 * Counts read back from JSON that fsagent or a user wrote (state files,
 * qualifications, bundles' aggregates): integers only, from 0 to a bound,
 * so that no sum of them overflows and no float or string is taken for 0.
 */
#pragma once

#include <jansson.h>

/* The largest count a state file may hold: 2^31 (runs, failures, probes). */
#define JNUM_COUNT_MAX ((json_int_t)1 << 31)

/*
 * v as a count from 0 to max into *ret. Returns 0, -ENOENT when v is NULL
 * (the key is absent), or -EBADMSG when v is not an integer in that range.
 */
int jnum_count(const json_t *v, json_int_t max, json_int_t *ret);

/* The words for a count's fault, for "key 'runs': %s": "not an integer from 0 to 2147483648". */
#define JNUM_COUNT_WHY "not an integer from 0 to 2147483648"
