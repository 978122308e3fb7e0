/* SPDX-License-Identifier: MIT */
/*
 * The results disk: an ext4 filesystem labelled fsagent-results that the
 * host makes without root (mkfs.ext4 -d) and reads back without root
 * (debugfs rdump). Holds caps.json, fatal.json, and claims.json, the ledger
 * of devices fsagent took over so that later boots accept what fsagent and
 * fstests wrote on them.
 */
#pragma once

#include <jansson.h>

#include "machine/roles.h"

#define RESULTS_MNT "/results"
#define CLAIMS_SCHEMA "fsagent-claims/1"

/*
 * Read <dir>/claims.json into a NULL-terminated array of identity strings
 * (caller frees with results_claims_free). A missing file gives an empty
 * array. A malformed file gives -EBADMSG with "claims.json: line L: what"
 * in err and no array.
 */
int results_read_claims(const char *dir, char ***ret, char *err, size_t errsize);
void results_claims_free(char **claims);

/* Parse a claims document held in buf (pure). Same contract as above. */
int results_parse_claims(const char *buf, char ***ret, char *err, size_t errsize);

/*
 * Add every assigned non-results device of r to <dir>/claims.json (earlier
 * entries kept as they are) and write it durably. A ledger that cannot be
 * parsed is left untouched: -EBADMSG. Returns 0 or -errno.
 */
int results_write_claims(const char *dir, const struct roles *r);

/* Write doc as <dir>/<name> by temp file + fsync + rename. Returns 0 or -errno. */
int results_write_json(const char *dir, const char *name, json_t *doc);
