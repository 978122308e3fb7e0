/* SPDX-License-Identifier: MIT */
/*
 * The machine inventory document (caps.json): capabilities, devices and
 * roles, built the same way by PID 1 and by `fsagent caps`.
 */
#pragma once

#include <jansson.h>

#include "machine/caps.h"
#include "machine/devices.h"
#include "machine/modules.h"
#include "machine/roles.h"

#define CAPS_SCHEMA "fsagent-caps/1"

struct inventory {
	struct caps caps;
	struct device_list devs;
	struct roles roles;
	struct modules *mods; /* not owned; may be NULL */
	json_t *doc;	      /* owned */
};

/*
 * Probe everything and assign roles per req (role specs, devices that may
 * be wiped, the claims ledger; NULL: default matching, nothing claimed).
 * mods may be NULL. Returns 0 or -errno; on failure nothing is left to
 * release.
 */
int inventory_build(struct modules *mods, const struct roles_request *req, struct inventory *ret);

/*
 * Render devices and filesystems again and reassign roles (after by-id links
 * were made, modules finished loading, or the results disk supplied the
 * claims ledger).
 */
void inventory_update(struct inventory *inv, const struct roles_request *req);

void inventory_release(struct inventory *inv);

/*
 * Capability names that expunge conditions test (cap=NAME): lockdep (live),
 * kasan, kcsan, ubsan, kfence, kmemleak, gcov (configured), dax (a DAX
 * device), pmem, zoned (a zoned device). Caller frees with strv_free.
 */
char **inventory_cap_names(const struct inventory *inv);
