// SPDX-License-Identifier: MIT
/*
 * PID 1 (see pid1.h): the boot as a straight sequence of steps. Between
 * steps pending signals are taken from a signalfd and zombies are swept, so
 * no asynchronous handler ever runs. Every path ends in finish_boot().
 */
#include "boot/pid1.h"
#include "boot/early.h"
#include "boot/finish.h"
#include "boot/handoff.h"
#include "boot/results.h"
#include "boot/session.h"
#include "boot/state.h"
#include "boot/switchroot.h"
#include "boot/udev.h"
#include "machine/mount.h"
#include "machine/pmem.h"
#include "machine/static_nodes.h"
#include "run/runner.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/proc.h"
#include "util/version.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <unistd.h>

static struct boot_state g = { .sigfd = -1, .console = -1, .udev_fd = -1 };

/* ---- signals ------------------------------------------------------------ */

static void setup_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	g.sigfd = signalfd(-1, &all, SFD_CLOEXEC | SFD_NONBLOCK);
	/* ctrl-alt-del becomes SIGINT to us instead of an instant reboot */
	reboot(RB_DISABLE_CAD);
}

/* Take pending signals and reap zombies; returns true when a signal asks us to stop. */
static bool poll_signals(void)
{
	struct signalfd_siginfo si;

	while (g.sigfd >= 0 && read(g.sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD: break;
		case SIGINT: g.stop_reason = "ctrl-alt-del (SIGINT)"; break;
		case SIGTERM: g.stop_reason = "SIGTERM"; break;
		case SIGPWR: g.stop_reason = "power failure signal (SIGPWR)"; break;
		default: log_debug("signal %u ignored", si.ssi_signo);
		}
	}
	proc_reap_exited();
	return g.stop_reason != NULL;
}

/* ---- modules, udev, devices --------------------------------------------- */

/* Open the module directory of the running kernel into g.mods. */
static void open_modules(const char *release)
{
	int r = modules_new("", release, &g.mods);

	if (r < 0)
		boot_record_error(&g, "open module directory '/lib/modules/%s' failed: %s", release, strerror(-r));
	g.drivers.mods = g.mods;
}

static void settle_devices(void)
{
	if (drivers_settle(&g.drivers) < 0)
		boot_record_error(&g, "devices still changing after 5 s, going on");
}

/*
 * udev starts as early as it can and settles while the drivers, the
 * inventory and the results disk get done (see udev.h): the initramfs stage
 * starts it once the root disk is / and hands the helper's pipe over.
 */
static void udev_start(void)
{
	const char *udevd = udev_find_daemon();
	int r;

	if (g.udev_fd >= 0)
		return; /* the initramfs stage's helper */
	if (g.cfg.udev == UDEV_OFF || !udevd) {
		if (g.cfg.udev == UDEV_ON)
			boot_record_error(&g, "fsagent.udev=1 but systemd-udevd is not in the image");
		g.udev = json_pack("{s:b}", "used", false);
		return;
	}
	r = udev_begin(udevd, 40000, false, &g.udev_fd);
	if (r < 0) {
		boot_record_error(&g, "udev start failed (%s), going on without it", strerror(-r));
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

	if (g.udev_fd < 0)
		return;
	r = udev_end(g.udev_fd, &settled, &what);
	g.udev_fd = -1;
	if (setpriority(PRIO_PROCESS, 0, 0) < 0)
		boot_record_error(&g, "restore PID 1's priority failed: %s", strerror(errno));
	if (r < 0) {
		boot_record_error(&g, "udev start failed (%s: %s), going on without it", what,
				  r == -ECHILD ? "exited non-zero" : strerror(-r));
		g.udev = json_pack("{s:b, s:s}", "used", false, "error", "start failed");
		return;
	}
	g.udev = json_pack("{s:b}", "used", true);
	timeline_mark_at(&g.timeline, "udev_settled", settled);
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
		boot_record_error(&g, "mount results disk '%s' failed: %s", res->dev->devnode, strerror(-r));
		return;
	}
	g.results_mounted = true;
	r = results_read_claims(RESULTS_MNT, &claims, err, sizeof(err));
	if (r < 0) {
		/* no ledger means more refusals, never fewer: safe to go on */
		boot_record_error(&g, "%s; foreign devices are refused and the ledger is left as it is", err);
		return;
	}
	update_inventory((const char *const *)claims);
	results_claims_free(claims);
	r = results_write_claims(RESULTS_MNT, &g.inv.roles);
	if (r < 0)
		boot_record_error(&g, "write '%s/claims.json' failed: %s", RESULTS_MNT, strerror(-r));
}

/* ---- the initramfs stage ------------------------------------------------ */

/*
 * fsagent.root= from the initramfs: load the root's filesystem, find the
 * disk, and go on as PID 1 of the root disk, with udev starting there. While
 * ext4 loads (the longest step here, a CPU idle meanwhile) the inventory is
 * built: every disk is there. Returns when this process goes on as the
 * root's PID 1 (its /sbin/fsagent is this build); execs it otherwise.
 */
static void switch_root(void)
{
	static const struct module_request fs[] = { { "ext4", true } };
	const char *targets[32];
	size_t n_targets = early_mount_targets(targets, ARRAY_SIZE(targets));
	struct handoff h = { .start_ms = g.timeline.v[0].ms };
	struct modules_batch *batch = NULL;
	char env[sizeof(HANDOFF_ENV) + 48 + HANDOFF_DRIVERS_MAX], udev_env[64], err[512];
	char *envp[3] = { NULL };
	size_t n_env = 0;
	const char *udevd;
	int r, fd;

	if (g.mods && modules_batch_start(g.mods, fs, ARRAY_SIZE(fs), 1, &batch) < 0)
		batch = NULL;
	drivers_load_disk(&g.drivers);
	settle_devices();
	g.have_inv = build_inventory() == 0;
	if (batch)
		modules_batch_wait(batch);
	h.switch_ms = boottime_ms();
	/* the drivers this stage loaded: the next one records them instead of probing again */
	drivers_to_handoff(&g.drivers, &h);
	log_info("switching to the root disk %s", g.cfg.root);
	r = switchroot_enter(g.cfg.root, 10000, targets, n_targets, err, sizeof(err));
	if (r < 0)
		finish_fatal(&g, "fsagent.root=%s: %s (%s)", g.cfg.root, err, strerror(-r));
	udevd = udev_find_daemon();
	if (switchroot_same_init()) {
		/* the same build: on in this process, the inventory and the drivers' list along */
		snprintf(g.drivers.stage1, sizeof(g.drivers.stage1), "%s", h.drivers);
		g.timeline.v[0].event = "initramfs_start";
		timeline_mark(&g.timeline, "switch_root");
		if (g.cfg.udev != UDEV_OFF && udevd && udev_begin(udevd, 40000, false, &fd) == 0)
			g.udev_fd = fd;
		return;
	}
	/* udev's start is the longest step of the next stage: it goes now */
	if (g.have_inv)
		inventory_release(&g.inv);
	g.have_inv = false;
	/* the buffer holds the largest value: encoding cannot fail */
	memcpy(env, HANDOFF_ENV "=", sizeof(HANDOFF_ENV));
	if (handoff_encode(&h, env + sizeof(HANDOFF_ENV), sizeof(env) - sizeof(HANDOFF_ENV)) == 0)
		envp[n_env++] = env;
	if (g.cfg.udev != UDEV_OFF && udevd && udev_begin(udevd, 40000, true, &fd) == 0) {
		snprintf(udev_env, sizeof(udev_env), HANDOFF_UDEV_FD_ENV "=%d", fd);
		envp[n_env++] = udev_env;
	}
	r = switchroot_exec(envp, err, sizeof(err));
	finish_fatal(&g, "fsagent.root=%s: %s (%s)", g.cfg.root, err, strerror(-r));
}

/* The initramfs stage's hand-off, when it exec'd us: its times, drivers and udev helper. */
static void take_handoff(void)
{
	struct handoff h;

	if (handoff_decode(getenv(HANDOFF_ENV), &h) == 0) {
		snprintf(g.drivers.stage1, sizeof(g.drivers.stage1), "%s", h.drivers);
		timeline_mark_at(&g.timeline, "initramfs_start", h.start_ms);
		timeline_mark_at(&g.timeline, "switch_root", h.switch_ms);
	}
	if (handoff_decode_fd(getenv(HANDOFF_UDEV_FD_ENV), &g.udev_fd) < 0 || fcntl(g.udev_fd, F_SETFD, FD_CLOEXEC) < 0)
		g.udev_fd = -1;
}

/* ---- the sequence ------------------------------------------------------- */

/* Early user space, the console and the command line: what every later step logs and reads. */
static void boot_early(char **cmdline)
{
	int r;

	take_handoff();
	timeline_mark(&g.timeline, "fsagent_start");
	g.errors = json_array();
	g.mounts = early_mount_all();
	g.console = early_console();
	setup_signals();
	log_info("fsagent %s starting as init", fsagent_version);
	early_environment();
	r = early_mtab();
	if (r < 0)
		boot_record_error(&g, "link '/etc/mtab' failed: %s", strerror(-r));
	timeline_mark(&g.timeline, "early_mounts_done");

	fileio_read_line("/proc/cmdline", cmdline);
	r = config_parse_cmdline(*cmdline, &g.cfg, g.cfg_error, sizeof(g.cfg_error));
	if (r < 0) {
		/* still find the results disk with default roles to report the error */
		log_err("kernel command line: %s", g.cfg_error);
		config_parse_cmdline("", &g.cfg, NULL, 0);
	}
	log_setup(g.console >= 0 ? g.console : STDERR_FILENO, (enum log_level)g.cfg.loglevel);
}

/* Hostname, loopback, drivers, the inventory and the results disk. */
static void boot_devices(const char *release, const char *cmdline)
{
	const char *host = g.cfg.hostname ? g.cfg.hostname : "fsagent";
	int r;

	/* udev's start is the longest step from here: it goes first */
	udev_start();
	/*
	 * udev settling is the longest step of this stage and what follows
	 * has time to spare: PID 1 yields the CPUs to it until it settles
	 * (under TCG: udev settled 0.49 s after stage 2 began instead of 0.55,
	 * medians of eight boots)
	 */
	if (g.udev_fd >= 0 && setpriority(PRIO_PROCESS, 0, 10) < 0)
		log_debug("nice 10 while udev settles failed: %s", strerror(errno));
	if (sethostname(host, strlen(host)) < 0)
		boot_record_error(&g, "set hostname failed: %s", strerror(errno));
	r = early_loopback_up();
	if (r < 0)
		boot_record_error(&g, "bring up 'lo' failed: %s", strerror(-r));
	if (poll_signals())
		finish_fatal(&g, "stopped by %s during early boot", g.stop_reason);
	open_modules(release);
	/* the nodes that load their module when opened, as a systemd guest has them (machine/static_nodes.h) */
	r = static_nodes_make(release);
	if (r < 0)
		boot_record_error(&g, "static device nodes from modules.devname: %s", strerror(-r));
	drivers_load_disk(&g.drivers);
	drivers_start_others(&g.drivers, g.cfg.fs, g.cfg.modules, cmdline);
	if (!g.have_inv)
		settle_devices();
	/* before the inventory sees them; the initramfs stage's saw them raw, so it goes. Logged there */
	if (g.cfg.pmem_fsdax && pmem_make_fsdax() > 0 && g.have_inv) {
		inventory_release(&g.inv);
		g.have_inv = false;
	}
	timeline_mark(&g.timeline, "drivers_ready");

	if (g.have_inv) {
		/* the initramfs stage's inventory: the root disk is mounted now */
		g.inv.mods = g.mods;
		devices_mark_mounted(&g.inv.devs);
	} else {
		r = build_inventory();
		if (r < 0) {
			drivers_wait_others(&g.drivers);
			finish_fatal(&g, "inventory failed: %s", strerror(-r));
		}
		g.have_inv = true;
	}
	/* the names udev makes too, so that roles given by id resolve before it settles */
	make_by_id_links();
	timeline_mark(&g.timeline, "inventory_done");
	drivers_wait_others(&g.drivers);
	timeline_mark(&g.timeline, "modules_loaded");
	update_inventory(NULL);
	if (poll_signals())
		finish_fatal(&g, "stopped by %s while loading modules", g.stop_reason);
	mount_results();
	timeline_mark(&g.timeline, "devices_ready");
}

/* Whether the boot can run tests: ends it when not. */
static void boot_check_ready(void)
{
	_cleanup_free_ char *missing = NULL;

	if (g.cfg_error[0])
		finish_fatal(&g, "kernel command line: %s", g.cfg_error);
	missing = g.mods ? modules_failed_required(g.mods) : NULL;
	if (missing)
		finish_fatal(&g, "required module(s) not usable: %s", missing);
	if (!g.results_mounted)
		finish_fatal(&g, "no results disk (a disk with serial or label 'fsagent-results', or "
				 "fsagent.dev.results=)");
	if (poll_signals())
		finish_fatal(&g, "stopped by %s", g.stop_reason);
}

_noreturn_ void pid1_main(void)
{
	_cleanup_free_ char *cmdline = NULL;
	struct utsname u;
	int r;

	boot_early(&cmdline);
	uname(&u);
	/* the initramfs stage does only what finding the root disk needs */
	if (g.cfg.root && switchroot_on_initramfs("")) {
		open_modules(u.release);
		switch_root();
		/* on as the root's PID 1: its /etc, its module directory */
		r = early_mtab();
		if (r < 0)
			boot_record_error(&g, "link '/etc/mtab' failed: %s", strerror(-r));
		modules_free(g.mods);
		g.mods = g.drivers.mods = NULL;
	}
	boot_devices(u.release, cmdline);
	boot_check_ready();

	/* caps.json first: whatever the run does, the inventory is on the disk */
	finish_write_documents(&g, NULL, false);
	if (g.cfg.shell)
		r = session_shell(&g.cfg, &g.inv, RESULTS_MNT, udev_wait, g.session_summary, sizeof(g.session_summary));
	else
		r = session_run(&g.cfg, &g.inv, RESULTS_MNT, udev_wait, g.session_summary, sizeof(g.session_summary));
	/* no run (or none that got that far): settled all the same */
	udev_wait();
	timeline_mark(&g.timeline, "run_done");
	if (r < 0)
		finish_fatal(&g, "run: %s", g.session_summary);
	if (r == RUNNER_UNKILLABLE) {
		/* a test stuck in the kernel survived SIGKILL: reboot, the next boot resumes */
		g.cfg.action = ACTION_REBOOT;
		snprintf(g.session_summary + strlen(g.session_summary),
			 sizeof(g.session_summary) - strlen(g.session_summary),
			 "; rebooting to resume after an unkillable test");
		r = SESSION_FAILED;
	}
	g.session_status = r;
	finish_boot(&g, NULL);
}
