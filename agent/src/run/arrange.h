/* SPDX-License-Identifier: MIT */
/*
 * The order of a parallel iteration's queue: longest first by the tests'
 * history (a test never timed first of all: it may be the longest), equals
 * in an order drawn from the seed (model/schedule.h); then, as it runs, a
 * crash's suspects first (each alone), the tests that cannot share the
 * machine (fstests' group unreliable_in_parallel) last.
 */
#pragma once

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "run/history.h"
#include "run/select.h"

/* order (a strv) longest first by h's durations of config's tests, equals by seed, in place. Returns 0 or -ENOMEM. */
int arrange_longest_first(char **order, const struct history *h, const char *config, uint64_t seed);

/*
 * order in place: the names of suspects (NULL-ended, may be NULL) first,
 * then the tests that may share the machine, then sel's serial tests; each
 * part keeps its order. *ret_head and *ret_parallel := the first two
 * parts' sizes. Returns 0 or -ENOMEM.
 */
int arrange_queue(char **order, const struct selection *sel, char *const *suspects, size_t *ret_head,
		  size_t *ret_parallel);

/*
 * arrange_queue for an iteration about to run (a resumed one perhaps): its
 * "suspects" (a crash's, boot/crash.h) that have no result yet first.
 * Returns 0 or -ENOMEM.
 */
int arrange_for_run(char **order, const struct selection *sel, json_t *iteration, size_t *ret_head,
		    size_t *ret_parallel);

/*
 * After an iteration's queue ran to its end with head suspects first (of
 * all in its queue, every config's): the suspects are done. When every one
 * of them ran alone in this boot without crashing, the crash is
 * unexplained: said, and recorded as the iteration's "crash_unexplained"
 * (its tests that were in flight).
 */
void arrange_suspects_done(json_t *iteration, size_t head, size_t all);
