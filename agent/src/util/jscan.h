/* SPDX-License-Identifier: MIT */
/*
 * A validating scanner for one JSON object held in memory, for the hot path
 * of reading journals: it checks the whole text against RFC 8259 (UTF-8,
 * no control characters in strings, no \u0000, nesting at most 64 deep, as
 * jansson accepts it) and reports where the values of a few top-level keys
 * lie, without building anything. Reading a million journal lines with
 * jansson's objects cost seconds; this costs a pass over the bytes.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum jscan_type {
	JSCAN_NONE,
	JSCAN_STRING,
	JSCAN_NUMBER,
	JSCAN_TRUE,
	JSCAN_FALSE,
	JSCAN_NULL,
	JSCAN_OBJECT,
	JSCAN_ARRAY
};

struct jscan_field {
	const char *key;      /* in: the top-level key wanted */
	enum jscan_type type; /* out: JSCAN_NONE when the key is absent */
	const char *start;    /* out: the value; a string's without its quotes, escapes kept */
	size_t len;
};

/*
 * Check that text[0..n) is exactly one JSON object, blanks around allowed,
 * and fill fields[] (the last of duplicate keys wins). Returns 0, or
 * -EBADMSG with *ret_at the offset of the fault and *ret_why what it is.
 */
int jscan_object(const char *text, size_t n, struct jscan_field *fields, size_t nfields, size_t *ret_at,
		 const char **ret_why);

/*
 * A string value's span (from jscan_object) unescaped into dst as UTF-8 with
 * a terminating NUL. Returns 0, or -ENAMETOOLONG when it does not fit.
 */
int jscan_unescape(const char *s, size_t len, char *dst, size_t size);

/* A number value's span as a double. */
double jscan_number(const char *s, size_t len);

/* Whether a string value's span equals word (no escapes in it). */
bool jscan_streq(const struct jscan_field *f, const char *word);
