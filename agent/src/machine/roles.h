/* SPDX-License-Identifier: MIT */
/*
 * Device roles: results disk, test, scratch, log, realtime, log-writes, the
 * DAX and the zoned test and scratch devices, the parallel runners' disk and
 * a scratch pool. Each role is found by an
 * explicit spec (serial:, label:, wwid:, uuid:, a /dev path or by-id link, a
 * bare name) or, by default, by the serial or label "fsagent-<role>"; the
 * DAX and zoned roles by default take the DAX-capable (queue/dax 1) and the
 * zoned (queue/zoned not none) devices in name order, the first for test,
 * the second for scratch: persistent memory has no serial, nor have a
 * dedicated machine's zoned disks. Safety lives here: the root device is
 * never eligible, and a device holding anything fsagent did not create (not
 * in the claims ledger) is refused unless the run allows wiping it.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "machine/devices.h"

/* dax_*, zoned_*: the test and scratch devices of DAX (persistent memory) and zoned configs */
enum role {
	ROLE_RESULTS,
	ROLE_TEST,
	ROLE_SCRATCH,
	ROLE_LOG,
	ROLE_RT,
	ROLE_LOGWRITES,
	ROLE_DAX_TEST,
	ROLE_DAX_SCRATCH,
	ROLE_ZONED_TEST,
	ROLE_ZONED_SCRATCH,
	ROLE_RUNNERS, /* parallel runners' devices are files on it (plan key jobs) */
	ROLE_POOL,    /* last: a list, not one device */
	ROLE_MAX
};

#define ROLES_MAX_POOL 16

struct roles_request {
	const char *spec[ROLE_MAX]; /* NULL: default matching; pool: comma separated */
	const char *wipe;	    /* comma separated specs of devices that may be wiped */
	const char *const *claims;  /* identities from the claims ledger, NULL terminated */
};

enum role_state { ROLE_ASSIGNED, ROLE_REFUSED };

struct role_slot {
	enum role role;
	unsigned index; /* position in the pool */
	const struct device *dev;
	enum role_state state;
	bool claimed_before; /* in the ledger from an earlier boot */
	bool wipe_allowed;
	char matched_by[160];
	char reason[320];
};

struct roles {
	struct role_slot v[ROLE_MAX + ROLES_MAX_POOL];
	size_t n;
	char missing[ROLE_MAX][160]; /* a spec that matched nothing, per role */
};

const char *role_to_string(enum role r);
int role_from_string(const char *s); /* enum role or -EINVAL */

/* Whether spec names d. Returns true/false; an unknown spec form is false. */
bool roles_spec_matches(const char *spec, const struct device *d);

/* Validate a spec's form. Returns 0 or -EINVAL. */
int roles_spec_validate(const char *spec);

/*
 * Assign roles over devs. Never fails: refusals and misses are recorded in
 * *ret. Slots point into devs, which must outlive ret.
 */
void roles_assign(const struct device_list *devs, const struct roles_request *req, struct roles *ret);

/* The slot for a role (first pool member for ROLE_POOL), or NULL. */
const struct role_slot *roles_get(const struct roles *r, enum role role);

/* The ledger identity of d: "serial:X", "wwid:X" or "path:/dev/X". buf >= 160. */
void roles_identity(const struct device *d, char *buf, size_t size);

json_t *roles_to_json(const struct roles *r);
