// SPDX-License-Identifier: MIT
/*
 * The parallel runners' disk (see runners.h).
 */
#include "boot/runners.h"
#include "machine/mkfs.h"
#include "machine/modules.h"
#include "machine/mount.h"
#include "util/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int runners_prepare(const struct plan *p, const struct roles *roles, char *pool, size_t size, char *why, size_t ws)
{
	const struct role_slot *slot = roles_get(roles, ROLE_RUNNERS);
	char mk[512];
	int r;

	why[0] = '\0';
	if (p->jobs <= 1)
		return 0;
	if (!slot || slot->state != ROLE_ASSIGNED) {
		snprintf(why, ws,
			 "no disk for the runners' devices (serial fsagent-runners: fsagent-qemu -j %u attaches "
			 "one)%s%s",
			 p->jobs, slot ? ": " : "", slot ? slot->reason : "");
		return 0;
	}
	/* no blocks reserved for root: the loop files are all there is */
	/* the loop driver: a module in distribution kernels (built in, it is there already) */
	r = modules_load_now("loop");
	if (r < 0) {
		snprintf(why, ws, "kernel module loop: %s", r == -ENOENT ? "not in this kernel" : strerror(-r));
		return 0;
	}
	r = mkfs_format("ext4", "-q -m 0", slot->dev->devnode, mk, sizeof(mk));
	if (r < 0) {
		snprintf(why, ws, "the runners' disk %s: %s", slot->dev->devnode, mk);
		return 0;
	}
	r = mount_device(slot->dev->devnode, RUNNERS_MOUNT, "ext4", NULL);
	if (r < 0) {
		snprintf(why, ws, "mount the runners' disk %s on %s: %s", slot->dev->devnode, RUNNERS_MOUNT,
			 strerror(-r));
		return 0;
	}
	log_info("runners: %u at once, their devices on %s (%s)", p->jobs, slot->dev->devnode, RUNNERS_MOUNT);
	snprintf(pool, size, "%s", RUNNERS_MOUNT);
	return 1;
}
