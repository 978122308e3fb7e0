/* SPDX-License-Identifier: MIT */
/*
 * Text into HTML or XML: the markup characters as entities, and control
 * characters other than tab and newline (which neither XML 1.0 nor HTML
 * allows, and a guest's text may hold) as '?'.
 */
#pragma once

#include <jansson.h>
#include <stdio.h>

void markup_escape(FILE *out, const char *s);

/* A link to a file by its name: <a href="PATH">NAME</a>, both escaped. */
void markup_file_link(FILE *out, const char *path);

/* What text prints of doc, escaped, between open and close: a page's line made by its text output. */
void markup_escape_printed(FILE *out, const char *open, void (*text)(json_t *, FILE *), json_t *doc, const char *close);
