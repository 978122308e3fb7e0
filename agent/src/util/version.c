// SPDX-License-Identifier: MIT
/*
 * The one object that carries the version: the Makefile rebuilds it
 * whenever `git describe` changes (build/VERSION), so a bundle never
 * names a commit other than the binary's own.
 */
#include "util/version.h"

#ifndef FSAGENT_VERSION
#define FSAGENT_VERSION "0.1-unknown"
#endif

const char fsagent_version[] = FSAGENT_VERSION;
