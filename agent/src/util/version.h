/* SPDX-License-Identifier: MIT */
/* The fsagent version, set by the Makefile from git describe. */
#pragma once

#ifndef FSAGENT_VERSION
#define FSAGENT_VERSION "0.1-unknown"
#endif
