// SPDX-License-Identifier: MIT
/*
 * udev for the run (see udev.h).
 */
#include "boot/udev.h"
#include "util/proc.h"
#include "util/macro.h"
#include "util/sysroot.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* the events udevd broadcasts after processing (the kernel's are group 1) */
#define MONITOR_GROUP_UDEV 2
#define UDEV_MONITOR_MAGIC 0xfeedcafeU
#define MAX_TRIGGERED 256

/* systemd's monitor_netlink_header (sd-device/device-monitor.c) */
struct monitor_header {
	char prefix[8]; /* "libudev" */
	unsigned magic; /* network order */
	unsigned header_size, properties_off, properties_len;
	unsigned filter_subsystem_hash, filter_devtype_hash, filter_tag_bloom_hi, filter_tag_bloom_lo;
};

struct report {
	int error; /* 0, -errno, or -ECHILD with the step in what */
	int step;  /* index in step_names */
	long settled_ms;
};

static const char *const step_names[] = { "udevd --daemon", "uevent trigger", "waiting for udevd" };

static long boottime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *udev_find_daemon(void)
{
	static const char *const paths[] = { "/lib/systemd/systemd-udevd", "/usr/lib/systemd/systemd-udevd" };

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

const char *udev_event_uuid(const char *buf, size_t len)
{
	struct monitor_header h;
	const char *p, *end;

	if (len < sizeof(h))
		return NULL;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.prefix, "libudev", 8) != 0 || ntohl(h.magic) != UDEV_MONITOR_MAGIC ||
	    h.properties_off < sizeof(h) || h.properties_off > len || h.properties_len > len - h.properties_off)
		return NULL;
	end = buf + h.properties_off + h.properties_len;
	for (p = buf + h.properties_off; p < end; p += strnlen(p, (size_t)(end - p)) + 1) {
		size_t n = strnlen(p, (size_t)(end - p));

		if (n == (size_t)(end - p))
			return NULL; /* unterminated */
		if (startswith(p, "SYNTH_UUID="))
			return p + strlen("SYNTH_UUID=");
	}
	return NULL;
}

/* A version 4 UUID; without entropy yet, one unique to this boot is enough. */
static void make_uuid(char out[37])
{
	static unsigned counter;
	unsigned char b[16];
	struct timespec ts;

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != sizeof(b)) {
		unsigned long long ns;

		clock_gettime(CLOCK_BOOTTIME, &ts);
		ns = (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
		memset(b, 0, sizeof(b));
		memcpy(b, &ns, sizeof(ns));
		memcpy(b + 12, &counter, sizeof(counter));
	}
	counter++;
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
		 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

int udev_trigger_block(char (*uuids)[37], size_t max, size_t *n)
{
	char dir[4096];
	DIR *d;
	struct dirent *de;
	int r = 0;

	*n = 0;
	if (sysroot_path(dir, sizeof(dir), "/sys/class/block") < 0)
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && *n < max) {
		char path[4096], msg[48];
		int fd;

		if (de->d_name[0] == '.' ||
		    sysroot_path(path, sizeof(path), "/sys/class/block/%s/uevent", de->d_name) < 0)
			continue;
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno != ENOENT && errno != ENODEV)
				r = -errno;
			continue;
		}
		make_uuid(uuids[*n]);
		snprintf(msg, sizeof(msg), "add %s", uuids[*n]);
		if (write(fd, msg, strlen(msg)) == (ssize_t)strlen(msg))
			(*n)++;
		else if (errno != ENOENT && errno != ENODEV)
			r = -errno;
		close(fd);
	}
	closedir(d);
	return r;
}

static int monitor_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = MONITOR_GROUP_UDEV };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* Wait until udevd has broadcast every one of uuids[0..n). Returns 0 or -errno. */
static int wait_processed(int mon, char (*uuids)[37], size_t n, unsigned timeout_ms)
{
	long deadline = boottime_ms() + timeout_ms;
	size_t left = n;
	bool *seen = calloc(n ? n : 1, sizeof(bool));

	if (!seen)
		return -ENOMEM;
	while (left > 0) {
		struct pollfd pfd = { .fd = mon, .events = POLLIN };
		struct sockaddr_nl from;
		struct iovec iov;
		struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1 };
		char buf[8192];
		const char *uuid;
		long now = boottime_ms();
		ssize_t len;

		if (now >= deadline) {
			free(seen);
			return -ETIMEDOUT;
		}
		if (poll(&pfd, 1, (int)(deadline - now)) < 0 && errno != EINTR) {
			free(seen);
			return -errno;
		}
		iov = (struct iovec){ buf, sizeof(buf) - 1 };
		while ((len = recvmsg(mon, &mh, 0)) > 0) {
			buf[len] = '\0';
			/* from user space (udevd), not the kernel */
			if (from.nl_pid != 0 && (uuid = udev_event_uuid(buf, (size_t)len)))
				for (size_t i = 0; i < n; i++)
					if (!seen[i] && streq(uuid, uuids[i])) {
						seen[i] = true;
						left--;
					}
			mh.msg_namelen = sizeof(from);
		}
		if (len < 0 && errno != EAGAIN && errno != EINTR && errno != ENOBUFS) {
			free(seen);
			return -errno;
		}
	}
	free(seen);
	return 0;
}

/* The helper's work: a report of the first failed step, or when it settled. */
static struct report helper(const char *udevd, unsigned timeout_ms)
{
	const char *const daemon[] = { udevd, "--daemon", NULL };
	char(*uuids)[37] = calloc(MAX_TRIGGERED, 37);
	struct report rep = { 0, 0, 0 };
	size_t n = 0;
	int st = 0, mon = -1;

	if (!uuids)
		return (struct report){ -ENOMEM, 0, 0 };
	rep.error = proc_run(daemon, (int)timeout_ms, &st);
	if (rep.error == 0 && st != 0)
		rep.error = -ECHILD;
	if (rep.error == 0) {
		rep.step = 1;
		mon = monitor_open();
		rep.error = mon < 0 ? mon : udev_trigger_block(uuids, MAX_TRIGGERED, &n);
	}
	if (rep.error == 0) {
		rep.step = 2;
		rep.error = wait_processed(mon, uuids, n, timeout_ms);
	}
	if (mon >= 0)
		close(mon);
	free(uuids);
	rep.settled_ms = boottime_ms();
	return rep;
}

int udev_begin(const char *udevd, unsigned timeout_ms, bool inherit, int *ret_fd)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	if (pid == 0) {
		struct report rep;

		close(fds[0]);
		rep = helper(udevd, timeout_ms);
		_exit(write(fds[1], &rep, sizeof(rep)) == sizeof(rep) ? 0 : 1);
	}
	close(fds[1]);
	if (inherit && fcntl(fds[0], F_SETFD, 0) < 0) {
		int e = errno;

		close(fds[0]);
		return -e;
	}
	*ret_fd = fds[0];
	return 0;
}

int udev_end(int fd, long *ret_settled_ms, const char **what)
{
	struct report rep;
	ssize_t n;

	do
		n = read(fd, &rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	close(fd);
	*what = "no report";
	if (n != sizeof(rep))
		return -EPROTO;
	*what = step_names[rep.step >= 0 && (size_t)rep.step < ARRAY_SIZE(step_names) ? rep.step : 0];
	if (rep.error < 0)
		return rep.error;
	*ret_settled_ms = rep.settled_ms;
	return 0;
}
