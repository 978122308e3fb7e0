/* SPDX-License-Identifier: MIT */
/*
 * A plan made ready to run, the same way for `fsagent run` and the boot
 * session: a random order without a seed gets one drawn now (recorded in
 * the bundle, so the run can be replayed), and the files the plan names
 * (expunge lists, the shard durations) are read relative to the plan's
 * directory.
 */
#pragma once

#include "model/expunge.h"
#include "model/plan.h"

#include <jansson.h>
#include <stddef.h>

struct plan_files {
	struct expunge_list expunges;
	json_t *durations; /* NULL: the plan names no durations file */
};

/*
 * Draw p's seed if its order is random and it has none, and read the files
 * it names beneath base (NULL: the current directory) into *ret. Returns 0,
 * or -errno with err naming the file (and line, key). *ret is released on
 * failure.
 */
int plan_resolve(struct plan *p, const char *base, struct plan_files *ret, char *err, size_t es);

void plan_files_release(struct plan_files *f);
