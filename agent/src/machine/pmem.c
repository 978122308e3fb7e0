// SPDX-License-Identifier: MIT
/*
 * fsdax namespaces made through sysfs (see pmem.h).
 */
#include "machine/pmem.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/sysroot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ND "/sys/bus/nd/devices"
#define BLANK_BYTES (1024 * 1024)

/* The first entry of a sysroot directory, or -ENOENT. */
static int first_entry(char *buf, size_t size, const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = -ENOENT;

	if (sysroot_path(path, sizeof(path), "%s", dir) < 0 || !(d = opendir(path)))
		return -ENOENT;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(buf, size, "%s", de->d_name);
			r = 0;
			break;
		}
	closedir(d);
	return r;
}

int pmem_block_of(const char *ns, char *buf, size_t size)
{
	_cleanup_free_ char *holder = NULL;
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), ND "/%s/block", ns);
	if (first_entry(buf, size, dir) == 0)
		return 0;
	/* claimed by a pfn (fsdax) or btt: the block device is the holder's */
	if (sysroot_read_line(&holder, ND "/%s/holder", ns) < 0 || !holder[0] || strchr(holder, '/'))
		return -ENOENT;
	snprintf(dir, sizeof(dir), ND "/%s/block", holder);
	return first_entry(buf, size, dir);
}

/* Whether /dev/<blk> reads zero over its first MiB (or all of it, when smaller). */
static bool is_blank(const char *blk)
{
	char path[PATH_MAX];
	static char buf[64 * 1024];
	size_t total = 0;
	int fd;

	if (sysroot_path(path, sizeof(path), "/dev/%s", blk) < 0)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	while (total < BLANK_BYTES) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i]) {
				close(fd);
				return false;
			}
		total += (size_t)n;
	}
	close(fd);
	return total > 0;
}

/* Make namespace ns (of region "region<R>") fsdax. Returns 0 or -errno. */
static int make_fsdax(const char *ns, const char *blk)
{
	_cleanup_free_ char *pfn = NULL, *uuid = NULL;
	char region[NAME_MAX];
	const char *dot = strchr(ns, '.');
	int r;

	if (!dot)
		return -EINVAL;
	snprintf(region, sizeof(region), "region%.*s", (int)(dot - ns - strlen("namespace")), ns + strlen("namespace"));
	r = sysroot_read_line(&pfn, ND "/%s/pfn_seed", region);
	if (r < 0)
		return r;
	if (!pfn[0] || strchr(pfn, '/'))
		return -ENODEV;
	r = sysroot_read_line(&uuid, "/proc/sys/kernel/random/uuid");
	if (r < 0)
		return r;
	r = sysroot_write(ns, "/sys/bus/nd/drivers/nd_pmem/unbind");
	if (r < 0)
		return r;
	r = sysroot_write(uuid, ND "/%s/uuid", pfn);
	if (r == 0)
		r = sysroot_write("pmem", ND "/%s/mode", pfn);
	if (r == 0)
		r = sysroot_write(ns, ND "/%s/namespace", pfn);
	if (r == 0)
		r = sysroot_write(pfn, "/sys/bus/nd/drivers/nd_pmem/bind");
	if (r < 0) {
		/* give the raw device back rather than leave it unbound */
		sysroot_write(ns, "/sys/bus/nd/drivers/nd_pmem/bind");
		return r;
	}
	log_info("pmem: %s (/dev/%s) made fsdax through %s", ns, blk, pfn);
	return 0;
}

int pmem_make_fsdax(void)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int made = 0, r = 0;

	if (sysroot_path(path, sizeof(path), ND) < 0 || !(d = opendir(path)))
		return 0;
	while (r == 0 && (de = readdir(d))) {
		_cleanup_free_ char *mode = NULL;
		unsigned long long size = 0, dax = 0;
		char blk[NAME_MAX];

		if (!startswith(de->d_name, "namespace") || sysroot_read_line(&mode, ND "/%s/mode", de->d_name) < 0 ||
		    !streq(mode, "raw") || sysroot_read_u64(&size, ND "/%s/size", de->d_name) < 0 || size == 0 ||
		    pmem_block_of(de->d_name, blk, sizeof(blk)) < 0)
			continue;
		if (sysroot_read_u64(&dax, "/sys/block/%s/queue/dax", blk) == 0 && dax)
			continue;
		if (!is_blank(blk)) {
			log_warn("pmem: %s (/dev/%s) holds data: left raw, without DAX", de->d_name, blk);
			continue;
		}
		r = make_fsdax(de->d_name, blk);
		if (r < 0)
			log_err("pmem: making %s (/dev/%s) fsdax failed: %s", de->d_name, blk, strerror(-r));
		else
			made++;
	}
	closedir(d);
	return r < 0 ? r : made;
}
