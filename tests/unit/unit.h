/* SPDX-License-Identifier: MIT */
/* Shared includes for fsagent's cmocka unit tests. */
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifndef FIXTURE_DIR
#define FIXTURE_DIR "tests/fixtures"
#endif
#define SYSROOT_DEBIAN FIXTURE_DIR "/sysroot-debian"
#define SYSROOT_TESTVM FIXTURE_DIR "/sysroot-testvm"

/*
 * A fresh directory for each test that writes files: pass unit_mkdtemp and
 * unit_rmdir as a cmocka setup and teardown; the test finds it in unit_dir.
 */
static char unit_dir[64];

static inline int unit_mkdtemp(void **state)
{
	(void)state;
	snprintf(unit_dir, sizeof(unit_dir), "/tmp/fsagent-unit-XXXXXX");
	return mkdtemp(unit_dir) ? 0 : -1;
}

static inline int unit_rmdir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", unit_dir);
	return system(cmd);
}

/* Write (mode "w") or append to ("a") unit_dir/rel; the test fails if it cannot. */
static inline void unit_write_file(const char *rel, const char *mode, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", unit_dir, rel);
	f = fopen(path, mode);
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}
