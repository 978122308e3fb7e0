// SPDX-License-Identifier: MIT
/*
 * Parallel runners' places, configs and devices (see pool.h).
 */
#include "run/pool.h"
#include "machine/loopdev.h"
#include "machine/mkfs.h"
#include "model/runner_config.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"
#include "util/sysroot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Devices a config may name that no runner can have a copy of: such a config needs the machine alone. */
static const char *const exclusive[] = {
	"SCRATCH_DEV_POOL", "TEST_LOGDEV", "SCRATCH_LOGDEV", "TEST_RTDEV", "SCRATCH_RTDEV",
};

/* The devices each runner gets a copy of, and their sizes (sparse). */
static const struct {
	const char *key, *file;
	uint64_t size;
} carved[] = {
	{ "TEST_DEV", "test", POOL_TEST_SIZE },
	{ "SCRATCH_DEV", "scratch", POOL_SCRATCH_SIZE },
	{ "LOGWRITES_DEV", "logwrites", POOL_SCRATCH_SIZE },
};

struct source {
	const char *text, *file, *section;
	char fstype[64], mkfs[512];
};

static void where(char *buf, size_t size, const struct source *src)
{
	snprintf(buf, size, "%s%s%s%s", src->file, src->section ? " [" : "", src->section ? src->section : "",
		 src->section ? "]" : "");
}

/* What the block device dev ("/dev/vdc") is that a loop device is not: zoned, DAX; "" for neither. */
static const char *unlike_loop(const char *dev)
{
	const char *name = strrchr(dev, '/') + 1;
	_cleanup_free_ char *zoned = NULL;
	unsigned long long dax = 0;

	if (sysroot_read_line(&zoned, "/sys/class/block/%s/queue/zoned", name) == 0 && !streq(zoned, "none"))
		return "zoned";
	if (sysroot_read_u64(&dax, "/sys/class/block/%s/queue/dax", name) == 0 && dax)
		return "DAX-capable";
	return "";
}

/*
 * Why the config needs the machine alone, into why (file, section and
 * key): a device no runner can have a copy of, or one whose kind a loop
 * device does not have. Returns 1 (it does), 0, or -errno.
 */
static int needs_machine(const struct source *src, char *why, size_t ws)
{
	static const char *const opts[] = { "MOUNT_OPTIONS", "TEST_FS_MOUNT_OPTS" };
	char val[PATH_MAX], at[PATH_MAX + 160];
	int r;

	where(at, sizeof(at), src);
	for (size_t i = 0; i < ARRAY_SIZE(exclusive); i++)
		if (runner_config_get(src->text, src->section, exclusive[i], val, sizeof(val)) != -ENOENT) {
			snprintf(why, ws, "%s: key '%s': a device every runner would share", at, exclusive[i]);
			return 1;
		}
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (runner_config_get(src->text, src->section, opts[i], val, sizeof(val)) == 0 && strstr(val, "dax")) {
			snprintf(why, ws, "%s: key '%s': '%s' asks for DAX, which a runner's loop device has not", at,
				 opts[i], val);
			return 1;
		}
	for (size_t i = 0; i < ARRAY_SIZE(carved) && !streq(src->fstype, "tmpfs"); i++) {
		const char *kind;

		r = runner_config_get(src->text, src->section, carved[i].key, val, sizeof(val));
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			snprintf(why, ws, "%s: key '%s': %s", at, carved[i].key, strerror(-r));
			return r;
		}
		if (!startswith(val, "/dev/") || !val[strlen("/dev/")]) {
			snprintf(why, ws, "%s: key '%s': '%s' is not a block device, and every runner would share it",
				 at, carved[i].key, val);
			return 1;
		}
		kind = unlike_loop(val);
		if (kind[0]) {
			snprintf(why, ws, "%s: key '%s': %s is %s, and a runner's loop device would not be", at,
				 carved[i].key, val, kind);
			return 1;
		}
	}
	return 0;
}

/* The config's text and what pool_make reads of it. Returns 0 or -errno with err. */
static int read_source(struct source *src, char **text, const char *host_options, const char *section, char *err,
		       size_t es)
{
	int r = fileio_read_full(host_options, text, NULL);

	*src = (struct source){ .file = host_options, .section = section, .text = *text };
	if (r < 0) {
		snprintf(err, es, "read '%s' failed: %s", host_options, strerror(-r));
		return r;
	}
	if (runner_config_get(*text, section, "FSTYP", src->fstype, sizeof(src->fstype)) < 0)
		snprintf(src->fstype, sizeof(src->fstype), "xfs"); /* check's default */
	if (runner_config_get(*text, section, "MKFS_OPTIONS", src->mkfs, sizeof(src->mkfs)) < 0)
		src->mkfs[0] = '\0';
	return 0;
}

/*
 * The runner's copy of the config's device key: a loop device over a
 * sparse file of its own, the test device made with the config's mkfs (as
 * check expects to find it). A tmpfs config's device is a name, fine to
 * share (one that is no /dev path needs the machine alone: needs_machine).
 */
static int carve(struct runner_slot *s, unsigned k, const struct source *src, size_t ki,
		 const struct runner_slot *share, char ***sets, char *err, size_t es)
{
	const char *key = carved[ki].key, *name = carved[ki].file;
	char val[PATH_MAX], file[PATH_MAX + 16], dev[64], at[PATH_MAX + 160], why[512], *set = NULL;
	int r = runner_config_get(src->text, src->section, key, val, sizeof(val));

	if (r == -ENOENT)
		return 0;
	where(at, sizeof(at), src);
	if (r < 0) {
		snprintf(err, es, "%s: key '%s': %s", at, key, strerror(-r));
		return r;
	}
	if (streq(src->fstype, "tmpfs"))
		return 0;
	if (share && share->dev_of[ki][0]) {
		/* another config's runner K, the same devices: made for this config when the runner turns to it */
		snprintf(dev, sizeof(dev), "%s", share->dev_of[ki]);
	} else {
		snprintf(file, sizeof(file), "%s/%s.img", s->dir, name);
		r = loopdev_attach(file, carved[ki].size, dev, sizeof(dev));
		if (r < 0) {
			snprintf(err, es, "runner %u: a loop device over '%s' for %s failed: %s", k, file, key,
				 strerror(-r));
			return r;
		}
		if (strv_push(&s->loops, dev) < 0)
			return -ENOMEM;
	}
	snprintf(s->dev_of[ki], sizeof(s->dev_of[ki]), "%s", dev);
	if (strv_push(&s->devices, dev + strlen("/dev/")) < 0 || asprintf(&set, "%s=%s", key, dev) < 0 ||
	    strv_push(sets, set) < 0) {
		free(set);
		return -ENOMEM;
	}
	free(set);
	if (streq(key, "TEST_DEV"))
		snprintf(s->test_dev, sizeof(s->test_dev), "%s", dev);
	if (streq(key, "TEST_DEV") && !(share && share->dev_of[ki][0])) {
		s->test_dev_made = true;
		r = mkfs_format(src->fstype, src->mkfs, dev, why, sizeof(why));
		if (r < 0) {
			snprintf(err, es, "runner %u: the test device %s (for %s's %s): %s", k, dev, at, key, why);
			return r;
		}
	}
	return 0;
}

static int make_slot(struct runner_slot *s, unsigned k, const struct source *src, const struct runner_slot *share,
		     char *err, size_t es)
{
	static const char *const dirs[] = { "test", "scratch", "results", "tmp" };
	char path[PATH_MAX + 16], **sets = NULL;
	_cleanup_free_ char *out = NULL;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", s->dir, dirs[i]);
		r = fileio_mkdir_p(path);
		if (r < 0) {
			snprintf(err, es, "runner %u: create '%s' failed: %s", k, path, strerror(-r));
			return r;
		}
	}
	r = 0;
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(carved); i++)
		r = carve(s, k, src, i, share, &sets, err, es);
	if (r >= 0 && (fileio_pathf(path, "TEST_DIR=%s/test", s->dir) < 0 || strv_push(&sets, path) < 0 ||
		       fileio_pathf(path, "SCRATCH_MNT=%s/scratch", s->dir) < 0 || strv_push(&sets, path) < 0 ||
		       fileio_pathf(path, "RESULT_BASE=%s/results", s->dir) < 0 || strv_push(&sets, path) < 0))
		r = -ENAMETOOLONG;
	if (r >= 0)
		r = runner_config_text(src->text, src->section, (const char *const *)sets, &out, err, es);
	strv_free(sets);
	if (r < 0)
		return r;
	snprintf(s->host_options, sizeof(s->host_options), "%s/fstests.config", s->dir);
	r = fileio_write_atomic(s->host_options, out, strlen(out));
	if (r < 0) {
		snprintf(err, es, "runner %u: write '%s' failed: %s", k, s->host_options, strerror(-r));
		return r;
	}
	if (src->section)
		snprintf(s->result_dir, sizeof(s->result_dir), "%s/results/%s", s->dir, src->section);
	else
		snprintf(s->result_dir, sizeof(s->result_dir), "%s/results", s->dir);
	if (fileio_pathf(path, "TMPDIR=%s/tmp", s->dir) < 0)
		return -ENAMETOOLONG;
	return strv_push(&s->env, path);
}

/*
 * Whether root's filesystem holds n runners' devices at their full sizes
 * (sparse files, so a run writes far less, but a test that fills its
 * scratch device must find the room): more runners than it can carve are
 * refused.
 */
static int fits(const char *root, unsigned n, const struct source *src, char *err, size_t es)
{
	uint64_t each = 0;
	struct statvfs sv;
	char val[PATH_MAX];
	int r = fileio_mkdir_p(root);

	if (r < 0) {
		snprintf(err, es, "create '%s' failed: %s", root, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < ARRAY_SIZE(carved); i++)
		if (!streq(src->fstype, "tmpfs") &&
		    runner_config_get(src->text, src->section, carved[i].key, val, sizeof(val)) == 0)
			each += carved[i].size;
	if (!each || statvfs(root, &sv) < 0)
		return 0;
	if ((uint64_t)sv.f_blocks * sv.f_frsize < each * n) {
		snprintf(err, es,
			 "%u runners need %llu GiB for their devices (%llu GiB each), and '%s' holds %llu GiB: fewer "
			 "runners or a bigger disk",
			 n, (unsigned long long)(each * n >> 30), (unsigned long long)(each >> 30), root,
			 (unsigned long long)((uint64_t)sv.f_blocks * sv.f_frsize >> 30));
		return -ENOSPC;
	}
	return 0;
}

int pool_make(struct runner_pool *p, const char *root, const char *config, unsigned n, const char *host_options,
	      const char *section, const struct runner_pool *share, char *err, size_t errsize)
{
	_cleanup_free_ char *text = NULL;
	struct source src;
	char base[PATH_MAX], abs[PATH_MAX];
	int r;

	memset(p, 0, sizeof(*p));
	r = read_source(&src, &text, host_options, section, err, errsize);
	if (r < 0)
		return r;
	r = needs_machine(&src, err, errsize);
	if (r != 0) {
		if (r > 0)
			snprintf(err + strlen(err), errsize - strlen(err), ": such a config needs the machine alone");
		return r > 0 ? -EINVAL : r;
	}
	if (share && share->n != n)
		return -EINVAL;
	r = share ? 0 : fits(root, n, &src, err, errsize);
	if (r < 0)
		return r;
	/* absolute: check runs in the fstests tree, and reads its runner's config from there */
	if (!realpath(root, abs)) {
		snprintf(err, errsize, "'%s': %s", root, strerror(errno));
		return -errno;
	}
	if (snprintf(base, sizeof(base), "%s/%s", abs, config) >= (int)sizeof(base))
		return -ENAMETOOLONG;
	for (char *s = base + strlen(abs) + 1; *s; s++)
		*s = *s == '/' ? '_' : *s;
	p->slots = calloc(n, sizeof(*p->slots));
	if (!p->slots)
		return -ENOMEM;
	p->n = n;
	snprintf(p->fstype, sizeof(p->fstype), "%s", src.fstype);
	snprintf(p->mkfs, sizeof(p->mkfs), "%s", src.mkfs);
	for (unsigned k = 0; k < n; k++) {
		struct runner_slot *s = &p->slots[k];

		r = snprintf(s->dir, sizeof(s->dir), "%s/runner-%u", base, k + 1) >= (int)sizeof(s->dir)
			    ? -ENAMETOOLONG
			    : make_slot(s, k + 1, &src, share ? &share->slots[k] : NULL, err, errsize);
		if (r < 0) {
			if (!err[0])
				snprintf(err, errsize, "runner %u: %s", k + 1, strerror(-r));
			pool_release(p);
			return r;
		}
	}
	return 0;
}

int pool_needs_machine(const char *host_options, const char *section, char *why, size_t ws)
{
	_cleanup_free_ char *text = NULL;
	struct source src;
	int r = read_source(&src, &text, host_options, section, why, ws);

	return r < 0 ? r : needs_machine(&src, why, ws);
}

int pool_remake_test_dev(const struct runner_pool *p, unsigned k, char *why, size_t ws)
{
	const char *dev = k < p->n ? p->slots[k].test_dev : "";

	return dev[0] ? mkfs_format(p->fstype, p->mkfs, dev, why, ws) : 0;
}

void pool_release(struct runner_pool *p)
{
	for (unsigned k = 0; p->slots && k < p->n; k++) {
		char img[PATH_MAX + 16];

		for (char **d = p->slots[k].loops; d && *d; d++)
			loopdev_detach(*d);
		/* the devices' files go with them (what tests wrote there is in their results) */
		for (size_t i = 0; i < ARRAY_SIZE(carved); i++)
			if (snprintf(img, sizeof(img), "%s/%s.img", p->slots[k].dir, carved[i].file) < (int)sizeof(img))
				unlink(img);
		strv_free(p->slots[k].loops);
		strv_free(p->slots[k].devices);
		strv_free(p->slots[k].env);
	}
	free(p->slots);
	p->slots = NULL;
	p->n = 0;
}

int pool_setup(struct runner_pool *pool, unsigned jobs, const char *root, const char *cannot, const char *config,
	       const char *host_options, const char *section, const struct selection *sel,
	       const struct runner_pool *share, json_t *record, char *err, size_t es)
{
	char why[PATH_MAX + 512];
	int r;

	memset(pool, 0, sizeof(*pool));
	if (jobs <= 1)
		return 0;
	if (cannot) {
		log_warn("config '%s': all its tests one at a time, not %u at once: %s", config, jobs, cannot);
		json_object_set_new(record, "parallel", json_pack("{s:i, s:s}", "runners", 1, "why", cannot));
		return 0;
	}
	r = pool_needs_machine(host_options, section, why, sizeof(why));
	if (r < 0) {
		snprintf(err, es, "%s", why);
		return r;
	}
	if (r > 0) {
		log_warn("config '%s': all its tests one at a time, not %u at once: %s", config, jobs, why);
		json_object_set_new(record, "parallel", json_pack("{s:i, s:s}", "runners", 1, "why", why));
		return 0;
	}
	if (!sel->knows_parallel) {
		log_warn("config '%s': the fstests tree has no test in group " SELECT_SERIAL_GROUP
			 " (older than check-parallel, v2024.12.08): all its tests one at a time, not %u at once",
			 config, jobs);
		json_object_set_new(record, "parallel",
				    json_pack("{s:i, s:s}", "runners", 1, "why",
					      "the fstests tree has no group " SELECT_SERIAL_GROUP
					      " (older than check-parallel): one test at a time"));
		return 0;
	}
	r = pool_make(pool, root ? root : "/tmp/fsagent-runners", config, jobs, host_options, section, share, err, es);
	if (r >= 0)
		json_object_set_new(record, "parallel", json_pack("{s:i}", "runners", (int)jobs));
	return r;
}
