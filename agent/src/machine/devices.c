// SPDX-License-Identifier: MIT
/*
 * /sys/block enumeration plus libblkid probing (see devices.h). libblkid's
 * return convention (1 = nothing found, -2 = ambivalent) is normalised in
 * probe_signatures() and nowhere else.
 */
#include "machine/devices.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/sysroot.h"

#include <blkid/blkid.h>
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

DEFINE_CLEANUP(struct blkid_struct_probe, blkid_free_probe)

static void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)

char *devices_trim_serial(char *s)
{
	char *t = fileio_strstrip(s);

	if (t != s)
		memmove(s, t, strlen(t) + 1);
	return s;
}

static char *read_attr(const char *name, const char *attr)
{
	char *v = NULL;

	if (sysroot_read_line(&v, "/sys/block/%s/%s", name, attr) < 0)
		return NULL;
	devices_trim_serial(v);
	if (!*v) {
		free(v);
		return NULL;
	}
	return v;
}

static unsigned long long read_u64_attr(const char *name, const char *attr)
{
	unsigned long long v = 0;

	sysroot_read_u64(&v, "/sys/block/%s/%s", name, attr);
	return v;
}

/*
 * Probe for filesystems, RAID/LVM members and partition tables.
 * Returns 0 with fields set, 1 if nothing was found, -errno on failure.
 */
static int probe_signatures(const char *path, struct device *d, struct dev_partition *p)
{
	_cleanup_(blkid_free_probep) blkid_probe pr = blkid_new_probe_from_filename(path);
	const char *v;
	int r;

	if (!pr)
		return errno ? -errno : -EIO;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID |
						      BLKID_SUBLKS_USAGE | BLKID_SUBLKS_VERSION);
	blkid_probe_enable_partitions(pr, d ? 1 : 0);
	if (d)
		blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	r = blkid_do_safeprobe(pr);
	if (r == -2) {
		if (d)
			d->probe_ambivalent = true;
		return 0;
	}
	if (r < 0)
		return -EIO;
	if (r == 1)
		return 1;
	if (d) {
		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0)
			d->fstype = strdup(v);
		if (blkid_probe_lookup_value(pr, "VERSION", &v, NULL) == 0)
			d->fsversion = strdup(v);
		if (blkid_probe_lookup_value(pr, "LABEL", &v, NULL) == 0)
			d->label = strdup(v);
		if (blkid_probe_lookup_value(pr, "UUID", &v, NULL) == 0)
			d->uuid = strdup(v);
		if (blkid_probe_lookup_value(pr, "USAGE", &v, NULL) == 0)
			d->usage = strdup(v);
		if (blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) == 0)
			d->pttype = strdup(v);
	} else {
		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0)
			p->fstype = strdup(v);
		if (blkid_probe_lookup_value(pr, "LABEL", &v, NULL) == 0)
			p->label = strdup(v);
		if (blkid_probe_lookup_value(pr, "UUID", &v, NULL) == 0)
			p->uuid = strdup(v);
	}
	return 0;
}

static const char *transport_of(const char *name)
{
	char link[PATH_MAX], real[PATH_MAX];

	if (sysroot_path(link, sizeof(link), "/sys/block/%s", name) < 0 || !realpath(link, real))
		return "other";
	if (strstr(real, "/virtual/"))
		return "virtual";
	if (strstr(real, "/ndbus") || strstr(real, "/region"))
		return "pmem";
	if (strstr(real, "/nvme"))
		return "nvme";
	if (strstr(real, "/virtio"))
		return "virtio";
	if (strstr(real, "/usb"))
		return "usb";
	if (strstr(real, "/host"))
		return "scsi";
	return "other";
}

static void scan_partitions(struct device *d)
{
	char dir[PATH_MAX];
	_cleanup_closedir_ DIR *dd = NULL;
	struct dirent *de;

	if (sysroot_path(dir, sizeof(dir), "/sys/block/%s", d->name) < 0 || !(dd = opendir(dir)))
		return;
	while ((de = readdir(dd))) {
		unsigned long long partno, start = 0, size = 0;
		struct dev_partition *np, *p;
		char node[PATH_MAX];

		if (de->d_name[0] == '.' ||
		    sysroot_read_u64(&partno, "/sys/block/%s/%s/partition", d->name, de->d_name) < 0)
			continue;
		sysroot_read_u64(&start, "/sys/block/%s/%s/start", d->name, de->d_name);
		sysroot_read_u64(&size, "/sys/block/%s/%s/size", d->name, de->d_name);
		np = realloc(d->parts, (d->n_parts + 1) * sizeof(*np));
		if (!np)
			return;
		d->parts = np;
		p = &d->parts[d->n_parts++];
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", de->d_name);
		p->partno = (unsigned)partno;
		/* sysfs start and size are in 512-byte sectors whatever the block size */
		p->start_bytes = start * 512;
		p->size_bytes = size * 512;
		if (sysroot_path(node, sizeof(node), "/dev/%s", p->name) == 0)
			probe_signatures(node, NULL, p);
	}
}

static void find_by_id(struct device *d)
{
	char dir[PATH_MAX];
	_cleanup_closedir_ DIR *dd = NULL;
	struct dirent *de;
	int best = -1;

	if (sysroot_path(dir, sizeof(dir), "/dev/disk/by-id") < 0 || !(dd = opendir(dir)))
		return;
	while ((de = readdir(dd))) {
		char link[PATH_MAX], target[PATH_MAX];
		const char *base;
		ssize_t n;
		int rank;

		if (de->d_name[0] == '.' || snprintf(link, sizeof(link), "%s/%s", dir, de->d_name) >= (int)sizeof(link))
			continue;
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		base = strrchr(target, '/');
		base = base ? base + 1 : target;
		if (!streq(base, d->name))
			continue;
		/* prefer the serial-based names the launcher sets over wwn/eui ones */
		rank = startswith(de->d_name, "virtio-") || startswith(de->d_name, "nvme-") ? 2
		       : startswith(de->d_name, "wwn-")					    ? 0
											    : 1;
		if (rank > best) {
			free(d->by_id);
			d->by_id = NULL;
			if (asprintf(&d->by_id, "/dev/disk/by-id/%s", de->d_name) < 0)
				d->by_id = NULL;
			best = rank;
		}
	}
}

int device_udev_id_name(const struct device *d, char *buf, size_t size)
{
	char *p;
	int n;

	if (!d->serial)
		return -ENOENT;
	if (streq(d->transport, "virtio"))
		n = snprintf(buf, size, "virtio-%s", d->serial);
	else if (streq(d->transport, "nvme"))
		n = snprintf(buf, size, "nvme-%s_%s", d->model ? d->model : "", d->serial);
	else
		n = snprintf(buf, size, "%s-%s", d->transport, d->serial);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	/* udev replaces whitespace and '/' the same way */
	for (p = buf; *p; p++)
		if (isspace((unsigned char)*p) || *p == '/')
			*p = '_';
	return 0;
}

void devices_mark_mounted(struct device_list *l)
{
	_cleanup_free_ char *mi = NULL;

	if (sysroot_read_file(&mi, NULL, "/proc/self/mountinfo") < 0)
		return;
	for (char *line = mi, *next; line && *line; line = next) {
		unsigned maj, min;
		char mnt[PATH_MAX];

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* "36 35 98:0 /mnt1 /mnt2 rw,noatime ..." */
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mnt) != 3 || maj == 0)
			continue;
		for (size_t i = 0; i < l->n; i++) {
			struct device *d = &l->v[i];
			bool hit = d->major == maj && d->minor == min;

			for (size_t k = 0; !hit && k < d->n_parts; k++) {
				unsigned pmaj = 0, pmin = 0;
				_cleanup_free_ char *dev = NULL;

				if (sysroot_read_line(&dev, "/sys/block/%s/%s/dev", d->name, d->parts[k].name) == 0 &&
				    sscanf(dev, "%u:%u", &pmaj, &pmin) == 2)
					hit = pmaj == maj && pmin == min;
			}
			if (!hit)
				continue;
			d->is_mounted = true;
			if (streq(mnt, "/"))
				d->is_root = true;
		}
	}
}

static bool has_entries(const char *name, const char *sub)
{
	char dir[PATH_MAX];
	_cleanup_closedir_ DIR *dd = NULL;
	struct dirent *de;

	if (sysroot_path(dir, sizeof(dir), "/sys/block/%s/%s", name, sub) < 0 || !(dd = opendir(dir)))
		return false;
	while ((de = readdir(dd)))
		if (de->d_name[0] != '.')
			return true;
	return false;
}

static int fill_device(struct device *d, const char *name)
{
	_cleanup_free_ char *dev = NULL, *wc = NULL, *zoned = NULL;
	char node[PATH_MAX];
	int r;

	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->devnode, sizeof(d->devnode), "/dev/%s", name);
	if (sysroot_read_line(&dev, "/sys/block/%s/dev", name) == 0)
		sscanf(dev, "%u:%u", &d->major, &d->minor);
	d->size_bytes = read_u64_attr(name, "size") * 512;
	d->transport = strdup(transport_of(name));
	/* virtio-blk exports "serial" on the disk; NVMe and SCSI on the device */
	d->serial = read_attr(name, "serial");
	if (!d->serial)
		d->serial = read_attr(name, "device/serial");
	d->wwid = read_attr(name, "wwid");
	if (!d->wwid)
		d->wwid = read_attr(name, "device/wwid");
	d->model = read_attr(name, "device/model");
	d->vendor = read_attr(name, "device/vendor");
	d->rotational = read_u64_attr(name, "queue/rotational") != 0;
	d->dax = read_u64_attr(name, "queue/dax") != 0;
	d->read_only = read_u64_attr(name, "ro") != 0;
	d->removable = read_u64_attr(name, "removable") != 0;
	d->logical_block = (unsigned)read_u64_attr(name, "queue/logical_block_size");
	d->physical_block = (unsigned)read_u64_attr(name, "queue/physical_block_size");
	d->discard_granularity = read_u64_attr(name, "queue/discard_granularity");
	d->discard_max_bytes = read_u64_attr(name, "queue/discard_max_bytes");
	wc = read_attr(name, "queue/write_cache");
	d->write_cache = wc && streq(wc, "write back");
	zoned = read_attr(name, "queue/zoned");
	snprintf(d->zoned, sizeof(d->zoned), "%s", zoned ? zoned : "none");
	d->nr_zones = (unsigned)read_u64_attr(name, "queue/nr_zones");
	d->has_holders = has_entries(name, "holders");
	find_by_id(d);
	scan_partitions(d);
	if (sysroot_path(node, sizeof(node), "/dev/%s", name) < 0)
		return 0;
	r = probe_signatures(node, d, NULL);
	d->probe_error = r < 0 ? r : 0;
	return 0;
}

static void device_release(struct device *d)
{
	free(d->serial);
	free(d->wwid);
	free(d->model);
	free(d->vendor);
	free(d->by_id);
	free(d->transport);
	free(d->fstype);
	free(d->fsversion);
	free(d->label);
	free(d->uuid);
	free(d->usage);
	free(d->pttype);
	for (size_t i = 0; i < d->n_parts; i++) {
		free(d->parts[i].fstype);
		free(d->parts[i].label);
		free(d->parts[i].uuid);
	}
	free(d->parts);
}

void device_list_release(struct device_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		device_release(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct device *)a)->name, ((const struct device *)b)->name);
}

static bool skip_device(const char *name)
{
	unsigned long long size = read_u64_attr(name, "size");

	/* unused loop devices and ram disks are noise, not hardware */
	if ((startswith(name, "loop") || startswith(name, "ram") || startswith(name, "zram")) && size == 0)
		return true;
	return startswith(name, "ram");
}

int devices_scan(struct device_list *ret)
{
	char dir[PATH_MAX];
	_cleanup_closedir_ DIR *dd = NULL;
	struct device_list l = { 0 };
	struct dirent *de;
	int r;

	r = sysroot_path(dir, sizeof(dir), "/sys/block");
	if (r < 0)
		return r;
	dd = opendir(dir);
	if (!dd)
		return -errno;
	while ((de = readdir(dd))) {
		struct device *nv;

		if (de->d_name[0] == '.' || skip_device(de->d_name))
			continue;
		nv = realloc(l.v, (l.n + 1) * sizeof(*nv));
		if (!nv) {
			device_list_release(&l);
			return -ENOMEM;
		}
		l.v = nv;
		memset(&l.v[l.n], 0, sizeof(l.v[l.n]));
		fill_device(&l.v[l.n++], de->d_name);
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_name);
	devices_mark_mounted(&l);
	*ret = l;
	return 0;
}

bool device_has_signature(const struct device *d)
{
	return d->fstype || d->pttype || d->n_parts > 0 || d->probe_ambivalent;
}

void device_describe_signature(const struct device *d, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	if (!f) {
		snprintf(buf, size, "a signature");
		return;
	}
	if (d->probe_ambivalent)
		fprintf(f, "several conflicting signatures");
	else if (d->fstype && d->usage && streq(d->usage, "raid"))
		fprintf(f, "%s RAID/LVM member signature", d->fstype);
	else if (d->fstype)
		fprintf(f, "%s %s", d->fstype, d->usage ? d->usage : "signature");
	if (d->fstype && d->label)
		fprintf(f, " LABEL=%s", d->label);
	if (d->fstype && d->uuid)
		fprintf(f, " UUID=%s", d->uuid);
	if (d->pttype)
		fprintf(f, "%s%s partition table", d->fstype ? ", " : "", d->pttype);
	if (d->n_parts)
		fprintf(f, "%s%zu partition(s)", d->fstype || d->pttype ? ", " : "", d->n_parts);
	fclose(f);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *devices_to_json(const struct device_list *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++) {
		const struct device *d = &l->v[i];
		json_t *parts = json_array(), *j;
		char maj_min[32];

		for (size_t k = 0; k < d->n_parts; k++) {
			const struct dev_partition *p = &d->parts[k];

			json_array_append_new(
				parts, json_pack("{s:s, s:i, s:I, s:I, s:o, s:o, s:o}", "name", p->name, "number",
						 (int)p->partno, "start", (json_int_t)p->start_bytes, "size",
						 (json_int_t)p->size_bytes, "fstype", str_or_null(p->fstype), "label",
						 str_or_null(p->label), "uuid", str_or_null(p->uuid)));
		}
		snprintf(maj_min, sizeof(maj_min), "%u:%u", d->major, d->minor);
		j = json_pack("{s:s, s:s, s:s, s:I, s:s, s:o, s:o, s:o, s:o, s:o}", "name", d->name, "path", d->devnode,
			      "dev", maj_min, "size", (json_int_t)d->size_bytes, "transport",
			      d->transport ? d->transport : "other", "serial", str_or_null(d->serial), "wwid",
			      str_or_null(d->wwid), "model", str_or_null(d->model), "vendor", str_or_null(d->vendor),
			      "by_id", str_or_null(d->by_id));
		json_object_set_new(j, "fstype", str_or_null(d->fstype));
		json_object_set_new(j, "fsversion", str_or_null(d->fsversion));
		json_object_set_new(j, "label", str_or_null(d->label));
		json_object_set_new(j, "uuid", str_or_null(d->uuid));
		json_object_set_new(j, "usage", str_or_null(d->usage));
		json_object_set_new(j, "pttype", str_or_null(d->pttype));
		json_object_set_new(j, "partitions", parts);
		if (d->probe_ambivalent)
			json_object_set_new(j, "probe", json_string("ambivalent"));
		else if (d->probe_error)
			json_object_set_new(j, "probe", json_string(strerror(-d->probe_error)));
		json_object_set_new(j, "queue",
				    json_pack("{s:b, s:i, s:i, s:I, s:I, s:b, s:s, s:i, s:b}", "rotational",
					      d->rotational, "logical_block_size", (int)d->logical_block,
					      "physical_block_size", (int)d->physical_block, "discard_granularity",
					      (json_int_t)d->discard_granularity, "discard_max_bytes",
					      (json_int_t)d->discard_max_bytes, "dax", d->dax, "zoned", d->zoned,
					      "nr_zones", (int)d->nr_zones, "write_cache", d->write_cache));
		json_object_set_new(j, "read_only", json_boolean(d->read_only));
		json_object_set_new(j, "removable", json_boolean(d->removable));
		json_object_set_new(j, "root", json_boolean(d->is_root));
		json_object_set_new(j, "mounted", json_boolean(d->is_mounted));
		json_object_set_new(j, "holders", json_boolean(d->has_holders));
		json_array_append_new(a, j);
	}
	return a;
}
