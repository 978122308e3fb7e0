// SPDX-License-Identifier: MIT
/*
 * Path prefixing for /sys, /proc and /dev reads and attribute writes (see sysroot.h).
 */
#include "sysroot.h"
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

static char prefix[PATH_MAX];

int sysroot_set(const char *p)
{
	size_t n;

	if (!p)
		p = "";
	n = strlen(p);
	while (n > 0 && p[n - 1] == '/')
		n--;
	if (n >= sizeof(prefix))
		return -ENAMETOOLONG;
	memcpy(prefix, p, n);
	prefix[n] = '\0';
	return 0;
}

const char *sysroot_get(void)
{
	return prefix;
}

bool sysroot_is_real(void)
{
	return prefix[0] == '\0';
}

static int vpath(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = snprintf(buf, size, "%s", prefix);
	int m;

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	m = vsnprintf(buf + n, size - (size_t)n, fmt, ap);
	if (m < 0 || (size_t)(n + m) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* vpath() of the calling function's own variable arguments, into the array p. */
#define VPATH(p, fmt)                               \
	({                                          \
		va_list ap_;                        \
		int r_;                             \
		va_start(ap_, fmt);                 \
		r_ = vpath(p, sizeof(p), fmt, ap_); \
		va_end(ap_);                        \
		r_;                                 \
	})

int sysroot_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vpath(buf, size, fmt, ap);
	va_end(ap);
	return r;
}

int sysroot_read_line(char **ret, const char *fmt, ...)
{
	char p[PATH_MAX];
	int r = VPATH(p, fmt);

	if (r < 0)
		return r;
	return fileio_read_line(p, ret);
}

int sysroot_read_file(char **ret, size_t *ret_len, const char *fmt, ...)
{
	char p[PATH_MAX];
	int r = VPATH(p, fmt);

	if (r < 0)
		return r;
	return fileio_read_full(p, ret, ret_len);
}

int sysroot_read_u64(unsigned long long *ret, const char *fmt, ...)
{
	char p[PATH_MAX];
	_cleanup_free_ char *line = NULL;
	int r = VPATH(p, fmt);

	if (r < 0)
		return r;
	r = fileio_read_line(p, &line);
	if (r < 0)
		return r;
	return fileio_parse_u64(line, ret);
}

bool sysroot_exists(const char *fmt, ...)
{
	char p[PATH_MAX];
	struct stat st;
	int r = VPATH(p, fmt);

	return r == 0 && stat(p, &st) == 0;
}

int sysroot_write(const char *value, const char *fmt, ...)
{
	char p[PATH_MAX];
	_cleanup_close_ int fd = -1;
	int r = VPATH(p, fmt);

	if (r < 0)
		return r;
	/* an attribute: no creation; truncation is a no-op on sysfs and keeps a test tree's file one value */
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	return fileio_write_all(fd, value, strlen(value));
}
