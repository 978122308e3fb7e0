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
