/* SPDX-License-Identifier: MIT */
/*
 * A result's output: its text made printable, its files replaced whole.
 * Shared by the commands and by the loops under them (engine/).
 */
#pragma once

#include <jansson.h>
#include <stdio.h>

/* fn's text, made printable (control characters as '?'), to stdout: a bundle's text is a guest's. */
void print_printable(void (*fn)(json_t *, FILE *), json_t *doc);
/* fn's output into path by temp file, fsync and rename. Returns 0 or -errno (logged). */
int write_output(const char *path, json_t *res, void (*fn)(json_t *, FILE *));
/* The same for a writer that can fail (returns 0 or -errno, then nothing is replaced) and takes any data. */
int write_output_by(const char *path, int (*fn)(const void *data, FILE *), const void *data);
/* res as indented JSON, for write_output. */
void dump_json(json_t *res, FILE *f);
