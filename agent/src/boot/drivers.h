/* SPDX-License-Identifier: MIT */
/*
 * Which kernel modules PID 1 loads at boot, and when. Disk drivers are
 * loaded for the devices present that want them (by modalias, as udev's
 * coldplug would, but only these), in rounds, and waited for until the
 * disks settle; filesystems (ext4 for the results disk, the run's) and the
 * modules the command line requires load in the background meanwhile.
 * Modules tests want (loop, device-mapper targets) are not loaded here:
 * fstests' _require_loop and _require_dm_target modprobe them, and loading
 * them at boot cost a third of a second of CPU under TCG.
 */
#pragma once

#include "boot/handoff.h"
#include "machine/modules.h"

struct drivers {
	struct modules *mods; /* borrowed; NULL: nothing to load */
	/* the initramfs stage's disk drivers ('+' separated): recorded, not probed again */
	char stage1[HANDOFF_DRIVERS_MAX];
	struct module_request reqs[64];
	char fs[256], required[256];
	struct modules_batch *batch;
};

/* Load the disk drivers the present devices want (or record the initramfs stage's). */
void drivers_load_disk(struct drivers *d);

/*
 * Start loading ext4, the comma separated fs and required lists, and
 * ramoops when cmdline places a ramoops region, in the background.
 */
void drivers_start_others(struct drivers *d, const char *fs, const char *required, const char *cmdline);

/* Wait for what drivers_start_others() started. */
void drivers_wait_others(struct drivers *d);

/*
 * Wait until NVMe controllers are live with namespaces and the set of block
 * devices has been stable for 200 ms, at most 5 s, when a driver that probes
 * asynchronously is loaded. Returns 0, or -ETIMEDOUT when devices still
 * changed at the deadline.
 */
int drivers_settle(const struct drivers *d);

/* Add the disk drivers now usable to h, for the next stage. */
void drivers_to_handoff(const struct drivers *d, struct handoff *h);
