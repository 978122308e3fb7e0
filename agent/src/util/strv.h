/* SPDX-License-Identifier: MIT */
/*
 * NULL-terminated string vectors (heap strings in a heap array).
 * An empty vector is a valid array holding only NULL.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Split s at any of seps, dropping empty words. Returns NULL on ENOMEM. */
char **strv_split(const char *s, const char *seps);
/* Append a copy of s. Returns 0 or -ENOMEM. *v may be NULL (then it is created). */
int strv_push(char ***v, const char *s);
/* Append copies of all of add. Returns 0 or -ENOMEM. */
int strv_extend(char ***v, char *const *add);
size_t strv_length(char *const *v);
bool strv_contains(char *const *v, const char *s);
void strv_free(char **v);
/* The words joined by sep. Returns NULL on ENOMEM. */
char *strv_join(char *const *v, char sep);
/* A JSON array of the words (NULL: an empty one). Returns NULL on ENOMEM. */
json_t *strv_to_json(char *const *v);
