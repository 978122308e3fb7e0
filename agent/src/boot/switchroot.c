// SPDX-License-Identifier: MIT
/*
 * Switching from the initramfs to the root disk (see switchroot.h).
 */
#include "boot/switchroot.h"
#include "util/macro.h"

#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define NEWROOT "/.fsagent-root"

bool switchroot_on_initramfs(const char *sysroot)
{
	struct statfs st;
	char path[4096];

	snprintf(path, sizeof(path), "%s/", sysroot ? sysroot : "");
	if (statfs(path, &st) < 0)
		return false;
	return st.f_type == RAMFS_MAGIC || st.f_type == TMPFS_MAGIC;
}

DEFINE_CLEANUP(struct blkid_struct_probe, blkid_free_probe)

/* Whether the filesystem on path has tag (LABEL or UUID) = want; *ret_type gets its type. */
static bool probe_matches(const char *path, const char *tag, const char *want, char **ret_type)
{
	_cleanup_(blkid_free_probep) blkid_probe pr = blkid_new_probe_from_filename(path);
	const char *v;

	if (!pr)
		return false;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID);
	if (blkid_do_safeprobe(pr) != 0 || blkid_probe_lookup_value(pr, tag, &v, NULL) != 0 || !streq(v, want))
		return false;
	if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0)
		*ret_type = strdup(v);
	return true;
}

/*
 * The device spec names, or NULL; libblkid's conventions end here. LABEL=
 * and UUID= probe the devices of /proc/partitions in order and stop at the
 * first match (the root disk is usually the first): a probe of every
 * device cost a fifth of a second under TCG. Other specs go to libblkid.
 */
static char *find_device(const char *spec, char **ret_type)
{
	_cleanup_fclose_ FILE *f = NULL;
	blkid_cache cache = NULL;
	const char *eq = strchr(spec, '=');
	char line[256], *dev;

	*ret_type = NULL;
	if (eq && (startswith(spec, "LABEL=") || startswith(spec, "UUID=")) && (f = fopen("/proc/partitions", "re"))) {
		char tag[8];

		snprintf(tag, sizeof(tag), "%.*s", (int)(eq - spec), spec);
		while (fgets(line, sizeof(line), f)) {
			char name[64], path[80];

			if (sscanf(line, " %*u %*u %*u %63s", name) != 1)
				continue;
			snprintf(path, sizeof(path), "/dev/%s", name);
			if (probe_matches(path, tag, eq + 1, ret_type))
				return strdup(path);
		}
		return NULL;
	}
	if (blkid_get_cache(&cache, "/dev/null") < 0)
		return NULL;
	/* no stale cache: probe what is there now */
	blkid_probe_all_new(cache);
	dev = blkid_evaluate_spec(spec, &cache);
	*ret_type = dev ? blkid_get_tag_value(cache, "TYPE", dev) : NULL;
	blkid_put_cache(cache);
	return dev;
}

int switchroot_enter(const char *spec, unsigned timeout_ms, const char *const *mounts, size_t n, char *err, size_t es)
{
	const struct timespec step = { 0, 50 * 1000000 };
	_cleanup_free_ char *dev = NULL, *type = NULL;
	struct stat st;

	for (unsigned waited = 0;; waited += 50) {
		dev = find_device(spec, &type);
		if (dev || waited >= timeout_ms)
			break;
		nanosleep(&step, NULL);
	}
	if (!dev) {
		snprintf(err, es, "root disk '%s' not found after %u ms", spec, timeout_ms);
		return -ENODEV;
	}
	if (mkdir(NEWROOT, 0755) < 0 && errno != EEXIST) {
		snprintf(err, es, "mkdir '%s' failed: %s", NEWROOT, strerror(errno));
		return -errno;
	}
	/* ext4: no inode table zeroing in the background (mke2fs on a file leaves it to the kernel) */
	if (mount(dev, NEWROOT, type ? type : "ext4", MS_NOATIME,
		  !type || streq(type, "ext4") ? "noinit_itable" : NULL) < 0) {
		int e = errno;

		snprintf(err, es, "mount root disk '%s' (%s, %s) failed: %s", dev, spec, type ? type : "ext4?",
			 strerror(e));
		return -e;
	}
	if (stat(NEWROOT SWITCHROOT_INIT, &st) < 0 || !(st.st_mode & S_IXUSR)) {
		snprintf(err, es, "root disk '%s' has no executable %s", dev, SWITCHROOT_INIT);
		umount(NEWROOT);
		return -ENOEXEC;
	}
	/*
	 * The early mounts go along (moving one takes the ones below it), as
	 * switch_root(8) does; where the root disk has no place for one it is
	 * dropped. The next stage finds them mounted.
	 */
	for (size_t i = 0; i < n; i++) {
		char target[4096];
		bool below = false;

		for (size_t k = 0; k < n; k++)
			below |= k != i && strncmp(mounts[i], mounts[k], strlen(mounts[k])) == 0 &&
				 mounts[i][strlen(mounts[k])] == '/';
		if (below)
			continue;
		snprintf(target, sizeof(target), NEWROOT "%s", mounts[i]);
		if (stat(target, &st) < 0 || !S_ISDIR(st.st_mode) || mount(mounts[i], target, NULL, MS_MOVE, NULL) < 0)
			umount2(mounts[i], MNT_DETACH);
	}
	if (chdir(NEWROOT) < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 || chdir("/") < 0) {
		int e = errno;

		snprintf(err, es, "move root disk '%s' over / failed: %s", dev, strerror(e));
		return -e;
	}
	return 0;
}

bool switchroot_same_init(void)
{
	_cleanup_close_ int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	_cleanup_close_ int root = open(SWITCHROOT_INIT, O_RDONLY | O_CLOEXEC);
	char a[4096], b[4096];
	struct stat sa, sb;
	ssize_t na, nb;

	if (self < 0 || root < 0 || fstat(self, &sa) < 0 || fstat(root, &sb) < 0 || sa.st_size != sb.st_size)
		return false;
	na = pread(self, a, sizeof(a), 0);
	nb = pread(root, b, sizeof(b), 0);
	return na > 0 && na == nb && memcmp(a, b, (size_t)na) == 0;
}

int switchroot_exec(char *const *env, char *err, size_t es)
{
	char *const argv[] = { (char *)SWITCHROOT_INIT, NULL };

	execve(SWITCHROOT_INIT, argv, env);
	snprintf(err, es, "exec %s on the root disk failed: %s", SWITCHROOT_INIT, strerror(errno));
	return -errno;
}
