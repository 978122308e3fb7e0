/* SPDX-License-Identifier: MIT */
/*
 * One parallel runner's fstests config (HOST_OPTIONS), made from the
 * config's own text: the lines before the first section and the section
 * the run uses, with the runner's own values (TEST_DIR, SCRATCH_MNT,
 * RESULT_BASE, TEST_DEV, SCRATCH_DEV) in place of the config's. Other
 * sections are left out: check reads the first section of a file before
 * -s applies and mounts its TEST_DEV, which is not this runner's. A file
 * of plain shell lines (no sections) gets the values as export lines at
 * its end, after the same keys' lines are dropped. Pure.
 */
#pragma once

#include <stddef.h>

/*
 * *ret := the runner's text (malloc'd). section: the section used, or
 * NULL for check's choice (the first); sets: KEY=VALUE strings, NULL-ended, values
 * without '"', '\\', '$' or '`'. Returns 0, -ENOENT (no such section, said
 * in err), -EINVAL (a value that cannot be quoted, said in err) or -ENOMEM.
 */
int runner_config_text(const char *text, const char *section, const char *const *sets, char **ret, char *err,
		       size_t errsize);

/*
 * The value text gives key for section (NULL: the first, as check takes
 * it): its last assignment there or before the first section, quotes
 * taken off. Returns 0, -ENOENT (not set, or set empty) or -ENAMETOOLONG.
 */
int runner_config_get(const char *text, const char *section, const char *key, char *buf, size_t size);
