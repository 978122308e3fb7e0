/* SPDX-License-Identifier: MIT */
/*
 * Test selection the way fstests' check does it, without running check (its
 * -n formats devices): groups and explicit tests are expanded from each
 * tests/<dir>/group.list of a built fstests tree; exclusions and expunge
 * rules are applied with their reasons kept.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "model/expunge.h"
#include "model/plan.h"

/* The tests of one directory and their groups, from group.list. */
struct group_list {
	char *dir;
	char **names;	/* "001", "002-foo" */
	char ***groups; /* per name, NULL-terminated */
	size_t n;
};

/*
 * Parse one group.list held in buf ("NNN[-name] grp grp ..." lines, '#'
 * comments). Returns 0, or -EINVAL with "<file>:<line>: what" in err.
 */
int select_parse_group_list(const char *dir, const char *file, const char *buf, struct group_list *ret, char *err,
			    size_t errsize);
void group_list_release(struct group_list *g);

/* SEL_ELSEWHERE: another shard's (see shard.h); not run, not recorded here */
enum selected_state { SEL_RUN, SEL_EXPUNGED, SEL_UNKNOWN, SEL_ELSEWHERE };

struct selected_test {
	char *name; /* dir/NNN[-name] */
	enum selected_state state;
	char *reason; /* why expunged or unknown */
	char *source; /* file:line of the rule, or "plan" */
	bool serial;  /* in fstests' group unreliable_in_parallel, or machine-wide: never beside another test */
	const char *machine_why; /* why it needs the machine alone (model/machine_wide.h; static), or NULL */
};

struct selection {
	struct selected_test *v;
	size_t n;
	/* the tree has a test in group unreliable_in_parallel: new enough for tests at once (check-parallel's) */
	bool knows_parallel;
};

#define SELECT_SERIAL_GROUP "unreliable_in_parallel"

/*
 * Select the tests for one config of filesystem fstype from the fstests
 * tree at root: explicit tests first in the plan's order, then the groups'
 * tests sorted; minus exclude_groups; plan exclusions and expunge rules
 * (judged with ctx) mark tests expunged with their reason. Tests that match
 * nothing are kept as SEL_UNKNOWN. With plan key jobs above 1, a test
 * whose script reaches the whole machine (model/machine_wide.h) is serial
 * too, said once. Returns 0 or -errno with err set.
 */
int select_tests(const char *root, const char *fstype, const struct plan *plan, const struct expunge_list *expunges,
		 const struct expunge_ctx *ctx, struct selection *ret, char *err, size_t errsize);
void selection_release(struct selection *s);
