// SPDX-License-Identifier: MIT
/*
 * PID 1 (see pid1.h). The boot is a straight sequence of steps; between
 * steps pending signals are taken from a signalfd and zombies are swept, so
 * no asynchronous handler ever runs. Every path ends in pid1_finish().
 */
#include "boot/pid1.h"
#include "boot/config.h"
#include "model/frame.h"
#include "machine/inventory.h"
#include "machine/modules.h"
#include "machine/mount.h"
#include "util/proc.h"
#include "boot/results.h"
#include "run/runner.h"
#include "boot/session.h"
#include "boot/switchroot.h"
#include "boot/udev.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/sysroot.h"
#include "util/version.h"

#include <dirent.h>
#include <limits.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

#define MAX_EVENTS 32

static struct {
	int sigfd;
	int console;
	struct boot_config cfg;
	char cfg_error[256];
	struct modules *mods;
	struct inventory inv;
	bool have_inv;
	bool results_mounted;
	json_t *mounts;
	json_t *errors;
	json_t *udev;
	struct {
		const char *event;
		long ms;
	} timeline[MAX_EVENTS];
	size_t n_events;
	const char *stop_reason; /* set by a signal */
} g = { .sigfd = -1, .console = -1 };

static long boottime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static _noreturn_ void pid1_fatal(const char *fmt, ...) _printf_(1, 2);

/* Add an event to the timeline, kept in time order: udev's comes when it is read. */
static void mark_at(const char *event, long ms)
{
	if (g.n_events < MAX_EVENTS) {
		size_t i = g.n_events;

		for (; i > 0 && g.timeline[i - 1].ms > ms; i--)
			g.timeline[i] = g.timeline[i - 1];
		g.timeline[i].event = event;
		g.timeline[i].ms = ms;
		g.n_events++;
	}
	log_info("%s at %ld ms", event, ms);
}

static void mark(const char *event)
{
	mark_at(event, boottime_ms());
}

static void record_error(const char *fmt, ...) _printf_(1, 2);
static void record_error(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(g.errors, json_string(buf));
}

/* ---- signals and zombies ------------------------------------------------ */

static void sweep_zombies(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static void setup_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	g.sigfd = signalfd(-1, &all, SFD_CLOEXEC | SFD_NONBLOCK);
	/* ctrl-alt-del becomes SIGINT to us instead of an instant reboot */
	reboot(RB_DISABLE_CAD);
}

/* Take pending signals; returns true when one asks us to stop. */
static bool poll_signals(void)
{
	struct signalfd_siginfo si;

	while (g.sigfd >= 0 && read(g.sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			break;
		case SIGINT:
			g.stop_reason = "ctrl-alt-del (SIGINT)";
			break;
		case SIGTERM:
			g.stop_reason = "SIGTERM";
			break;
		case SIGPWR:
			g.stop_reason = "power failure signal (SIGPWR)";
			break;
		default:
			log_debug("signal %u ignored", si.ssi_signo);
		}
	}
	sweep_zombies();
	return g.stop_reason != NULL;
}

/* ---- early user space ---------------------------------------------------- */

struct early_mount {
	const char *fstype, *target;
	unsigned long flags;
	const char *data;
};

static const struct early_mount early_mounts[] = {
	{ "proc", "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "sysfs", "/sys", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "devtmpfs", "/dev", MS_NOSUID, "mode=0755" },
	{ "devpts", "/dev/pts", MS_NOSUID | MS_NOEXEC, "gid=5,mode=620,ptmxmode=000" },
	{ "tmpfs", "/dev/shm", MS_NOSUID | MS_NODEV, "mode=1777" },
	{ "tmpfs", "/run", MS_NOSUID | MS_NODEV, "mode=0755" },
	{ "tmpfs", "/tmp", MS_NOSUID | MS_NODEV, "mode=1777" },
	{ "debugfs", "/sys/kernel/debug", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "tracefs", "/sys/kernel/tracing", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "configfs", "/sys/kernel/config", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "cgroup2", "/sys/fs/cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC, "nsdelegate" },
	/* what a crashed kernel left in ramoops: read when a run resumes */
	{ "pstore", "/sys/fs/pstore", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
};

static bool fs_in_kernel(const char *fstype)
{
	_cleanup_free_ char *fs = NULL;
	char needle[64];

	if (fileio_read_full("/proc/filesystems", &fs, NULL) < 0)
		return true; /* cannot tell before /proc is up: try */
	snprintf(needle, sizeof(needle), "\t%s\n", fstype);
	return strstr(fs, needle) != NULL;
}

/* Whether path is a mount point (its device differs from its parent's). */
static bool is_mount_point(const char *path)
{
	char parent[PATH_MAX];
	struct stat a, b;

	snprintf(parent, sizeof(parent), "%s/..", path);
	return stat(path, &a) == 0 && stat(parent, &b) == 0 && a.st_dev != b.st_dev;
}

static void do_early_mounts(void)
{
	g.mounts = json_array();
	for (size_t i = 0; i < ARRAY_SIZE(early_mounts); i++) {
		const struct early_mount *m = &early_mounts[i];
		const char *status = "mounted";
		int e = 0;

		if (!fs_in_kernel(m->fstype)) {
			status = "skipped: not in kernel";
		} else if (is_mount_point(m->target)) {
			/* brought along from fsagent's initramfs */
			status = "already mounted";
		} else {
			fileio_mkdir_p(m->target);
			if (mount(m->fstype, m->target, m->fstype, m->flags, m->data) < 0) {
				e = errno;
				status = e == EBUSY ? "already mounted" : "failed";
			}
		}
		if (e && e != EBUSY)
			log_warn("mount '%s' on '%s' failed: %s, ignoring", m->fstype, m->target,
				 strerror(e));
		json_array_append_new(g.mounts, json_pack("{s:s, s:s, s:s}", "target", m->target,
							  "fstype", m->fstype, "status", status));
	}
}

/*
 * Without /dev/console in the initramfs the kernel starts us with fds 0-2
 * closed, so this runs before anything else opens a file: the console then
 * lands on fd 0 and is copied to 1 and 2, never over a descriptor in use.
 */
static void setup_console(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return; /* keep whatever the kernel gave us */
	/* children inherit 0-2 on the console; our own copy stays close-on-exec */
	for (int i = 0; i <= 2; i++)
		if (fd != i)
			dup2(fd, i);
	g.console = fd;
	log_setup(fd, LOG_LVL_INFO);
}

static void setup_environment(void)
{
	clearenv();
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("HOME", "/root", 1);
	setenv("LANG", "C.UTF-8", 1);
	setenv("TERM", "linux", 1);
	setenv("SHELL", "/bin/sh", 1);
	setenv("USER", "root", 1);
	umask(022);
	if (chdir("/") < 0) {
		/* / always exists */
	}
}

static void setup_mtab(void)
{
	fileio_mkdir_p("/etc");
	if (symlink("/proc/self/mounts", "/etc/mtab") < 0 && errno != EEXIST)
		record_error("link '/etc/mtab' failed: %s", strerror(errno));
}

static int loopback_up(void)
{
	_cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = { 0 };

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		return -errno;
	return 0;
}

/* ---- modules and devices ------------------------------------------------ */

/*
 * Drivers that make disks appear, loaded for the devices present that want
 * them (by modalias, as udev's coldplug would, but only these): probing
 * nothing costs time too under TCG. Absent ones are recorded, never fatal.
 */
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

/*
 * Modules tests want (loop, device-mapper targets) are not loaded here:
 * fstests' _require_loop and _require_dm_target modprobe them, and loading
 * them at boot cost a third of a second of CPU under TCG.
 */
static struct {
	struct module_request reqs[64];
	char fs[256], required[256];
	struct modules_batch *batch;
} later;

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

/* FSAGENT_INITRAMFS's list of the drivers the initramfs stage loaded, '+' separated */
static char stage1_drivers[200];

static size_t driver_index(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(driver_modules); i++)
		if (streq(driver_modules[i], name))
			return i;
	return ARRAY_SIZE(driver_modules);
}

/*
 * Load the drivers the present devices want, in rounds: virtio_pci's
 * binding makes the virtio devices that want virtio_blk appear. Without
 * module indexes (everything built in) the whole list is recorded.
 */
static void load_driver_modules(void)
{
	struct module_request reqs[ARRAY_SIZE(driver_modules)];
	bool want[ARRAY_SIZE(driver_modules)], done[ARRAY_SIZE(driver_modules)] = { false };
	size_t n;

	if (stage1_drivers[0]) {
		/* the initramfs stage probed the devices: record what it loaded */
		char *save = NULL;

		for (char *t = strtok_r(stage1_drivers, "+", &save); t; t = strtok_r(NULL, "+", &save))
			if (driver_index(t) < ARRAY_SIZE(driver_modules))
				modules_note_loaded(g.mods, t);
		return;
	}
	if (!modules_have_index(g.mods)) {
		for (n = 0; n < ARRAY_SIZE(driver_modules); n++)
			reqs[n] = (struct module_request){ driver_modules[n], false };
		modules_load_all(g.mods, reqs, n, loader_threads());
		return;
	}
	for (int round = 0; round < 3; round++) {
		if (modules_wanted_by_devices(g.mods, driver_buses, driver_modules, ARRAY_SIZE(driver_modules), want) < 0)
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
		modules_load_all(g.mods, reqs, n, loader_threads());
	}
}

/* Open the module directory of the running kernel into g.mods. */
static void open_modules(const char *release)
{
	int r = modules_new("", release, &g.mods);

	if (r < 0)
		record_error("open module directory '/lib/modules/%s' failed: %s", release,
			     strerror(-r));
}

/* Filesystems (ext4 for the results disk, the run's), in the background. */
static void start_other_modules(const char *cmdline)
{
	struct module_request *reqs = later.reqs;
	const size_t max = ARRAY_SIZE(later.reqs);
	size_t n = 0;

	if (!g.mods)
		return;
	snprintf(later.fs, sizeof(later.fs), "%s", g.cfg.fs ? g.cfg.fs : "");
	snprintf(later.required, sizeof(later.required), "%s", g.cfg.modules ? g.cfg.modules : "");
	/* big filesystem modules first so the loaders finish together */
	reqs[n++] = (struct module_request){ "ext4", true };
	n = add_list(reqs, n, max, later.fs, false);
	n = add_list(reqs, n, max, later.required, true);
	/* a ramoops region on the command line: the crashed boot's log is in it */
	if (cmdline && strstr(cmdline, "ramoops.mem_address=") && n < max)
		reqs[n++] = (struct module_request){ "ramoops", false };
	if (modules_batch_start(g.mods, reqs, n, loader_threads(), &later.batch) < 0) {
		later.batch = NULL;
		modules_load_all(g.mods, reqs, n, 1);
	}
}

static void wait_other_modules(void)
{
	if (later.batch)
		modules_batch_wait(later.batch);
	later.batch = NULL;
}

static unsigned count_block_devices(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* NVMe controllers must be live and have scanned their namespaces. */
static bool nvme_pending(void)
{
	DIR *d = opendir("/sys/class/nvme");
	struct dirent *de;
	bool pending = false;

	if (!d)
		return false;
	while (!pending && (de = readdir(d))) {
		_cleanup_free_ char *state = NULL;
		char path[300];
		DIR *c;
		struct dirent *ce;
		bool ns = false;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/nvme/%s/state", de->d_name);
		if (fileio_read_line(path, &state) < 0 || !streq(state, "live")) {
			pending = true;
			break;
		}
		snprintf(path, sizeof(path), "/sys/class/nvme/%s", de->d_name);
		c = opendir(path);
		while (c && (ce = readdir(c)))
			if ((startswith(ce->d_name, "nvme") || startswith(ce->d_name, "ng")) &&
			    strchr(ce->d_name, 'n') != strrchr(ce->d_name, 'n'))
				ns = true;
		if (c)
			closedir(c);
		pending = !ns;
	}
	closedir(d);
	return pending;
}

/*
 * Drivers such as nvme and libnvdimm probe asynchronously: wait until NVMe
 * controllers are live with namespaces and the set of block devices has been
 * stable for 200 ms, at most 5 s.
 */
static void wait_devices_settled(void)
{
	long deadline = boottime_ms() + 5000, stable_since = boottime_ms();
	unsigned last = count_block_devices();
	bool async = false;

	for (size_t i = 0; g.mods && i < ARRAY_SIZE(async_drivers); i++)
		async |= modules_usable(g.mods, async_drivers[i]);
	if (!async)
		return; /* virtio_blk's disks exist when its probe returns */

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
			return;
	}
	record_error("devices still changing after 5 s, going on");
}

/*
 * udev starts as early as it can and settles while the drivers, the
 * inventory and the results disk get done (see udev.h): the initramfs stage
 * starts it once the root disk is / and hands the helper's pipe over.
 */
static int udev_fd = -1;

static void udev_start(void)
{
	const char *udevd = udev_find_daemon();
	int r;

	if (udev_fd >= 0)
		return; /* the initramfs stage's helper */
	if (g.cfg.udev == UDEV_OFF || !udevd) {
		if (g.cfg.udev == UDEV_ON)
			record_error("fsagent.udev=1 but systemd-udevd is not in the image");
		g.udev = json_pack("{s:b}", "used", false);
		return;
	}
	r = udev_begin(udevd, 40000, false, &udev_fd);
	if (r < 0) {
		record_error("udev start failed (%s), going on without it", strerror(-r));
		g.udev = json_pack("{s:b, s:s}", "used", false, "error", "start failed");
	}
}

/*
 * Wait for udev to settle (the session reads its plan meanwhile) and give
 * PID 1 its priority back; once, whoever calls first.
 */
static void udev_wait(void)
{
	const char *what = NULL;
	long settled = 0;
	int r;

	if (udev_fd < 0)
		return;
	r = udev_end(udev_fd, &settled, &what);
	udev_fd = -1;
	if (setpriority(PRIO_PROCESS, 0, 0) < 0)
		record_error("restore PID 1's priority failed: %s", strerror(errno));
	if (r < 0) {
		record_error("udev start failed (%s: %s), going on without it", what,
			     r == -ECHILD ? "exited non-zero" : strerror(-r));
		g.udev = json_pack("{s:b, s:s}", "used", false, "error", "start failed");
		return;
	}
	g.udev = json_pack("{s:b}", "used", true);
	mark_at("udev_settled", settled);
}

/* The inventory, its roles as the command line asks. */
static int build_inventory(void)
{
	struct roles_request req = boot_config_roles(&g.cfg, NULL);

	return inventory_build(g.mods, &req, &g.inv);
}

/* Devices and roles again, with the claims ledger when there is one. */
static void update_inventory(const char *const *claims)
{
	struct roles_request req = boot_config_roles(&g.cfg, claims);

	inventory_update(&g.inv, &req);
}

/*
 * fsagent.root= from the initramfs: load the root's filesystem, find the
 * disk, and go on as PID 1 of the root disk, with udev starting there. While
 * ext4 loads (the longest step here, a CPU idle meanwhile) the inventory is
 * built: every disk is there. Returns when this process goes on as the
 * root's PID 1 (its /sbin/fsagent is this build); execs it otherwise.
 */
static void switch_root(long started)
{
	static const struct module_request fs[] = { { "ext4", true } };
	const char *targets[ARRAY_SIZE(early_mounts)];
	struct modules_batch *batch = NULL;
	char env[256], udev_env[64], err[512];
	char *envp[] = { env, NULL, NULL };
	const char *udevd;
	int r, fd;

	for (size_t i = 0; i < ARRAY_SIZE(early_mounts); i++)
		targets[i] = early_mounts[i].target;
	if (g.mods && modules_batch_start(g.mods, fs, ARRAY_SIZE(fs), 1, &batch) < 0)
		batch = NULL;
	if (g.mods)
		load_driver_modules();
	wait_devices_settled();
	g.have_inv = build_inventory() == 0;
	if (batch)
		modules_batch_wait(batch);
	snprintf(env, sizeof(env), SWITCHROOT_ENV "=%ld,%ld,", started, boottime_ms());
	/* the drivers this stage loaded: the next one records them instead of probing again */
	for (size_t i = 0; g.mods && i < ARRAY_SIZE(driver_modules); i++)
		if (modules_usable(g.mods, driver_modules[i]) && strlen(env) + 32 < sizeof(env))
			snprintf(env + strlen(env), sizeof(env) - strlen(env), "%s+", driver_modules[i]);
	log_info("switching to the root disk %s", g.cfg.root);
	r = switchroot_enter(g.cfg.root, 10000, targets, ARRAY_SIZE(targets), err, sizeof(err));
	if (r < 0)
		pid1_fatal("fsagent.root=%s: %s (%s)", g.cfg.root, err, strerror(-r));
	udevd = udev_find_daemon();
	if (switchroot_same_init()) {
		/* the same build: on in this process, the inventory and the drivers' list along */
		snprintf(stage1_drivers, sizeof(stage1_drivers), "%s", strchr(strchr(env, ',') + 1, ',') + 1);
		g.timeline[0].event = "initramfs_start";
		mark("switch_root");
		if (g.cfg.udev != UDEV_OFF && udevd && udev_begin(udevd, 40000, false, &fd) == 0)
			udev_fd = fd;
		return;
	}
	/* udev's start is the longest step of the next stage: it goes now */
	if (g.have_inv)
		inventory_release(&g.inv);
	g.have_inv = false;
	if (g.cfg.udev != UDEV_OFF && udevd && udev_begin(udevd, 40000, true, &fd) == 0) {
		snprintf(udev_env, sizeof(udev_env), UDEV_FD_ENV "=%d", fd);
		envp[1] = udev_env;
	}
	r = switchroot_exec(envp, err, sizeof(err));
	pid1_fatal("fsagent.root=%s: %s (%s)", g.cfg.root, err, strerror(-r));
}

/* Make the /dev/disk/by-id names udev makes (it replaces them with the same). */
static void make_by_id_links(void)
{
	fileio_mkdir_p("/dev/disk/by-id");
	for (size_t i = 0; i < g.inv.devs.n; i++) {
		struct device *d = &g.inv.devs.v[i];
		char name[200], link[300], target[NAME_MAX + 8];

		if (d->by_id || device_udev_id_name(d, name, sizeof(name)) < 0)
			continue;
		snprintf(link, sizeof(link), "/dev/disk/by-id/%s", name);
		snprintf(target, sizeof(target), "../../%s", d->name);
		if (symlink(target, link) == 0 || errno == EEXIST)
			d->by_id = strdup(link);
	}
}

/* ---- results and the end ------------------------------------------------ */

static json_t *timeline_json(void)
{
	json_t *a = json_array();

	for (size_t i = 0; i < g.n_events; i++)
		json_array_append_new(a, json_pack("{s:s, s:I}", "event", g.timeline[i].event,
						   "ms", (json_int_t)g.timeline[i].ms));
	return a;
}

/*
 * caps.json to the results disk, and with frame to the console too: once,
 * at the end (11 KB through the serial port cost ~70 ms under TCG).
 */
static void write_documents(const char *fatal, bool frame)
{
	json_t *doc = g.have_inv ? g.inv.doc : NULL;
	_cleanup_free_ char *text = NULL;
	int r;

	if (!doc)
		return;
	json_object_set_new(doc, "modules", g.mods ? modules_to_json(g.mods) : json_array());
	json_object_set(doc, "early_mounts", g.mounts);
	json_object_set(doc, "udev", g.udev ? g.udev : json_null());
	json_object_set(doc, "errors", g.errors);
	json_object_set_new(doc, "fatal", fatal ? json_string(fatal) : json_null());
	json_object_set_new(doc, "timeline", timeline_json());
	json_object_set_new(doc, "agent", json_pack("{s:s, s:I}", "version", fsagent_version,
						    "peak_rss_kb", (json_int_t)fileio_peak_rss_kb()));
	if (g.results_mounted) {
		r = results_write_json(RESULTS_MNT, "caps.json", doc);
		if (r < 0)
			log_err("write '%s/caps.json' failed: %s", RESULTS_MNT, strerror(-r));
		if (fatal) {
			json_auto_t *f = json_pack("{s:s, s:s, s:s}", "schema", "fsagent-fatal/1",
						   "fsagent_version", fsagent_version, "error",
						   fatal);
			r = results_write_json(RESULTS_MNT, "fatal.json", f);
			if (r < 0)
				log_err("write '%s/fatal.json' failed: %s", RESULTS_MNT,
					strerror(-r));
		}
	}
	if (!frame)
		return;
	text = json_dumps(doc, JSON_INDENT(2));
	if (text)
		frame_write(g.console >= 0 ? g.console : STDOUT_FILENO, "caps.json", text,
			    strlen(text));
}

/* what the run session ended with, for the final status line */
static char session_summary[512];
static int session_status;

static _noreturn_ void pid1_finish(const char *fatal)
{
	enum boot_action action = g.cfg.buf ? g.cfg.action : ACTION_POWEROFF;
	int cmd = action == ACTION_REBOOT ? RB_AUTOBOOT
		  : action == ACTION_HALT ? RB_HALT_SYSTEM
					  : RB_POWER_OFF;
	struct timespec ts = { 0, 200 * 1000000 };

	mark("shutdown");
	write_documents(fatal, true);
	/* stop what we started (udevd and anything it forked) */
	kill(-1, SIGTERM);
	nanosleep(&ts, NULL);
	kill(-1, SIGKILL);
	sweep_zombies();
	sync();
	if (g.results_mounted && mount_umount(RESULTS_MNT) < 0)
		log_warn("unmount '%s' failed, ignoring", RESULTS_MNT);
	sync();
	/* the one final status line the host looks for */
	if (fatal)
		dprintf(g.console >= 0 ? g.console : STDERR_FILENO,
			"fsagent: final status: FATAL: %s; %s at %ld ms\n", fatal,
			boot_action_to_string(action), boottime_ms());
	else if (session_status > 0)
		dprintf(g.console >= 0 ? g.console : STDERR_FILENO,
			"fsagent: final status: TESTS FAILED: %s; %s at %ld ms\n", session_summary,
			boot_action_to_string(action), boottime_ms());
	else
		dprintf(g.console >= 0 ? g.console : STDERR_FILENO,
			"fsagent: final status: OK%s%s; %s at %ld ms\n", session_summary[0] ? ": " : "",
			session_summary, boot_action_to_string(action), boottime_ms());
	reboot(cmd);
	/* reboot(2) only returns on failure; PID 1 must not exit */
	for (;;)
		pause();
}

static _noreturn_ void pid1_fatal(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_err("%s", buf);
	pid1_finish(buf);
}

static void mount_results(void)
{
	const struct role_slot *res = roles_get(&g.inv.roles, ROLE_RESULTS);
	char err[256] = "";
	char **claims = NULL;
	int r;

	if (!res)
		return;
	/* ext4 made by mkfs on a file: no inode table zeroing in the background during the run */
	r = mount_device(res->dev->devnode, RESULTS_MNT, res->dev->fstype,
			 res->dev->fstype && streq(res->dev->fstype, "ext4") ? "noatime,noinit_itable" : "noatime");
	if (r < 0) {
		record_error("mount results disk '%s' failed: %s", res->dev->devnode, strerror(-r));
		return;
	}
	g.results_mounted = true;
	r = results_read_claims(RESULTS_MNT, &claims, err, sizeof(err));
	if (r < 0) {
		/* no ledger means more refusals, never fewer: safe to go on */
		record_error("%s; foreign devices are refused and the ledger is left as it is", err);
		return;
	}
	update_inventory((const char *const *)claims);
	results_claims_free(claims);
	r = results_write_claims(RESULTS_MNT, &g.inv.roles);
	if (r < 0)
		record_error("write '%s/claims.json' failed: %s", RESULTS_MNT, strerror(-r));
}

_noreturn_ void pid1_main(void)
{
	_cleanup_free_ char *cmdline = NULL, *missing = NULL;
	struct utsname u;
	int r;

	{
		/* the initramfs stage's times, when it handed over to us */
		const char *stage1 = getenv(SWITCHROOT_ENV);
		long start, sw;
		int end = 0;

		if (stage1 && sscanf(stage1, "%ld,%ld,%n", &start, &sw, &end) == 2 && end > 0) {
			snprintf(stage1_drivers, sizeof(stage1_drivers), "%s", stage1 + end);
			mark_at("initramfs_start", start);
			mark_at("switch_root", sw);
		}
		/* its udev helper's pipe, if it started one */
		stage1 = getenv(UDEV_FD_ENV);
		if (stage1 && sscanf(stage1, "%d", &udev_fd) == 1 && fcntl(udev_fd, F_SETFD, FD_CLOEXEC) < 0)
			udev_fd = -1;
	}
	mark("fsagent_start");
	g.errors = json_array();
	do_early_mounts();
	setup_console();
	setup_signals();
	log_info("fsagent %s starting as init", fsagent_version);
	setup_environment();
	setup_mtab();
	mark("early_mounts_done");

	fileio_read_line("/proc/cmdline", &cmdline);
	r = config_parse_cmdline(cmdline, &g.cfg, g.cfg_error, sizeof(g.cfg_error));
	if (r < 0) {
		/* still find the results disk with default roles to report the error */
		log_err("kernel command line: %s", g.cfg_error);
		config_parse_cmdline("", &g.cfg, NULL, 0);
	}
	log_setup(g.console >= 0 ? g.console : STDERR_FILENO, (enum log_level)g.cfg.loglevel);

	uname(&u);
	/* the initramfs stage does only what finding the root disk needs */
	if (g.cfg.root && switchroot_on_initramfs("")) {
		open_modules(u.release);
		switch_root(g.timeline[0].ms);
		/* on as the root's PID 1: its /etc, its module directory */
		setup_mtab();
		modules_free(g.mods);
		g.mods = NULL;
	}
	/* udev's start is the longest step from here: it goes first */
	udev_start();
	/*
	 * udev settling is the longest step of this stage and what follows
	 * has time to spare: PID 1 yields the CPUs to it until it settles
	 * (under TCG: udev settled 0.49 s after stage 2 began instead of 0.55,
	 * medians of eight boots)
	 */
	if (udev_fd >= 0 && setpriority(PRIO_PROCESS, 0, 10) < 0)
		log_debug("nice 10 while udev settles failed: %s", strerror(errno));
	if (sethostname(g.cfg.hostname ? g.cfg.hostname : "fsagent",
			strlen(g.cfg.hostname ? g.cfg.hostname : "fsagent")) < 0)
		record_error("set hostname failed: %s", strerror(errno));
	r = loopback_up();
	if (r < 0)
		record_error("bring up 'lo' failed: %s", strerror(-r));
	if (poll_signals())
		pid1_fatal("stopped by %s during early boot", g.stop_reason);
	open_modules(u.release);
	if (g.mods)
		load_driver_modules();
	start_other_modules(cmdline);
	if (!g.have_inv)
		wait_devices_settled();
	mark("drivers_ready");

	if (g.have_inv) {
		/* the initramfs stage's inventory: the root disk is mounted now */
		g.inv.mods = g.mods;
		devices_mark_mounted(&g.inv.devs);
	} else {
		r = build_inventory();
		if (r < 0) {
			wait_other_modules();
			pid1_fatal("inventory failed: %s", strerror(-r));
		}
		g.have_inv = true;
	}
	/* the names udev makes too, so that roles given by id resolve before it settles */
	make_by_id_links();
	mark("inventory_done");
	wait_other_modules();
	mark("modules_loaded");
	update_inventory(NULL);
	if (poll_signals())
		pid1_fatal("stopped by %s while loading modules", g.stop_reason);
	mount_results();
	mark("devices_ready");

	if (g.cfg_error[0])
		pid1_fatal("kernel command line: %s", g.cfg_error);
	missing = g.mods ? modules_failed_required(g.mods) : NULL;
	if (missing)
		pid1_fatal("required module(s) not usable: %s", missing);
	if (!g.results_mounted)
		pid1_fatal("no results disk (a disk with serial or label 'fsagent-results', or "
			   "fsagent.dev.results=)");
	if (poll_signals())
		pid1_fatal("stopped by %s", g.stop_reason);

	/* caps.json first: whatever the run does, the inventory is on the disk */
	write_documents(NULL, false);
	r = session_run(&g.cfg, &g.inv, RESULTS_MNT, udev_wait, session_summary, sizeof(session_summary));
	/* no run (or none that got that far): settled all the same */
	udev_wait();
	mark("run_done");
	if (r < 0)
		pid1_fatal("run: %s", session_summary);
	if (r == RUNNER_UNKILLABLE) {
		/* a test stuck in the kernel survived SIGKILL: reboot, the next boot resumes */
		g.cfg.action = ACTION_REBOOT;
		snprintf(session_summary + strlen(session_summary),
			 sizeof(session_summary) - strlen(session_summary),
			 "; rebooting to resume after an unkillable test");
		r = SESSION_FAILED;
	}
	session_status = r;
	pid1_finish(NULL);
}
