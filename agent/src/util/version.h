/* SPDX-License-Identifier: MIT */
/* The fsagent version: git describe at build time (util/version.c). */
#pragma once

extern const char fsagent_version[];
