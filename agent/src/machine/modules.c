// SPDX-License-Identifier: MIT
/*
 * libkmod wrapper. libkmod's conventions (positive for blacklisted or
 * built-in, empty lookup lists for unknown names) are turned into
 * enum module_status here and nowhere else.
 */
#include "machine/modules.h"
#include "machine/kconfig.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/sysroot.h"

#include <dirent.h>
#include <libkmod.h>
#include <pthread.h>
#include <stdatomic.h>
#include <limits.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/stat.h>
#include <time.h>

struct module_outcome {
	char name[64];
	enum module_status status;
	bool required;
	int error;
	unsigned ms;
};

struct modules {
	struct kmod_ctx *ctx;
	bool have_index;
	char *kconfig; /* the kernel's .config, or NULL */
	struct module_outcome *v;
	size_t n, cap;
};

DEFINE_CLEANUP(struct kmod_list, kmod_module_unref_list)

static void kmod_log_bridge(void *data _unused_, int priority _unused_, const char *file _unused_, int line _unused_,
			    const char *fn _unused_, const char *format, va_list args)
{
	char buf[512];

	if (log_get_max_level() < LOG_LVL_DEBUG)
		return;
	vsnprintf(buf, sizeof(buf), format, args);
	buf[strcspn(buf, "\n")] = '\0';
	log_debug("libkmod: %s", buf);
}

int modules_new(const char *sysroot, const char *release, struct modules **ret)
{
	static const char *const no_config[] = { NULL };
	char dir[PATH_MAX], idx[PATH_MAX + 32];
	struct modules *m;
	struct stat st;

	if (snprintf(dir, sizeof(dir), "%s/lib/modules/%s", sysroot ? sysroot : "", release) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* An empty config: the image's /etc/modprobe.d must not change what loads. */
	m->ctx = kmod_new(dir, no_config);
	if (!m->ctx) {
		free(m);
		return -ENOMEM;
	}
	kmod_set_log_fn(m->ctx, kmod_log_bridge, NULL);
	snprintf(idx, sizeof(idx), "%s/modules.dep.bin", dir);
	m->have_index = stat(idx, &st) == 0;
	if (kconfig_read(release, &m->kconfig, &(const char *){ NULL }) < 0)
		m->kconfig = NULL;
	if (m->have_index && kmod_load_resources(m->ctx) < 0)
		m->have_index = false;
	*ret = m;
	return 0;
}

void modules_free(struct modules *m)
{
	if (!m)
		return;
	kmod_unref(m->ctx);
	free(m->kconfig);
	free(m->v);
	free(m);
}

bool modules_have_index(const struct modules *m)
{
	return m->have_index;
}

const char *module_status_to_string(enum module_status s)
{
	static const char *const names[MODULE_STATUS_MAX] = {
		[MODULE_LOADED] = "loaded", [MODULE_ALREADY] = "already-loaded", [MODULE_BUILTIN] = "builtin",
		[MODULE_ABSENT] = "absent", [MODULE_FAILED] = "failed",
	};
	return s < MODULE_STATUS_MAX ? names[s] : "?";
}

/* module names use '_' and '-' interchangeably; /sys/module uses '_' */
static void underscore(char *dst, size_t size, const char *name)
{
	snprintf(dst, size, "%s", name);
	for (char *p = dst; *p; p++)
		if (*p == '-')
			*p = '_';
}

/* Mark in want[] the names[] that alias (a device's modalias) resolves to. */
static void want_alias(struct modules *m, const char *alias, const char *const *names, size_t n, bool *want)
{
	_cleanup_(kmod_module_unref_listp) struct kmod_list *list = NULL;
	struct kmod_list *l;

	if (kmod_module_new_from_lookup(m->ctx, alias, &list) < 0)
		return;
	kmod_list_foreach(l, list)
	{
		struct kmod_module *mod = kmod_module_get_module(l);
		char a[64], b[64];

		underscore(a, sizeof(a), kmod_module_get_name(mod));
		for (size_t i = 0; i < n; i++) {
			underscore(b, sizeof(b), names[i]);
			want[i] |= streq(a, b);
		}
		kmod_module_unref(mod);
	}
}

/*
 * A virtio PCI function (vendor 0x1af4) becomes a virtio device of a type
 * known now (device 0x1040 + type, or a transitional one's subsystem id)
 * once virtio_pci binds it: the driver that device will want is wanted
 * too, so that it loads alongside virtio_pci instead of a round later.
 */
static void want_virtio_alias(struct modules *m, const char *alias, const char *const *names, size_t n, bool *want)
{
	unsigned dev, svendor, sdev, type = 0;
	char virtio[40];

	if (sscanf(alias, "pci:v00001AF4d%8xsv%8xsd%8x", &dev, &svendor, &sdev) != 3)
		return;
	if (dev >= 0x1040 && dev <= 0x107f)
		type = dev - 0x1040;
	else if (dev >= 0x1000 && dev <= 0x103f)
		type = sdev;
	if (type == 0)
		return;
	snprintf(virtio, sizeof(virtio), "virtio:d%08Xv%08X", type, svendor);
	want_alias(m, virtio, names, n, want);
}

int modules_wanted_by_devices(struct modules *m, const char *const *buses, const char *const *names, size_t n,
			      bool *want)
{
	int count = 0;

	for (size_t i = 0; i < n; i++)
		want[i] = false;
	if (!m->have_index)
		return 0;
	for (size_t b = 0; buses[b]; b++) {
		char devs[PATH_MAX];
		DIR *dd;
		struct dirent *de;

		if (sysroot_path(devs, sizeof(devs), "/sys/bus/%s/devices", buses[b]) < 0)
			return -ENAMETOOLONG;
		dd = opendir(devs);
		while (dd && (de = readdir(dd))) {
			_cleanup_free_ char *alias = NULL;

			if (de->d_name[0] == '.' ||
			    sysroot_read_line(&alias, "/sys/bus/%s/devices/%s/modalias", buses[b], de->d_name) < 0 ||
			    !*alias)
				continue;
			want_alias(m, alias, names, n, want);
			want_virtio_alias(m, alias, names, n, want);
		}
		if (dd)
			closedir(dd);
	}
	for (size_t i = 0; i < n; i++)
		count += want[i];
	return count;
}

bool modules_usable(const struct modules *m, const char *name)
{
	char a[64], b[64];

	underscore(a, sizeof(a), name);
	for (size_t i = 0; i < m->n; i++) {
		underscore(b, sizeof(b), m->v[i].name);
		if (streq(a, b) && (m->v[i].status == MODULE_LOADED || m->v[i].status == MODULE_ALREADY ||
				    m->v[i].status == MODULE_BUILTIN))
			return true;
	}
	return false;
}

/*
 * The CONFIG_ symbol of the modules fsagent asks for, so that a kernel with
 * no module directory still tells "built in" from "absent".
 */
static const struct {
	const char *module, *config;
} module_configs[] = {
	{ "virtio_blk", "CONFIG_VIRTIO_BLK" },
	{ "virtio_pci", "CONFIG_VIRTIO_PCI" },
	{ "virtio_scsi", "CONFIG_SCSI_VIRTIO" },
	{ "sd_mod", "CONFIG_BLK_DEV_SD" },
	{ "nvme", "CONFIG_BLK_DEV_NVME" },
	{ "nfit", "CONFIG_ACPI_NFIT" },
	{ "nd_pmem", "CONFIG_BLK_DEV_PMEM" },
	{ "loop", "CONFIG_BLK_DEV_LOOP" },
	{ "dm_mod", "CONFIG_BLK_DEV_DM" },
	{ "dm_flakey", "CONFIG_DM_FLAKEY" },
	{ "dm_log_writes", "CONFIG_DM_LOG_WRITES" },
	{ "dm_snapshot", "CONFIG_DM_SNAPSHOT" },
	{ "dm_thin_pool", "CONFIG_DM_THIN_PROVISIONING" },
	{ "dm_delay", "CONFIG_DM_DELAY" },
	{ "dm_dust", "CONFIG_DM_DUST" },
	{ "ext4", "CONFIG_EXT4_FS" },
	{ "xfs", "CONFIG_XFS_FS" },
	{ "btrfs", "CONFIG_BTRFS_FS" },
	{ "f2fs", "CONFIG_F2FS_FS" },
	{ "scsi_debug", "CONFIG_SCSI_DEBUG" },
	{ "null_blk", "CONFIG_BLK_DEV_NULL_BLK" },
};

/*
 * Evidence that name is built into the running kernel, for when the module
 * indexes do not know it: /sys/module/<name> (built-ins with parameters),
 * a registered filesystem of that name, or =y in the kernel config.
 */
static bool builtin_evidence(const struct modules *m, const char *name)
{
	_cleanup_free_ char *fs = NULL;
	char n[64], needle[80];
	const char *v;

	underscore(n, sizeof(n), name);
	if (sysroot_exists("/sys/module/%s", n))
		return true;
	snprintf(needle, sizeof(needle), "\t%s\n", n);
	if (sysroot_read_file(&fs, NULL, "/proc/filesystems") == 0 && strstr(fs, needle))
		return true;
	if (!m->kconfig)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(module_configs); i++)
		if (streq(module_configs[i].module, n))
			return kconfig_get(m->kconfig, module_configs[i].config, &v) && streq(v, "y");
	return false;
}

enum module_avail modules_available(struct modules *m, const char *name)
{
	_cleanup_(kmod_module_unref_listp) struct kmod_list *list = NULL;
	struct kmod_list *l;
	enum module_avail a = MODULE_AVAIL_NONE;

	if (!m->have_index || kmod_module_new_from_lookup(m->ctx, name, &list) < 0 || !list)
		return builtin_evidence(m, name) ? MODULE_AVAIL_BUILTIN : MODULE_AVAIL_NONE;
	kmod_list_foreach(l, list)
	{
		struct kmod_module *mod = kmod_module_get_module(l);

		/* found by lookup but without a file: listed in modules.builtin */
		if (kmod_module_get_path(mod))
			a = MODULE_AVAIL_LOADABLE;
		else if (a == MODULE_AVAIL_NONE)
			a = MODULE_AVAIL_BUILTIN;
		kmod_module_unref(mod);
	}
	return a;
}

static unsigned elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (unsigned)((t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000);
}

/* Load name with ctx into *o; the one place libkmod's results are interpreted. */
static void load_one(const struct modules *m, struct kmod_ctx *ctx, const char *name, bool required,
		     struct module_outcome *o)
{
	_cleanup_(kmod_module_unref_listp) struct kmod_list *list = NULL;
	struct kmod_list *l;
	struct timespec t0;
	enum module_status st = MODULE_ABSENT;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->required = required;
	if (!m->have_index || kmod_module_new_from_lookup(ctx, name, &list) < 0 || !list) {
		/* no index or not in it: built in, or absent */
		o->status = builtin_evidence(m, name) ? MODULE_BUILTIN : MODULE_ABSENT;
		o->ms = elapsed_ms(&t0);
		return;
	}
	kmod_list_foreach(l, list)
	{
		struct kmod_module *mod = kmod_module_get_module(l);
		int state = kmod_module_get_initstate(mod);
		int r;

		if (state == KMOD_MODULE_BUILTIN) {
			st = MODULE_BUILTIN;
		} else if (state == KMOD_MODULE_LIVE || state == KMOD_MODULE_COMING) {
			st = MODULE_ALREADY;
		} else {
			r = kmod_module_probe_insert_module(mod, KMOD_PROBE_IGNORE_COMMAND, NULL, NULL, NULL, NULL);
			if (r == 0) {
				st = MODULE_LOADED;
			} else if (r > 0) {
				/* positive: blacklisted; with an empty config only a
				 * modprobe.blacklist= on the kernel command line does that */
				st = MODULE_FAILED;
				err = -EPERM;
			} else {
				st = MODULE_FAILED;
				err = r;
			}
		}
		kmod_module_unref(mod);
		if (st != MODULE_FAILED)
			break;
	}
	o->status = st;
	o->error = st == MODULE_FAILED ? (err ? err : -EIO) : 0;
	o->ms = elapsed_ms(&t0);
}

static int outcome_to_errno(const struct module_outcome *o)
{
	if (o->status == MODULE_ABSENT)
		return -ENOENT;
	return o->status == MODULE_FAILED ? o->error : 0;
}

static struct module_outcome *grow(struct modules *m, size_t more)
{
	if (m->n + more > m->cap) {
		size_t cap = m->cap ? m->cap : 32;
		struct module_outcome *nv;

		while (cap < m->n + more)
			cap *= 2;
		nv = realloc(m->v, cap * sizeof(*nv));
		if (!nv)
			return NULL;
		m->v = nv;
		m->cap = cap;
	}
	return &m->v[m->n];
}

int modules_load(struct modules *m, const char *name, bool required)
{
	struct module_outcome *o = grow(m, 1);

	if (!o)
		return -ENOMEM;
	load_one(m, m->ctx, name, required, o);
	m->n++;
	return outcome_to_errno(o);
}

int modules_note_loaded(struct modules *m, const char *name)
{
	struct module_outcome *o = grow(m, 1);

	if (!o)
		return -ENOMEM;
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->status = MODULE_ALREADY;
	m->n++;
	return 0;
}

struct modules_batch {
	struct modules *m;
	const struct module_request *reqs;
	struct module_outcome *out;
	size_t n;
	atomic_size_t next;
	pthread_t tid[8];
	unsigned started;
};

static void *load_worker(void *arg)
{
	static const char *const no_config[] = { NULL };
	struct modules_batch *b = arg;
	/* libkmod contexts are not thread-safe: each worker opens its own */
	struct kmod_ctx *ctx = kmod_new(kmod_get_dirname(b->m->ctx), no_config);
	size_t i;

	if (ctx) {
		kmod_set_log_fn(ctx, kmod_log_bridge, NULL);
		if (b->m->have_index)
			kmod_load_resources(ctx);
	}
	while ((i = atomic_fetch_add(&b->next, 1)) < b->n) {
		if (!ctx) {
			memset(&b->out[i], 0, sizeof(b->out[i]));
			snprintf(b->out[i].name, sizeof(b->out[i].name), "%s", b->reqs[i].name);
			b->out[i].required = b->reqs[i].required;
			b->out[i].status = MODULE_FAILED;
			b->out[i].error = -ENOMEM;
			continue;
		}
		load_one(b->m, ctx, b->reqs[i].name, b->reqs[i].required, &b->out[i]);
	}
	kmod_unref(ctx);
	return NULL;
}

int modules_batch_start(struct modules *m, const struct module_request *reqs, size_t n, unsigned jobs,
			struct modules_batch **ret)
{
	struct modules_batch *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->out = calloc(n ? n : 1, sizeof(*b->out));
	if (!b->out) {
		free(b);
		return -ENOMEM;
	}
	b->m = m;
	b->reqs = reqs;
	b->n = n;
	atomic_init(&b->next, 0);
	if (jobs < 1)
		jobs = 1;
	if (jobs > ARRAY_SIZE(b->tid))
		jobs = ARRAY_SIZE(b->tid);
	for (unsigned t = 0; t < jobs; t++)
		if (pthread_create(&b->tid[b->started], NULL, load_worker, b) == 0)
			b->started++;
	if (b->started == 0)
		load_worker(b); /* no threads to be had: load here */
	*ret = b;
	return 0;
}

int modules_batch_wait(struct modules_batch *b)
{
	struct module_outcome *o;
	int r = 0;

	for (unsigned t = 0; t < b->started; t++)
		pthread_join(b->tid[t], NULL);
	o = grow(b->m, b->n);
	if (o) {
		memcpy(o, b->out, b->n * sizeof(*o));
		b->m->n += b->n;
	} else {
		r = -ENOMEM;
	}
	free(b->out);
	free(b);
	return r;
}

int modules_load_all(struct modules *m, const struct module_request *reqs, size_t n, unsigned jobs)
{
	struct modules_batch *b;
	int r = modules_batch_start(m, reqs, n, jobs, &b);

	return r < 0 ? r : modules_batch_wait(b);
}

json_t *modules_to_json(const struct modules *m)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < m->n; i++) {
		const struct module_outcome *o = &m->v[i];
		json_t *j = json_pack("{s:s, s:s, s:b, s:i}", "name", o->name, "status",
				      module_status_to_string(o->status), "required", o->required, "ms", (int)o->ms);

		if (j && o->error)
			json_object_set_new(j, "error", json_string(strerror(-o->error)));
		json_array_append_new(a, j);
	}
	return a;
}

char *modules_failed_required(const struct modules *m)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < m->n; i++) {
		const struct module_outcome *o = &m->v[i];

		if (o->required && (o->status == MODULE_FAILED || o->status == MODULE_ABSENT))
			fprintf(f, "%s%s (%s)", len || ftell(f) ? ", " : "", o->name,
				o->error ? strerror(-o->error) : module_status_to_string(o->status));
	}
	fclose(f);
	if (s && !*s) {
		free(s);
		s = NULL;
	}
	return s;
}

int modules_load_now(const char *name)
{
	struct modules *m = NULL;
	struct utsname u;
	int r;

	if (uname(&u) < 0)
		return -errno;
	r = modules_new("", u.release, &m);
	if (r == 0)
		r = modules_load(m, name, true);
	modules_free(m);
	return r;
}
