// SPDX-License-Identifier: MIT
/* The initramfs stage's hand-off to the root's PID 1 (see handoff.h). */
#include "boot/handoff.h"
#include "util/macro.h"

#include <stdbool.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool module_name_ok(const char *s, size_t len)
{
	if (len == 0 || len >= 64)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

int handoff_add_driver(struct handoff *h, const char *module)
{
	size_t used = strlen(h->drivers), len = strlen(module);

	if (!module_name_ok(module, len))
		return -EINVAL;
	if (used + len + 2 > sizeof(h->drivers))
		return -ENOSPC;
	memcpy(h->drivers + used, module, len);
	h->drivers[used + len] = '+';
	h->drivers[used + len + 1] = '\0';
	return 0;
}

int handoff_encode(const struct handoff *h, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%ld,%ld,%s", h->start_ms, h->switch_ms, h->drivers);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* A decimal number in [0, LONG_MAX] up to end; *s moves past it. */
static int parse_ms(const char **s, char end, long *ret)
{
	char *e;
	long v;

	if (**s < '0' || **s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(*s, &e, 10);
	if (errno || *e != end)
		return -EINVAL;
	*ret = v;
	*s = e + 1;
	return 0;
}

int handoff_decode(const char *s, struct handoff *h)
{
	struct handoff d = { 0 };

	if (!s || parse_ms(&s, ',', &d.start_ms) < 0 || parse_ms(&s, ',', &d.switch_ms) < 0 ||
	    d.switch_ms < d.start_ms || strlen(s) >= sizeof(d.drivers))
		return -EINVAL;
	/* module names, each followed by '+' */
	for (const char *p = s; *p;) {
		const char *plus = strchr(p, '+');

		if (!plus || !module_name_ok(p, (size_t)(plus - p)))
			return -EINVAL;
		p = plus + 1;
	}
	snprintf(d.drivers, sizeof(d.drivers), "%s", s);
	*h = d;
	return 0;
}

int handoff_decode_fd(const char *s, int *ret_fd)
{
	char *e;
	long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &e, 10);
	if (errno || *e || v <= 2 || v > INT_MAX)
		return -EINVAL;
	*ret_fd = (int)v;
	return 0;
}
