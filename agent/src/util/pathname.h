/* SPDX-License-Identifier: MIT */
/*
 * Names that stay where they are put: a relative path written by someone
 * else (a guest's bundle, a module's devname file) checked before it is
 * joined under a directory of ours.
 */
#pragma once

#include <stdbool.h>

/*
 * Whether path is relative, of components of name characters (letters,
 * digits, '_', '-', '.'), none empty, "." or "..": "sub/002.out.bad",
 * "mapper/control"; not "/x", "a//b", "a/", "../x".
 */
bool pathname_relative_ok(const char *path);
