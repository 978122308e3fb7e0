/* SPDX-License-Identifier: MIT */
/*
 * A side of a round whose runner was stopped (a TERM, a kill, a crash of
 * the host) keeps the runs it finished: the bundles in its results
 * directory stay where they are and are read with the rest, and the side
 * goes on with the rest of its plan only, plan/rest.conf: each test's
 * iterations less the runs it has (iterations.<config>/<test>), a test with
 * none left expunged on that config (plan/qualify-rest.expunge). What no
 * bundle reader accepts is set aside (results.interrupted-TIME), unread,
 * and the side runs whole.
 */
#pragma once

#include <limits.h>

/*
 * Before round k's side (dir: round-K/SIDE) runs again: what its results
 * hold. rest: the plan to run, plan/plan.conf or plan/rest.conf. Says on
 * stdout what it kept. Returns 0 or -errno (logged).
 */
int qualify_rest(unsigned k, const char *side, const char *dir, char rest[PATH_MAX]);
