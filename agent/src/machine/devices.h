/* SPDX-License-Identifier: MIT */
/*
 * Block device inventory: every /sys/block entry with its sysfs attributes
 * (size, serial, model, queue limits, DAX, zones, cache, flags) and what
 * libblkid finds on it (filesystem, RAID/LVM member, partition table).
 * Reads go through the sysroot; probing opens <sysroot>/dev/<name>.
 *
 * Invariant: strings are heap copies owned by the list; NULL means "not
 * reported by the kernel" and never "empty".
 */
#pragma once

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>

struct dev_partition {
	char name[NAME_MAX + 1];
	unsigned partno;
	unsigned long long start_bytes, size_bytes;
	char *fstype, *label, *uuid;
};

struct device {
	char name[NAME_MAX + 1];
	char devnode[NAME_MAX + 6];
	unsigned major, minor;
	unsigned long long size_bytes;
	char *serial, *wwid, *model, *vendor;
	char *by_id;	 /* an existing /dev/disk/by-id link, if any */
	char *transport; /* virtio, nvme, scsi, pmem, virtual, usb, other */
	/* libblkid: whole-device signature and partition table */
	char *fstype, *fsversion, *label, *uuid, *usage, *pttype;
	bool probe_ambivalent; /* more than one signature found */
	int probe_error;       /* -errno when the device could not be probed */
	struct dev_partition *parts;
	size_t n_parts;
	bool rotational, dax, read_only, removable, write_cache;
	unsigned logical_block, physical_block;
	unsigned long long discard_granularity, discard_max_bytes;
	char zoned[16]; /* none, host-aware, host-managed */
	unsigned nr_zones;
	bool is_root;	  /* holds the root filesystem */
	bool is_mounted;  /* it or a partition is mounted */
	bool has_holders; /* claimed by dm/md/bcache */
};

struct device_list {
	struct device *v;
	size_t n;
};

/*
 * Inventory all block devices, skipping empty loop/ram devices.
 * On success *ret is filled (release with device_list_release).
 * Returns 0 or -errno (/sys/block unreadable, allocation failure).
 */
int devices_scan(struct device_list *ret);

/*
 * Mark the devices (or their partitions) mounted now, from mountinfo, and
 * the one mounted on / as the root; devices_scan does this, and a scan
 * made before the root disk was mounted is brought up to date with it.
 */
void devices_mark_mounted(struct device_list *l);
void device_list_release(struct device_list *l);

/* Whether anything (filesystem, RAID/LVM member, partition table, partitions) is on d. */
bool device_has_signature(const struct device *d);

/* Describe what is on d for a refusal message ("xfs filesystem UUID=..."). buf >= 256. */
void device_describe_signature(const struct device *d, char *buf, size_t size);

/*
 * The name udev would give d under /dev/disk/by-id ("virtio-SERIAL",
 * "nvme-MODEL_SERIAL"), into buf. Returns 0, or -ENOENT without a serial.
 */
int device_udev_id_name(const struct device *d, char *buf, size_t size);

/* Trim an NVMe/SCSI style space-padded string in place; returns s. */
char *devices_trim_serial(char *s);

json_t *devices_to_json(const struct device_list *l);
