// SPDX-License-Identifier: MIT
/*
 * File helpers: read whole files (sysfs-aware), write files by temp file,
 * fsync and rename, create directory chains.
 */
#include "fileio.h"
#include "macro.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>

int fileio_read_fd(int fd, char **ret_buf, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			char *nb;

			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap);
			if (!nb)
				return -ENOMEM;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

int fileio_read_full(const char *path, char **ret_buf, size_t *ret_len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	return fileio_read_fd(fd, ret_buf, ret_len);
}

int fileio_open_beneath(int dirfd, const char *rel)
{
	char buf[PATH_MAX], *save = NULL, *comp, *next;
	int fd = dirfd, r;
	struct stat st;

	if (snprintf(buf, sizeof(buf), "%s", rel) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	if (buf[0] == '/')
		return -EINVAL;
	comp = strtok_r(buf, "/", &save);
	if (!comp)
		return -EINVAL;
	for (; comp; comp = next) {
		int nfd;

		next = strtok_r(NULL, "/", &save);
		if (streq(comp, ".") || streq(comp, "..")) {
			r = -EINVAL;
			goto fail;
		}
		nfd = openat(fd, comp,
			     next ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
				  : O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		r = nfd < 0 ? -errno : 0;
		if (fd != dirfd)
			close(fd);
		fd = dirfd;
		if (r < 0)
			return r == -ENOTDIR && next ? -ELOOP : r;
		fd = nfd;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		goto fail;
	}
	/* reads block as usual from here on */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		r = -errno;
		goto fail;
	}
	return fd;
fail:
	if (fd != dirfd)
		close(fd);
	return r;
}

static int read_capped(int fd, size_t max, char **ret_buf, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0, cap;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	/* one byte more than the size said, to see a file that grew */
	while (len < cap) {
		ssize_t n = read(fd, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max || len == cap)
		return -EFBIG;
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

int fileio_read_beneath(int dirfd, const char *rel, size_t max, char **ret_buf, size_t *ret_len)
{
	_cleanup_close_ int fd = fileio_open_beneath(dirfd, rel);

	if (fd < 0)
		return fd;
	return read_capped(fd, max, ret_buf, ret_len);
}

int fileio_read_regular(const char *path, size_t max, char **ret_buf, size_t *ret_len)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	_cleanup_close_ int dfd = -1;

	if (slash && slash[1] == '\0')
		return -EINVAL;
	if (snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".") >=
	    (int)sizeof(dir))
		return -ENAMETOOLONG;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	return fileio_read_beneath(dfd, slash ? slash + 1 : path, max, ret_buf, ret_len);
}

char *fileio_strstrip(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int fileio_read_line(const char *path, char **ret_line)
{
	_cleanup_free_ char *buf = NULL;
	char *nl, *s;
	int r;

	r = fileio_read_full(path, &buf, NULL);
	if (r < 0)
		return r;
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	s = fileio_strstrip(buf);
	if (s != buf)
		memmove(buf, s, strlen(s) + 1);
	*ret_line = TAKE_PTR(buf);
	return 0;
}

int fileio_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int fsync_parent_dir(const char *path)
{
	char dir[PATH_MAX];
	_cleanup_close_ int fd = -1;

	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	strcpy(dir, path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		return -errno;
	return 0;
}

/*
 * Write data to path.tmp and rename it over path, flushing the file before
 * the rename (flush_first) or after it. Returns the fd (still open, for a
 * flush after) or -errno.
 */
static int replace_via_tmp(const char *path, const void *data, size_t len, bool flush_first)
{
	char tmp[PATH_MAX];
	int fd, r;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	r = fileio_write_all(fd, data, len);
	if (r == 0 && flush_first && fsync(fd) < 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		close(fd);
		unlink(tmp);
		return r;
	}
	return fd;
}

int fileio_write_atomic(const char *path, const void *data, size_t len)
{
	int fd = replace_via_tmp(path, data, len, true);

	if (fd < 0)
		return fd;
	close(fd);
	return fsync_parent_dir(path);
}

int fileio_write_replace(const char *path, const void *data, size_t len)
{
	_cleanup_close_ int fd = replace_via_tmp(path, data, len, false);

	if (fd < 0)
		return fd;
	return fsync(fd) < 0 ? -errno : 0;
}

int fileio_write_file(const char *path, const void *data, size_t len)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	return fileio_write_all(fd, data, len);
}

int fileio_mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int fileio_mkdir_parent(const char *path)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	return fileio_mkdir_p(dirname(dir));
}

int fileio_parse_u64(const char *s, unsigned long long *ret)
{
	char *end;
	unsigned long long v;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

long fileio_peak_rss_kb(void)
{
	_cleanup_free_ char *status = NULL;
	const char *p;

	if (fileio_read_full("/proc/self/status", &status, NULL) < 0 || !(p = strstr(status, "VmHWM:")))
		return -1;
	return strtol(p + strlen("VmHWM:"), NULL, 10);
}

int fileio_pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

bool fileio_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int fileio_copy(const char *from, const char *to)
{
	char *buf = NULL;
	size_t len;
	int r = fileio_read_regular(from, 64 << 20, &buf, &len);

	if (r < 0)
		return r;
	r = fileio_write_atomic(to, buf, len);
	free(buf);
	return r;
}
