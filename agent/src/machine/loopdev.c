// SPDX-License-Identifier: MIT
/*
 * Loop devices over sparse files (see loopdev.h).
 */
#include "machine/loopdev.h"
#include "util/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Bind backing to the loop device open as loopfd: LOOP_CONFIGURE, or LOOP_SET_FD on kernels before 5.8. */
static int bind_loop(int loopfd, int backing, const char *file)
{
	struct loop_config cfg;
	struct loop_info64 info;

	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (unsigned)backing;
	snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", file);
	if (ioctl(loopfd, LOOP_CONFIGURE, &cfg) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOTTY)
		return -errno;
	if (ioctl(loopfd, LOOP_SET_FD, backing) < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	snprintf((char *)info.lo_file_name, sizeof(info.lo_file_name), "%s", file);
	if (ioctl(loopfd, LOOP_SET_STATUS64, &info) < 0) {
		int e = errno;

		ioctl(loopfd, LOOP_CLR_FD, 0);
		return -e;
	}
	return 0;
}

int loopdev_attach(const char *file, uint64_t size, char *dev, size_t devsize)
{
	char ctl[PATH_MAX], path[PATH_MAX];
	int backing, ctlfd, r = -EBUSY;

	backing = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (backing < 0)
		return -errno;
	if (ftruncate(backing, 0) < 0 || ftruncate(backing, (off_t)size) < 0) {
		r = -errno;
		close(backing);
		return r;
	}
	r = sysroot_path(ctl, sizeof(ctl), "/dev/loop-control");
	ctlfd = r < 0 ? -1 : open(ctl, O_RDWR | O_CLOEXEC);
	if (ctlfd < 0) {
		r = r < 0 ? r : -errno;
		close(backing);
		return r;
	}
	/* another process may take the free device between asking and binding: ask again */
	for (int tries = 0; tries < 16; tries++) {
		int n = ioctl(ctlfd, LOOP_CTL_GET_FREE), loopfd;
		char name[32];

		if (n < 0) {
			r = -errno;
			break;
		}
		snprintf(name, sizeof(name), "/dev/loop%d", n);
		r = sysroot_path(path, sizeof(path), "%s", name);
		if (r < 0)
			break;
		loopfd = open(path, O_RDWR | O_CLOEXEC);
		if (loopfd < 0) {
			r = -errno;
			break;
		}
		r = bind_loop(loopfd, backing, file);
		close(loopfd);
		if (r == 0) {
			if (snprintf(dev, devsize, "%s", name) >= (int)devsize) {
				loopdev_detach(name);
				r = -ENAMETOOLONG;
			}
			break;
		}
		if (r != -EBUSY)
			break;
	}
	close(ctlfd);
	close(backing);
	return r;
}

int loopdev_detach(const char *dev)
{
	char path[PATH_MAX];
	int fd, r = sysroot_path(path, sizeof(path), "%s", dev);

	if (r < 0)
		return r;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = ioctl(fd, LOOP_CLR_FD, 0) < 0 ? -errno : 0;
	close(fd);
	return r;
}
