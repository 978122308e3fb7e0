/* SPDX-License-Identifier: MIT */
/*
 * Candidates from an mbox of patches, as AUTOSEL and the stable review
 * mails send them: split by git mailsplit into a directory, each mail one
 * candidate in the mbox's order (engine/fixes_apply.h applies each with
 * git am -3).
 */
#pragma once

#include <jansson.h>
#include <stddef.h>

/*
 * The patches of mbox, split into dir (mails 0001..N, written over), as fixes_find's "fixes"
 * entries: {id: the upstream commit its body names ('[ Upstream commit
 * <id> ]', ...), else the commit of its "From <id>" line, else "patch-N";
 * subject, fixes: the ids its Fixes: lines name, of: null, in_stable:
 * null, patch: its file}. Returns 0, -EINVAL (err names the file and the
 * mail: not an mbox, a mail that is no patch), or -errno.
 */
int fixes_from_mbox(const char *mbox, const char *dir, json_t **ret, char *err, size_t es);
