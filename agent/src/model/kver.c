// SPDX-License-Identifier: MIT
/*
 * Kernel version parsing and ordering (see kver.h).
 */
#include "model/kver.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int take_num(const char **p, unsigned *ret)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	v = strtoul(*p, &end, 10);
	if (v > 100000)
		return -EINVAL;
	*ret = (unsigned)v;
	*p = end;
	return 0;
}

int kver_parse(const char *s, struct kver *ret)
{
	struct kver v = { 0 };
	const char *p = s;
	const char *rc;

	if (take_num(&p, &v.major) < 0 || *p++ != '.' || take_num(&p, &v.minor) < 0)
		return -EINVAL;
	if (*p == '.') {
		p++;
		if (take_num(&p, &v.patch) < 0)
			return -EINVAL;
	}
	/* "-rcN" directly after the numbers marks a release candidate */
	rc = p;
	if (strncmp(rc, "-rc", 3) == 0 && isdigit((unsigned char)rc[3])) {
		unsigned n;

		rc += 3;
		if (take_num(&rc, &n) < 0 || n == 0)
			return -EINVAL;
		v.rc = (int)n;
	}
	*ret = v;
	return 0;
}

int kver_cmp(const struct kver *a, const struct kver *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	if (a->rc != b->rc) {
		/* a release (rc 0) is newer than any of its release candidates */
		if (a->rc == 0)
			return 1;
		if (b->rc == 0)
			return -1;
		return a->rc < b->rc ? -1 : 1;
	}
	return 0;
}

static int all_in(const char *s, const char *set, size_t min, size_t max)
{
	size_t n = strlen(s);

	return n >= min && n <= max && strspn(s, set) == n;
}

int kver_commit_ok(const char *s)
{
	return all_in(s, "0123456789abcdef", KVER_COMMIT_LEN, KVER_COMMIT_LEN);
}

int kver_describe_ok(const char *s)
{
	return all_in(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+~-", 1, KVER_DESCRIBE_MAX);
}

int kver_cmdline_value(const char *cmdline, const char *key, int (*check)(const char *), char *buf, size_t size)
{
	size_t klen = strlen(key);

	for (const char *p = cmdline; p && *p;) {
		size_t n;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n > klen && strncmp(p, key, klen) == 0) {
			if (n - klen >= size)
				return -EINVAL;
			memcpy(buf, p + klen, n - klen);
			buf[n - klen] = '\0';
			return check(buf) ? 0 : -EINVAL;
		}
		p += n;
	}
	return -ENOENT;
}
