// SPDX-License-Identifier: MIT
/* The modules PID 1 loads (see drivers.h). */
#include "boot/drivers.h"
#include "boot/timeline.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/sysroot.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Drivers that make disks appear. Absent ones are recorded, never fatal. */
static const char *const driver_modules[] = {
	"virtio_pci", "virtio_blk", "virtio_scsi", "sd_mod", "nvme", "nfit", "nd_pmem",
};

/* The buses those drivers bind on: other buses' devices need not be looked up. */
static const char *const driver_buses[] = { "pci", "virtio", "acpi", "scsi", "nd", NULL };

/* Drivers that find their disks after their probe returns: the inventory waits for those. */
static const char *const async_drivers[] = { "virtio_scsi", "sd_mod", "nvme", "nfit", "nd_pmem" };

/* A module that brings the devices the next one is for: disks behind a SCSI host, pmem regions. */
static const struct {
	const char *module, *then;
} driver_companions[] = { { "virtio_scsi", "sd_mod" }, { "nfit", "nd_pmem" } };

/* Append the comma separated names in list to reqs; buf keeps the strings. */
static size_t add_list(struct module_request *reqs, size_t n, size_t max, char *buf, bool required)
{
	char *save = NULL;

	for (char *t = strtok_r(buf, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
		reqs[n++] = (struct module_request){ t, required };
	return n;
}

static unsigned loader_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return cpus > 1 ? (unsigned)cpus : 1;
}

static size_t driver_index(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(driver_modules); i++)
		if (streq(driver_modules[i], name))
			return i;
	return ARRAY_SIZE(driver_modules);
}

/*
 * In rounds: virtio_pci's binding makes the virtio devices that want
 * virtio_blk appear. Without module indexes (everything built in) the
 * whole list is recorded.
 */
void drivers_load_disk(struct drivers *d)
{
	struct module_request reqs[ARRAY_SIZE(driver_modules)];
	bool want[ARRAY_SIZE(driver_modules)], done[ARRAY_SIZE(driver_modules)] = { false };
	size_t n;

	if (!d->mods)
		return;
	if (d->stage1[0]) {
		/* the initramfs stage probed the devices: record what it loaded */
		char *save = NULL;

		for (char *t = strtok_r(d->stage1, "+", &save); t; t = strtok_r(NULL, "+", &save))
			if (driver_index(t) < ARRAY_SIZE(driver_modules))
				modules_note_loaded(d->mods, t);
		return;
	}
	if (!modules_have_index(d->mods)) {
		for (n = 0; n < ARRAY_SIZE(driver_modules); n++)
			reqs[n] = (struct module_request){ driver_modules[n], false };
		modules_load_all(d->mods, reqs, n, loader_threads());
		return;
	}
	for (int round = 0; round < 3; round++) {
		if (modules_wanted_by_devices(d->mods, driver_buses, driver_modules, ARRAY_SIZE(driver_modules), want) <
		    0)
			break;
		for (size_t c = 0; c < ARRAY_SIZE(driver_companions); c++) {
			size_t a = driver_index(driver_companions[c].module);
			size_t b = driver_index(driver_companions[c].then);

			if (a < ARRAY_SIZE(want) && b < ARRAY_SIZE(want) && (want[a] || done[a]))
				want[b] = true;
		}
		n = 0;
		for (size_t i = 0; i < ARRAY_SIZE(driver_modules); i++)
			if (want[i] && !done[i]) {
				reqs[n++] = (struct module_request){ driver_modules[i], false };
				done[i] = true;
			}
		if (n == 0)
			break;
		modules_load_all(d->mods, reqs, n, loader_threads());
	}
}

void drivers_start_others(struct drivers *d, const char *fs, const char *required, const char *cmdline)
{
	struct module_request *reqs = d->reqs;
	const size_t max = ARRAY_SIZE(d->reqs);
	size_t n = 0;

	if (!d->mods)
		return;
	snprintf(d->fs, sizeof(d->fs), "%s", fs ? fs : "");
	snprintf(d->required, sizeof(d->required), "%s", required ? required : "");
	/* big filesystem modules first so the loaders finish together */
	reqs[n++] = (struct module_request){ "ext4", true };
	n = add_list(reqs, n, max, d->fs, false);
	n = add_list(reqs, n, max, d->required, true);
	/* a ramoops region on the command line: the crashed boot's log is in it */
	if (cmdline && strstr(cmdline, "ramoops.mem_address=") && n < max)
		reqs[n++] = (struct module_request){ "ramoops", false };
	if (modules_batch_start(d->mods, reqs, n, loader_threads(), &d->batch) < 0) {
		d->batch = NULL;
		modules_load_all(d->mods, reqs, n, 1);
	}
}

void drivers_wait_others(struct drivers *d)
{
	if (d->batch)
		modules_batch_wait(d->batch);
	d->batch = NULL;
}

static DIR *sysroot_opendir(const char *path)
{
	char p[PATH_MAX];

	return sysroot_path(p, sizeof(p), "%s", path) < 0 ? NULL : opendir(p);
}

static unsigned count_block_devices(void)
{
	DIR *d = sysroot_opendir("/sys/block");
	struct dirent *de;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Whether controller (a /sys/class/nvme entry) has a namespace: nvme0n1 or ng0n1. */
static bool nvme_has_namespace(const char *controller)
{
	char path[300];
	DIR *c;
	struct dirent *ce;
	bool ns = false;

	snprintf(path, sizeof(path), "/sys/class/nvme/%s", controller);
	c = sysroot_opendir(path);
	while (c && (ce = readdir(c)))
		if ((startswith(ce->d_name, "nvme") || startswith(ce->d_name, "ng")) &&
		    strchr(ce->d_name, 'n') != strrchr(ce->d_name, 'n'))
			ns = true;
	if (c)
		closedir(c);
	return ns;
}

/* NVMe controllers must be live and have scanned their namespaces. */
static bool nvme_pending(void)
{
	DIR *d = sysroot_opendir("/sys/class/nvme");
	struct dirent *de;
	bool pending = false;

	if (!d)
		return false;
	while (!pending && (de = readdir(d))) {
		_cleanup_free_ char *state = NULL;

		if (de->d_name[0] == '.')
			continue;
		if (sysroot_read_line(&state, "/sys/class/nvme/%s/state", de->d_name) < 0 || !streq(state, "live"))
			pending = true;
		else
			pending = !nvme_has_namespace(de->d_name);
	}
	closedir(d);
	return pending;
}

int drivers_settle(const struct drivers *d)
{
	long deadline = boottime_ms() + 5000, stable_since = boottime_ms();
	unsigned last = count_block_devices();
	bool async = false;

	for (size_t i = 0; d->mods && i < ARRAY_SIZE(async_drivers); i++)
		async |= modules_usable(d->mods, async_drivers[i]);
	if (!async)
		return 0; /* virtio_blk's disks exist when its probe returns */

	while (boottime_ms() < deadline) {
		struct timespec ts = { 0, 20 * 1000000 };
		unsigned now;

		nanosleep(&ts, NULL);
		now = count_block_devices();
		if (now != last) {
			last = now;
			stable_since = boottime_ms();
			continue;
		}
		if (!nvme_pending() && boottime_ms() - stable_since >= 200)
			return 0;
	}
	return -ETIMEDOUT;
}

void drivers_to_handoff(const struct drivers *d, struct handoff *h)
{
	for (size_t i = 0; d->mods && i < ARRAY_SIZE(driver_modules); i++)
		if (modules_usable(d->mods, driver_modules[i]))
			handoff_add_driver(h, driver_modules[i]);
}
