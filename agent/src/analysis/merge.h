/* SPDX-License-Identifier: MIT */
/*
 * Joining the bundles of a sharded run (shard.h) into one bundle: every
 * shard of the same plan present once, each config's iterations with the
 * shards' orders and records joined in shard order, counts taken again,
 * the shards listed under "shards", artifacts copied. A test recorded by
 * two shards, a missing shard, a soak's aggregate, a test name or artifact
 * path that could leave the bundle directory: refused, naming the bundle.
 * The output directory must not exist or be empty; bundle.json is written
 * last, so an interrupted merge leaves no bundle.
 */
#pragma once

#include <stddef.h>

/* Returns 0, -errno or -EBADMSG with err saying why. */
int merge_bundles(char *const *paths, const char *into, const char *run_id, char *err, size_t errsize);
