// SPDX-License-Identifier: MIT
/*
 * One JSON object, validated in one pass (see jscan.h). A recursive descent
 * over a cursor; depth is bounded so hostile input cannot exhaust the stack.
 */
#include "jscan.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

struct cur {
	const char *p, *end;
	const char *why;
};

static bool fail(struct cur *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return false;
}

static void blanks(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static int hex(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Four hex digits at p (bounds checked by the caller), or -1. */
static long hex4(const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		int h = hex(p[i]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* One UTF-8 sequence starting at c->p (a byte >= 0x80). */
static bool utf8(struct cur *c)
{
	const unsigned char *s = (const unsigned char *)c->p;
	size_t left = (size_t)(c->end - c->p), n;
	uint32_t cp;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return fail(c, "invalid UTF-8");
	}
	if (left < n)
		return fail(c, "invalid UTF-8");
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return fail(c, "invalid UTF-8");
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
		return fail(c, "invalid UTF-8");
	c->p += n;
	return true;
}

/* A string at c->p (the opening quote); its contents' span goes to start/len. */
static bool string(struct cur *c, const char **start, size_t *len)
{
	c->p++;
	*start = c->p;
	while (c->p < c->end) {
		unsigned char ch = (unsigned char)*c->p;

		if (ch == '"') {
			*len = (size_t)(c->p - *start);
			c->p++;
			return true;
		}
		if (ch < 0x20)
			return fail(c, "control character in a string");
		if (ch >= 0x80) {
			if (!utf8(c))
				return false;
			continue;
		}
		if (ch != '\\') {
			c->p++;
			continue;
		}
		if (c->end - c->p < 2)
			break;
		switch (c->p[1]) {
		case '"':
		case '\\':
		case '/':
		case 'b':
		case 'f':
		case 'n':
		case 'r':
		case 't': c->p += 2; continue;
		case 'u': {
			long v;

			if (c->end - c->p < 6 || (v = hex4(c->p + 2)) < 0)
				return fail(c, "bad \\u escape");
			if (v == 0)
				return fail(c, "\\u0000 in a string");
			c->p += 6;
			if (v >= 0xdc00 && v <= 0xdfff)
				return fail(c, "lone low surrogate");
			if (v >= 0xd800 && v <= 0xdbff) {
				long lo;

				if (c->end - c->p < 6 || c->p[0] != '\\' || c->p[1] != 'u' ||
				    (lo = hex4(c->p + 2)) < 0xdc00 || lo > 0xdfff)
					return fail(c, "lone high surrogate");
				c->p += 6;
			}
			continue;
		}
		default: return fail(c, "bad escape");
		}
	}
	return fail(c, "unterminated string");
}

static bool digits(struct cur *c)
{
	const char *s = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
		c->p++;
	return c->p > s;
}

/* jansson's limits: integers must fit a long long, reals must not overflow */
static bool number_fits(const char *s, size_t len, bool real)
{
	char small[64], *buf = len < sizeof(small) ? small : malloc(len + 1);
	bool fits;

	if (!buf)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	if (!real) {
		(void)strtoll(buf, NULL, 10);
		fits = errno != ERANGE;
	} else {
		double d = strtod(buf, NULL);

		fits = !((d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE);
	}
	if (buf != small)
		free(buf);
	return fits;
}

static bool number(struct cur *c)
{
	const char *s = c->p;
	bool real = false;

	if (*c->p == '-')
		c->p++;
	if (c->p < c->end && *c->p == '0')
		c->p++;
	else if (!digits(c))
		return fail(c, "bad number");
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		real = true;
		if (!digits(c))
			return fail(c, "bad number");
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		c->p++;
		real = true;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (!digits(c))
			return fail(c, "bad number");
	}
	if (!number_fits(s, (size_t)(c->p - s), real)) {
		c->p = s;
		return fail(c, "number out of range");
	}
	return true;
}

static bool literal(struct cur *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
		return fail(c, "unexpected character");
	c->p += n;
	return true;
}

static bool value(struct cur *c, int depth, enum jscan_type *type, const char **start, size_t *len);

/* An object or array at c->p; fields are filled at depth 0 only. */
static bool container(struct cur *c, int depth, struct jscan_field *fields, size_t nfields)
{
	bool obj = *c->p == '{';
	char close = obj ? '}' : ']';

	if (depth >= MAX_DEPTH)
		return fail(c, "nested too deep");
	c->p++;
	blanks(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		return true;
	}
	for (;;) {
		const char *key = NULL, *vs;
		size_t klen = 0, vl;
		enum jscan_type t;

		blanks(c);
		if (obj) {
			if (c->p >= c->end || *c->p != '"')
				return fail(c, "expected a key");
			if (!string(c, &key, &klen))
				return false;
			blanks(c);
			if (c->p >= c->end || *c->p != ':')
				return fail(c, "expected ':'");
			c->p++;
			blanks(c);
		}
		if (!value(c, depth + 1, &t, &vs, &vl))
			return false;
		for (size_t i = 0; key && i < nfields; i++)
			if (strlen(fields[i].key) == klen && memcmp(fields[i].key, key, klen) == 0) {
				fields[i].type = t;
				fields[i].start = vs;
				fields[i].len = vl;
			}
		blanks(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			continue;
		}
		if (c->p < c->end && *c->p == close) {
			c->p++;
			return true;
		}
		return fail(c, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static bool value(struct cur *c, int depth, enum jscan_type *type, const char **start, size_t *len)
{
	const char *s = c->p;

	if (c->p >= c->end)
		return fail(c, "unexpected end");
	*start = s;
	switch (*c->p) {
	case '"': *type = JSCAN_STRING; return string(c, start, len);
	case '{':
	case '[':
		*type = *c->p == '{' ? JSCAN_OBJECT : JSCAN_ARRAY;
		if (!container(c, depth, NULL, 0))
			return false;
		break;
	case 't':
		*type = JSCAN_TRUE;
		if (!literal(c, "true"))
			return false;
		break;
	case 'f':
		*type = JSCAN_FALSE;
		if (!literal(c, "false"))
			return false;
		break;
	case 'n':
		*type = JSCAN_NULL;
		if (!literal(c, "null"))
			return false;
		break;
	default:
		if (*c->p != '-' && (*c->p < '0' || *c->p > '9'))
			return fail(c, "unexpected character");
		*type = JSCAN_NUMBER;
		if (!number(c))
			return false;
	}
	*len = (size_t)(c->p - s);
	return true;
}

int jscan_object(const char *text, size_t n, struct jscan_field *fields, size_t nfields, size_t *ret_at,
		 const char **ret_why)
{
	struct cur c = { text, text + n, NULL };

	for (size_t i = 0; i < nfields; i++)
		fields[i].type = JSCAN_NONE;
	blanks(&c);
	if (c.p >= c.end || *c.p != '{')
		fail(&c, "not a JSON object");
	else if (container(&c, 0, fields, nfields)) {
		blanks(&c);
		if (c.p == c.end)
			return 0;
		fail(&c, "text after the object");
	}
	if (ret_at)
		*ret_at = (size_t)(c.p - text);
	if (ret_why)
		*ret_why = c.why;
	return -EBADMSG;
}

static size_t put_utf8(char *d, unsigned long cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | (cp >> 6));
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | (cp >> 12));
		d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | (cp >> 18));
	d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The span was validated by jscan_object: escapes are well formed. */
int jscan_unescape(const char *s, size_t len, char *dst, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		char tmp[4];
		size_t k = 1;

		if (s[i] != '\\') {
			tmp[0] = s[i++];
		} else {
			char e = s[i + 1];

			i += 2;
			switch (e) {
			case 'b': tmp[0] = '\b'; break;
			case 'f': tmp[0] = '\f'; break;
			case 'n': tmp[0] = '\n'; break;
			case 'r': tmp[0] = '\r'; break;
			case 't': tmp[0] = '\t'; break;
			case 'u': {
				unsigned long cp = (unsigned long)hex4(s + i);

				i += 4;
				if (cp >= 0xd800 && cp <= 0xdbff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     ((unsigned long)hex4(s + i + 2) - 0xdc00);
					i += 6;
				}
				k = put_utf8(tmp, cp);
				break;
			}
			default: tmp[0] = e;
			}
		}
		if (o + k >= size)
			return -ENAMETOOLONG;
		memcpy(dst + o, tmp, k);
		o += k;
	}
	if (o >= size)
		return -ENAMETOOLONG;
	dst[o] = '\0';
	return 0;
}

double jscan_number(const char *s, size_t len)
{
	char buf[64];

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return strtod(buf, NULL);
}

bool jscan_streq(const struct jscan_field *f, const char *word)
{
	return f->type == JSCAN_STRING && strlen(word) == f->len && memcmp(f->start, word, f->len) == 0;
}
