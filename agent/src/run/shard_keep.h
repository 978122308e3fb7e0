/* SPDX-License-Identifier: MIT */
/*
 * A run's selection per config, and this VM's shard of it: with plan key
 * shard (model/shard.h), each VM keeps the tests the durations assign it,
 * all configs together.
 */
#pragma once

#include <stddef.h>

#include "model/bundle.h"
#include "run/history.h"
#include "run/run.h"
#include "run/select.h"

/*
 * A config's selection, made once per run: the plan and expunge files do not
 * change between rounds. A failed one keeps its error for when the config
 * comes to run.
 */
struct config_sel {
	struct selection sel;
	int r;
	char err[512];
	size_t n_run;		  /* tests it runs per iteration */
	struct history_config hc; /* its tests by the durations file */
};

/*
 * Keep this VM's shard of every config's tests; the others' become
 * SEL_ELSEWHERE, and so do expunged and unknown tests outside the first
 * shard, so that merged shards record them once. The shard's size and load
 * go into b ("shard"). Returns 0 or -ENOMEM.
 */
int shard_keep(const struct run_opts *o, struct config_sel *cs, struct bundle *b);
