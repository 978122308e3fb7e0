// SPDX-License-Identifier: MIT
/*
 * Loopback NFS and SMB servers for the nfs and cifs configs (see loopback.h).
 */
#include "boot/loopback.h"
#include "machine/mkfs.h"
#include "machine/modules.h"
#include "machine/mount.h"
#include "run/supervise.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define READY_MS 60000 /* a daemon's time to answer, under software emulation too */

struct loopback {
	struct supervisor *sup;
	bool mounted[2]; /* /export/test, /export/scratch */
};

/* the NFS server's commands; rpcinfo asks rpcbind over TCP whether a program (by number) answers */
static const char *const rpcbind_argv[] = { "rpcbind", "-f", NULL };
static const char *const rpcbind_ready[] = { "rpcinfo", "-p", NULL };
static const char *const statd_argv[] = { "rpc.statd", "-F", "--no-notify", NULL };
static const char *const statd_ready[] = { "rpcinfo", "-t", "localhost", "100024", NULL };
static const char *const exportfs_argv[] = { "exportfs", "-ra", NULL };
static const char *const exportfs_undo[] = { "exportfs", "-ua", NULL };
static const char *const mountd_argv[] = { "rpc.mountd", "-F", NULL };
static const char *const mountd_ready[] = { "rpcinfo", "-t", "localhost", "100005", NULL };
/* the kernel's server threads; the grace period in which NFSv4 clients reclaim state, shortened */
static const char *const nfsd_argv[] = { "rpc.nfsd", "--grace-time", "10", "8", NULL };
static const char *const nfsd_undo[] = { "rpc.nfsd", "0", NULL };

static const struct daemon_spec nfs_v3[] = {
	{ "rpcbind", rpcbind_argv, rpcbind_ready, false, NULL },
	/* NSM: NFSv3's locks (lockd is the kernel's) */
	{ "rpc.statd", statd_argv, statd_ready, false, NULL },
	{ "exportfs", exportfs_argv, NULL, true, exportfs_undo },
	{ "rpc.mountd", mountd_argv, mountd_ready, false, NULL },
	{ "rpc.nfsd", nfsd_argv, NULL, true, nfsd_undo },
};

/* NFSv4 alone: the same without rpc.statd */
static const struct daemon_spec nfs_v4[] = {
	{ "rpcbind", rpcbind_argv, rpcbind_ready, false, NULL },
	{ "exportfs", exportfs_argv, NULL, true, exportfs_undo },
	{ "rpc.mountd", mountd_argv, mountd_ready, false, NULL },
	{ "rpc.nfsd", nfsd_argv, NULL, true, nfsd_undo },
};

/* Samba's: it answers once it listens on 445 (0x1BD) */
static const char *const smbd_argv[] = { "smbd", "--foreground", "--no-process-group", "--debug-stdout", NULL };
static const char *const smbd_ready[] = { "/bin/sh", "-c",
					  "grep -q ':01BD 0\\{8,32\\}:0000 0A' /proc/net/tcp /proc/net/tcp6", NULL };

static const struct daemon_spec smb[] = {
	{ "smbd", smbd_argv, smbd_ready, false, NULL },
};

static const char *const exports[] = { CATALOG_EXPORT_TEST, CATALOG_EXPORT_SCRATCH };

/* Whether c's client mounts NFSv3 (its options say vers=3 or nfsvers=3). */
static bool nfs_v3_wanted(const struct fs_config *c)
{
	const char *m = c->mount ? c->mount : "";

	return strstr(m, "vers=3") != NULL;
}

static int load_module(const char *name, char *why, size_t ws)
{
	int r = modules_load_now(name);

	if (r < 0)
		snprintf(why, ws, "kernel module %s: %s", name, r == -ENOENT ? "not in this kernel" : strerror(-r));
	return r;
}

static int write_file(const char *path, const char *text, char *why, size_t ws)
{
	int r = fileio_mkdir_parent(path);

	if (r == 0)
		r = fileio_write_atomic(path, text, strlen(text));
	if (r < 0)
		snprintf(why, ws, "write '%s' failed: %s", path, strerror(-r));
	return r;
}

static int nfs_setup(const struct fs_config *c, char *why, size_t ws)
{
	static const char *const dirs[] = { "/var/lib/nfs/sm", "/var/lib/nfs/sm.bak", "/var/lib/nfs/v4recovery",
					    "/run/rpcbind" };
	_cleanup_free_ char *text = NULL;
	int r;

	if (asprintf(&text,
		     "# written by fsagent for config %s: the guest's own client mounts these\n"
		     "%s\t*(rw,sync,insecure,no_root_squash,no_subtree_check)\n"
		     "%s\t*(rw,sync,insecure,no_root_squash,no_subtree_check)\n",
		     c->name, exports[0], exports[1]) < 0)
		return -ENOMEM;
	r = write_file("/etc/exports", text, why, ws);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(dirs); i++)
		r = fileio_mkdir_p(dirs[i]);
	/* the server and the client, by name (built in: their filesystems say so): a missing one is named here */
	if (r == 0)
		r = load_module("nfsd", why, ws);
	if (r == 0)
		r = load_module("nfs", why, ws);
	if (r < 0)
		return r;
	/* exportfs and rpc.mountd talk to nfsd through its filesystem */
	r = mount_device("nfsd", "/proc/fs/nfsd", "nfsd", NULL);
	if (r < 0 && r != -EBUSY) {
		snprintf(why, ws, "mount nfsd on /proc/fs/nfsd failed: %s", strerror(-r));
		return r;
	}
	return 0;
}

static int smb_setup(const struct fs_config *c, const char *logdir, char *why, size_t ws)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[12];
	char pw[2 * sizeof(raw) + 1], log[PATH_MAX], script[128];
	_cleanup_free_ char *conf = NULL, *cred = NULL;
	int r, fd, st = 0;

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return -errno;
	for (size_t i = 0; i < sizeof(raw); i++) {
		pw[2 * i] = hex[raw[i] >> 4];
		pw[2 * i + 1] = hex[raw[i] & 15];
	}
	pw[sizeof(pw) - 1] = '\0';
	/* a standalone server of two shares to the guest itself: no NetBIOS, printers or guest access */
	if (asprintf(&conf,
		     "# written by fsagent for config %s: the guest's own client mounts these\n"
		     "[global]\n\tserver role = standalone server\n\tmap to guest = never\n"
		     "\tsmb ports = 445\n\tdisable netbios = yes\n\tload printers = no\n"
		     "\tprinting = bsd\n\tprintcap name = /dev/null\n\tdisable spoolss = yes\n"
		     "[test]\n\tpath = %s\n\tread only = no\n"
		     "[scratch]\n\tpath = %s\n\tread only = no\n",
		     c->name, exports[0], exports[1]) < 0 ||
	    asprintf(&cred, "username=root\npassword=%s\n", pw) < 0)
		return -ENOMEM;
	r = load_module("cifs", why, ws);
	if (r == 0)
		r = write_file("/etc/samba/smb.conf", conf, why, ws);
	if (r == 0)
		r = write_file(CATALOG_SMB_CREDENTIALS, cred, why, ws);
	/* a password: root's alone, as mount.cifs(8) asks */
	if (r == 0 && chmod(CATALOG_SMB_CREDENTIALS, 0600) < 0) {
		r = -errno;
		snprintf(why, ws, "chmod '%s' failed: %s", CATALOG_SMB_CREDENTIALS, strerror(-r));
	}
	for (size_t i = 0; r == 0 && i < 3; i++)
		r = fileio_mkdir_p((const char *[]){ "/var/lib/samba/private", "/run/samba", "/var/log/samba" }[i]);
	if (r < 0)
		return r;
	/* root's SMB password, made again each boot (smbpasswd reads it twice from stdin) */
	snprintf(script, sizeof(script), "printf '%%s\\n%%s\\n' %s %s | smbpasswd -s -a root", pw, pw);
	snprintf(log, sizeof(log), "%s/smbpasswd.log", logdir);
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	r = proc_run_output((const char *const[]){ "/bin/sh", "-c", script, NULL }, fd, READY_MS, &st);
	if (fd >= 0)
		close(fd);
	if (r < 0 || st != 0) {
		char last[256];

		supervise_last_lines(log, 2, last, sizeof(last));
		snprintf(why, ws, "smbpasswd -a root %s; its last lines: %s",
			 r < 0 ? strerror(-r) : "exited with an error", last);
		return r < 0 ? r : -EIO;
	}
	return 0;
}

/* Unmount the client's mounts check may have left, then the exports. */
static void unmount_all(struct loopback *l)
{
	mount_umount("/mnt/test");
	mount_umount("/mnt/scratch");
	for (size_t i = 0; i < ARRAY_SIZE(exports); i++) {
		int r;

		if (!l->mounted[i])
			continue;
		r = mount_umount(exports[i]);
		if (r < 0)
			log_warn("umount %s failed: %s", exports[i], strerror(-r));
		l->mounted[i] = false;
	}
}

void loopback_stop(struct loopback *l)
{
	if (!l)
		return;
	if (l->sup)
		supervisor_stop(l->sup);
	unmount_all(l);
	supervisor_free(l->sup);
	free(l);
}

int loopback_start(const struct fs_config *c, const char *mkfs_options, const char *test_dev, const char *scratch_dev,
		   const char *logdir, struct loopback **ret, char *why, size_t ws)
{
	const char *devs[] = { test_dev, scratch_dev };
	const bool nfs = streq(c->fstype, "nfs");
	struct loopback *l = calloc(1, sizeof(*l));
	int r;

	*ret = NULL;
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(devs); i++) {
		r = mkfs_format(c->export_fstype, mkfs_options, devs[i], why, ws);
		if (r < 0)
			goto fail;
		r = mount_device(devs[i], exports[i], c->export_fstype, NULL);
		if (r < 0) {
			snprintf(why, ws, "mount '%s' (%s) on %s failed: %s", devs[i], c->export_fstype, exports[i],
				 strerror(-r));
			goto fail;
		}
		l->mounted[i] = true;
	}
	r = fileio_mkdir_p(logdir);
	if (r == 0)
		r = nfs ? nfs_setup(c, why, ws) : smb_setup(c, logdir, why, ws);
	if (r == 0)
		r = supervisor_new(logdir, READY_MS, &l->sup);
	if (r < 0)
		goto fail;
	if (!nfs)
		r = supervisor_start(l->sup, smb, ARRAY_SIZE(smb), why, ws);
	else if (nfs_v3_wanted(c))
		r = supervisor_start(l->sup, nfs_v3, ARRAY_SIZE(nfs_v3), why, ws);
	else
		r = supervisor_start(l->sup, nfs_v4, ARRAY_SIZE(nfs_v4), why, ws);
	if (r < 0)
		goto fail;
	*ret = l;
	return 0;
fail:
	if (!why[0])
		snprintf(why, ws, "%s server: %s", c->fstype, strerror(-r));
	loopback_stop(l);
	return r;
}

int loopback_check(struct loopback *l, char *why, size_t ws)
{
	return l && l->sup ? supervisor_check(l->sup, why, ws) : 0;
}
