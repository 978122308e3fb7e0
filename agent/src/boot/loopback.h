/* SPDX-License-Identifier: MIT */
/*
 * The network filesystem server a loopback config tests against, inside the
 * guest (fsagent is PID 1: no init system starts it):
 *   - the exported filesystem (the config's export key) made on the test
 *     and scratch devices and mounted on /export/test and /export/scratch;
 *   - nfs: the kernel's nfsd exporting both to the guest itself (the
 *     exports in /etc/exports), its daemons started in order and waited
 *     for: rpcbind, rpc.statd (for NFSv3's locks), exportfs, rpc.mountd,
 *     rpc.nfsd (a 10 s NFSv4 grace period, not 90);
 *   - cifs: Samba's smbd, shares test and scratch, root's SMB password
 *     made at boot at random (in the credentials file fstests' mounts
 *     name, CATALOG_SMB_CREDENTIALS);
 *   - kept running by the supervisor (run/supervise.h) and all of it undone
 *     (servers stopped, then the exports unmounted) before the next config
 *     formats the devices, or the machine powers off.
 * The daemons' logs go to logdir; a daemon that cannot start is named in
 * why with its last lines.
 */
#pragma once

#include <stddef.h>

#include "boot/catalog.h"

struct loopback;

/*
 * Set up c's server over test_dev and scratch_dev, the export made with
 * mkfs_options. Returns 0, or -errno with why saying what failed (what was
 * set up is undone).
 */
int loopback_start(const struct fs_config *c, const char *mkfs_options, const char *test_dev, const char *scratch_dev,
		   const char *logdir, struct loopback **ret, char *why, size_t size);

/*
 * Between tests: the server's daemons that died, each started again.
 * Returns how many died (why names them with their last lines), or -errno
 * when one could not start again.
 */
int loopback_check(struct loopback *l, char *why, size_t size);

/* Stop the server, unmount the client's mounts and the exports, free l (NULL: nothing). */
void loopback_stop(struct loopback *l);
