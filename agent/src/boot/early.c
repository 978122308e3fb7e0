// SPDX-License-Identifier: MIT
/* Early user space (see early.h). */
#include "boot/early.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct early_mount {
	const char *fstype, *target;
	unsigned long flags;
	const char *data;
};

static const struct early_mount early_mounts[] = {
	{ "proc", "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "sysfs", "/sys", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "devtmpfs", "/dev", MS_NOSUID, "mode=0755" },
	{ "devpts", "/dev/pts", MS_NOSUID | MS_NOEXEC, "gid=5,mode=620,ptmxmode=000" },
	{ "tmpfs", "/dev/shm", MS_NOSUID | MS_NODEV, "mode=1777" },
	{ "tmpfs", "/run", MS_NOSUID | MS_NODEV, "mode=0755" },
	{ "tmpfs", "/tmp", MS_NOSUID | MS_NODEV, "mode=1777" },
	{ "debugfs", "/sys/kernel/debug", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "tracefs", "/sys/kernel/tracing", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "configfs", "/sys/kernel/config", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "cgroup2", "/sys/fs/cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC, "nsdelegate" },
	/* what a crashed kernel left in ramoops: read when a run resumes */
	{ "pstore", "/sys/fs/pstore", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
};

static bool fs_in_kernel(const char *fstype)
{
	_cleanup_free_ char *fs = NULL;
	char needle[64];

	if (fileio_read_full("/proc/filesystems", &fs, NULL) < 0)
		return true; /* cannot tell before /proc is up: try */
	snprintf(needle, sizeof(needle), "\t%s\n", fstype);
	return strstr(fs, needle) != NULL;
}

/* Whether path is a mount point (its device differs from its parent's). */
static bool is_mount_point(const char *path)
{
	char parent[PATH_MAX];
	struct stat a, b;

	snprintf(parent, sizeof(parent), "%s/..", path);
	return stat(path, &a) == 0 && stat(parent, &b) == 0 && a.st_dev != b.st_dev;
}

json_t *early_mount_all(void)
{
	json_t *mounts = json_array();

	for (size_t i = 0; i < ARRAY_SIZE(early_mounts); i++) {
		const struct early_mount *m = &early_mounts[i];
		const char *status = "mounted";
		int e = 0;

		if (!fs_in_kernel(m->fstype)) {
			status = "skipped: not in kernel";
		} else if (is_mount_point(m->target)) {
			/* brought along from fsagent's initramfs */
			status = "already mounted";
		} else {
			fileio_mkdir_p(m->target);
			if (mount(m->fstype, m->target, m->fstype, m->flags, m->data) < 0) {
				e = errno;
				status = e == EBUSY ? "already mounted" : "failed";
			}
		}
		if (e && e != EBUSY)
			log_warn("mount '%s' on '%s' failed: %s, ignoring", m->fstype, m->target, strerror(e));
		json_array_append_new(mounts, json_pack("{s:s, s:s, s:s}", "target", m->target, "fstype", m->fstype,
							"status", status));
	}
	return mounts;
}

size_t early_mount_targets(const char **targets, size_t max)
{
	size_t n = 0;

	for (; n < ARRAY_SIZE(early_mounts) && n < max; n++)
		targets[n] = early_mounts[n].target;
	return n;
}

/*
 * Without /dev/console in the initramfs the kernel starts us with fds 0-2
 * closed, so this runs before anything else opens a file: the console then
 * lands on fd 0 and is copied to 1 and 2, never over a descriptor in use.
 */
int early_console(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno; /* keep whatever the kernel gave us */
	/* children inherit 0-2 on the console; our own copy stays close-on-exec */
	for (int i = 0; i <= 2; i++)
		if (fd != i)
			dup2(fd, i);
	log_setup(fd, LOG_LVL_INFO);
	return fd;
}

void early_environment(void)
{
	clearenv();
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("HOME", "/root", 1);
	setenv("LANG", "C.UTF-8", 1);
	setenv("TERM", "linux", 1);
	setenv("SHELL", "/bin/sh", 1);
	setenv("USER", "root", 1);
	umask(022);
	if (chdir("/") < 0) {
		/* / always exists */
	}
}

int early_mtab(void)
{
	fileio_mkdir_p("/etc");
	if (symlink("/proc/self/mounts", "/etc/mtab") < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int early_loopback_up(void)
{
	_cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = { 0 };

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		return -errno;
	return 0;
}
