/* SPDX-License-Identifier: MIT */
/*
 * The userspace a run uses, recorded in caps.json and every bundle so that
 * two bundles that differ only in fstests or mkfs are not taken for a kernel
 * difference: in fsagent's image, the record image/build wrote
 * (/etc/fsagent/userspace.json: fstests' commit, describe and dirty flag,
 * the tools built from source, each filesystem tool's version words, the
 * image id); on a machine without one, the tools' own version words as
 * found on PATH (mkfs.xfs -V, mke2fs -V, mkfs.btrfs --version, ...).
 */
#pragma once

#include <jansson.h>
#include <stddef.h>

#define USERSPACE_SCHEMA "fsagent-userspace/1"
#define USERSPACE_FILE "/etc/fsagent/userspace.json"

/* The record (a new object; NULL only without memory). Reads through the sysroot; runs tools only on the real root. */
json_t *userspace_collect(void);

/* Add fstests' git describe and commit of tree dir, when it is a git work tree and fstests is not recorded yet. */
void userspace_add_fstests(json_t *us, const char *dir);

/* The first non-empty line of a tool's version output, printable, at most size - 1 bytes ("" when none). */
void userspace_version_line(const char *out, size_t len, char *buf, size_t size);
