/* SPDX-License-Identifier: MIT */
/* fsagent fixes' answer (schema fsagent-fixes/1, engine/fixes.h) in words, for the terminal. */
#pragma once

#include <jansson.h>
#include <stdio.h>

void fixes_text(json_t *res, FILE *out);
