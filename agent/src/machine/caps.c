// SPDX-License-Identifier: MIT
/*
 * Capability probing (see caps.h). Every file is read through the sysroot so
 * `fsagent caps --sysroot DIR` replays a tree captured from a real VM.
 */
#include "machine/caps.h"
#include "machine/pmem.h"
#include "machine/kconfig.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/sysroot.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <string.h>
#include <sys/utsname.h>

/* Options that decide what a filesystem test run can do or will report. */
static const char *const kconfig_keys[] = {
	"CONFIG_LOCKDEP",
	"CONFIG_PROVE_LOCKING",
	"CONFIG_DEBUG_LOCKDEP",
	"CONFIG_KASAN",
	"CONFIG_KCSAN",
	"CONFIG_UBSAN",
	"CONFIG_KFENCE",
	"CONFIG_DEBUG_KMEMLEAK",
	"CONFIG_GCOV_KERNEL",
	"CONFIG_GCOV_PROFILE_ALL",
	"CONFIG_FS_DAX",
	"CONFIG_XFS_FS",
	"CONFIG_XFS_ONLINE_SCRUB",
	"CONFIG_XFS_ONLINE_REPAIR",
	"CONFIG_XFS_RT",
	"CONFIG_XFS_DEBUG",
	"CONFIG_XFS_QUOTA",
	"CONFIG_EXT4_FS",
	"CONFIG_BTRFS_FS",
	"CONFIG_F2FS_FS",
	"CONFIG_F2FS_FS_COMPRESSION",
	"CONFIG_EXT4_USE_FOR_EXT2",
	"CONFIG_EXT2_FS",
	"CONFIG_EXFAT_FS",
	"CONFIG_VFAT_FS",
	"CONFIG_UDF_FS",
	"CONFIG_TMPFS",
	"CONFIG_TMPFS_XATTR",
	"CONFIG_TMPFS_POSIX_ACL",
	"CONFIG_TRANSPARENT_HUGEPAGE",
	"CONFIG_NFSD",
	"CONFIG_NFSD_V4",
	"CONFIG_NFS_FS",
	"CONFIG_NFS_V3",
	"CONFIG_NFS_V4_1",
	"CONFIG_NFS_V4_2",
	"CONFIG_CIFS",
	"CONFIG_SMB_SERVER",
	"CONFIG_BLK_DEV_ZONED",
	"CONFIG_BLK_DEV_DM",
	"CONFIG_DM_FLAKEY",
	"CONFIG_DM_LOG_WRITES",
	"CONFIG_DM_THIN_PROVISIONING",
	"CONFIG_FS_ENCRYPTION",
	"CONFIG_CRYPTO_XTS",
	"CONFIG_CRYPTO_CTS",
	"CONFIG_OVERLAY_FS",
	"CONFIG_BLK_DEV_NVME",
	"CONFIG_FS_VERITY",
	"CONFIG_QUOTA",
	"CONFIG_MAGIC_SYSRQ",
	"CONFIG_DEBUG_FS",
	"CONFIG_DETECT_HUNG_TASK",
	"CONFIG_SOFTLOCKUP_DETECTOR",
	"CONFIG_PSTORE",
	"CONFIG_PSTORE_RAM",
	"CONFIG_LIBNVDIMM",
	"CONFIG_BLK_DEV_PMEM",
	"CONFIG_BLK_DEV_LOOP",
	"CONFIG_SCSI_DEBUG",
	"CONFIG_LKDTM",
	"CONFIG_MODULE_COMPRESS_XZ",
	"CONFIG_MODULE_COMPRESS_ZSTD",
	"CONFIG_IKCONFIG_PROC",
};

/* Filesystems whose availability a run may ask about. */
static const char *const fs_names[] = { "xfs", "ext4",	"ext2", "ext3",	 "btrfs", "f2fs", "tmpfs", "overlay",
					"udf", "exfat", "vfat", "ocfs2", "gfs2",  "nfs",  "cifs",  "fuse" };

int caps_count_cpu_list(const char *s)
{
	int count = 0;

	while (*s && !isspace((unsigned char)*s)) {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -EINVAL;
		}
		count += (int)(b - a + 1);
		s = end;
		if (*s == ',')
			s++;
		else if (*s && !isspace((unsigned char)*s))
			return -EINVAL;
	}
	return count > 0 ? count : -EINVAL;
}

long long caps_meminfo_kb(const char *buf, const char *field)
{
	size_t n = strlen(field);

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, field, n) == 0 && p[n] == ':')
			return strtoll(p + n + 1, NULL, 10);
	return -ENOENT;
}

void caps_taint_letters(unsigned long long taint, char *buf)
{
	/* kernel/panic.c taint_flags[], bit order */
	static const char letters[] = "PFSRMBUDAWCIOELKXTN";
	size_t n = 0;

	for (size_t i = 0; i < sizeof(letters) - 1; i++)
		if (taint & (1ULL << i))
			buf[n++] = letters[i];
	if (n == 0)
		buf[n++] = 'G';
	buf[n] = '\0';
}

int caps_lockdep_debug_locks(const char *buf)
{
	const char *p = strstr(buf, "debug_locks:");

	if (!p)
		return -ENOENT;
	return strtol(p + strlen("debug_locks:"), NULL, 10) != 0;
}

static json_t *collect_kconfig(const char *release, struct caps *c)
{
	_cleanup_free_ char *buf = NULL;
	const char *source = NULL;
	json_t *opts, *j;

	if (kconfig_read(release, &buf, &source) < 0)
		return json_pack("{s:n, s:{}}", "source", "options");
	opts = json_object();
	for (size_t i = 0; i < ARRAY_SIZE(kconfig_keys); i++) {
		const char *v;

		if (kconfig_get(buf, kconfig_keys[i], &v))
			json_object_set_new(opts, kconfig_keys[i] + strlen("CONFIG_"), json_string(v));
		else
			json_object_set_new(opts, kconfig_keys[i] + strlen("CONFIG_"), json_null());
	}
	c->lockdep_configured = json_is_string(json_object_get(opts, "PROVE_LOCKING")) ||
				json_is_string(json_object_get(opts, "LOCKDEP"));
	j = json_pack("{s:s, s:o}", "source", source, "options", opts);
	return j;
}

bool caps_kconfig_collected(const char *option)
{
	for (size_t i = 0; i < ARRAY_SIZE(kconfig_keys); i++)
		if (streq(kconfig_keys[i] + strlen("CONFIG_"), option))
			return true;
	return false;
}

json_t *caps_filesystems_json(struct modules *mods)
{
	_cleanup_free_ char *reg = NULL;
	json_t *a = json_array();

	sysroot_read_file(&reg, NULL, "/proc/filesystems");
	for (size_t i = 0; i < ARRAY_SIZE(fs_names); i++) {
		const char *name = fs_names[i], *how = NULL;
		char needle[64];

		snprintf(needle, sizeof(needle), "\t%s\n", name);
		if (reg && strstr(reg, needle))
			how = "registered";
		else if (mods) {
			enum module_avail av = modules_available(mods, name);

			if (av == MODULE_AVAIL_LOADABLE)
				how = "module";
			else if (av == MODULE_AVAIL_BUILTIN)
				how = "builtin";
		}
		if (how)
			json_array_append_new(a, json_pack("{s:s, s:s}", "name", name, "source", how));
	}
	return a;
}

/* nvdimm namespaces: /sys/bus/nd/devices/namespaceX.Y */
static json_t *collect_pmem(void)
{
	char path[PATH_MAX];
	json_t *a = json_array();
	DIR *d;
	struct dirent *de;

	if (sysroot_path(path, sizeof(path), "/sys/bus/nd/devices") < 0 || !(d = opendir(path)))
		return a;
	while ((de = readdir(d))) {
		_cleanup_free_ char *mode = NULL;
		unsigned long long size = 0, dax = 0;
		char bname[NAME_MAX];
		const char *blk = NULL;
		json_t *j;

		if (!startswith(de->d_name, "namespace"))
			continue;
		sysroot_read_line(&mode, "/sys/bus/nd/devices/%s/mode", de->d_name);
		sysroot_read_u64(&size, "/sys/bus/nd/devices/%s/size", de->d_name);
		if (size == 0)
			continue; /* an unconfigured seed namespace */
		if (pmem_block_of(de->d_name, bname, sizeof(bname)) == 0) {
			blk = bname;
			sysroot_read_u64(&dax, "/sys/block/%s/queue/dax", blk);
		}
		j = json_pack("{s:s, s:s?, s:I, s:s?, s:b}", "name", de->d_name, "mode", mode, "size", (json_int_t)size,
			      "blockdev", blk, "dax", dax != 0);
		json_array_append_new(a, j);
	}
	closedir(d);
	return a;
}

static json_t *collect_kernel(struct caps *c)
{
	_cleanup_free_ char *version = NULL, *cmdline = NULL;
	json_t *j;

	sysroot_read_line(&version, "/proc/version");
	sysroot_read_line(&cmdline, "/proc/cmdline");
	c->version_ok = kver_parse(c->release, &c->version) == 0;
	j = json_pack("{s:s, s:s?, s:s?}", "release", c->release, "version", version, "cmdline", cmdline);
	/* built from a commit: the launcher says which (scripts/build-kernel --commit) */
	if (j && cmdline) {
		char commit[KVER_COMMIT_LEN + 1], describe[KVER_DESCRIBE_MAX + 1];

		if (kver_cmdline_value(cmdline, "fsagent.commit=", kver_commit_ok, commit, sizeof(commit)) == 0)
			json_object_set_new(j, "git", json_pack("{s:s}", "commit", commit));
		if (json_object_get(j, "git") &&
		    kver_cmdline_value(cmdline, "fsagent.describe=", kver_describe_ok, describe, sizeof(describe)) == 0)
			json_object_set_new(json_object_get(j, "git"), "describe", json_string(describe));
	}
	if (c->version_ok)
		json_object_set_new(j, "parsed",
				    json_pack("{s:i, s:i, s:i, s:i}", "major", c->version.major, "minor",
					      c->version.minor, "patch", c->version.patch, "rc", c->version.rc));
	return j;
}

static json_t *collect_machine(void)
{
	_cleanup_free_ char *online = NULL, *meminfo = NULL, *arch = NULL;
	struct utsname u;
	json_t *j = json_object();
	int ncpu;

	if (sysroot_read_line(&arch, "/proc/sys/kernel/arch") < 0 && sysroot_is_real() && uname(&u) == 0)
		arch = strdup(u.machine);
	json_object_set_new(j, "arch", arch ? json_string(arch) : json_null());
	if (sysroot_read_line(&online, "/sys/devices/system/cpu/online") == 0 &&
	    (ncpu = caps_count_cpu_list(online)) > 0)
		json_object_set_new(j, "cpus", json_integer(ncpu));
	if (sysroot_read_file(&meminfo, NULL, "/proc/meminfo") == 0) {
		long long kb = caps_meminfo_kb(meminfo, "MemTotal");

		if (kb >= 0)
			json_object_set_new(j, "mem_total_kb", json_integer(kb));
	}
	return j;
}

static json_t *collect_lockdep_gcov(struct caps *c, json_t **ret_gcov)
{
	_cleanup_free_ char *stats = NULL;
	int live = -ENOENT;

	if (sysroot_read_file(&stats, NULL, "/proc/lockdep_stats") == 0)
		live = caps_lockdep_debug_locks(stats);
	c->lockdep_live = live == 1;
	*ret_gcov = json_pack("{s:b, s:b}", "debugfs_gcov", sysroot_exists("/sys/kernel/debug/gcov"), "reset_writable",
			      sysroot_exists("/sys/kernel/debug/gcov/reset"));
	/* live is judged by debug_locks: lockdep clears it when it turns itself off */
	return json_pack("{s:b, s:b, s:b}", "configured", c->lockdep_configured, "stats_present", live >= 0, "live",
			 c->lockdep_live);
}

int caps_collect(struct modules *mods, struct caps *ret, json_t **ret_json)
{
	_cleanup_free_ char *rel = NULL, *taint = NULL;
	struct caps c = { 0 };
	json_t *j, *gcov, *lockdep;
	char letters[32];
	int r;

	r = sysroot_read_line(&rel, "/proc/sys/kernel/osrelease");
	if (r < 0)
		return r;
	snprintf(c.release, sizeof(c.release), "%s", rel);
	if (sysroot_read_line(&taint, "/proc/sys/kernel/tainted") == 0)
		c.taint = strtoull(taint, NULL, 10);
	caps_taint_letters(c.taint, letters);

	j = json_object();
	if (!j)
		return -ENOMEM;
	json_object_set_new(j, "kernel", collect_kernel(&c));
	json_object_set_new(j, "kconfig", collect_kconfig(c.release, &c));
	lockdep = collect_lockdep_gcov(&c, &gcov);
	json_object_set_new(j, "lockdep", lockdep);
	json_object_set_new(j, "gcov", gcov);
	json_object_set_new(j, "machine", collect_machine());
	json_object_set_new(j, "filesystems", caps_filesystems_json(mods));
	json_object_set_new(j, "pmem", collect_pmem());
	json_object_set_new(j, "taint", json_pack("{s:I, s:s}", "value", (json_int_t)c.taint, "flags", letters));
	*ret = c;
	*ret_json = j;
	return 0;
}
