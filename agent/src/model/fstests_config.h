/* SPDX-License-Identifier: MIT */
/*
 * The fstests config fsagent writes beside a bundle (fstests.config: a
 * "[section]" line per config, then its variables as KEY="value" lines,
 * catalog_write_section's form), read back for reports that carry check's
 * section variables. The guest wrote the file, so the parser is strict and
 * pure: anything but comments, sections and such lines is refused with
 * file:line.
 */
#pragma once

#include <jansson.h>
#include <stddef.h>

#define FSTESTS_CONFIG_FILE "fstests.config" /* beside bundle.json */
#define FSTESTS_CONFIG_MAX (256 * 1024)

/*
 * Parse text into {section: {KEY: value}}: sections of [a-z0-9_], keys of
 * [A-Z0-9_] (not starting with a digit), values in double quotes (or bare,
 * without blanks) with no quote, backslash, '$' or '`' inside. A section
 * seen twice is refused. Returns 0, -EINVAL with "<file>:<line>: ..." in
 * err, or -ENOMEM.
 */
int fstests_config_parse(const char *text, const char *file, json_t **ret, char *err, size_t errsize);
