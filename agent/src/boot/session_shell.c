// SPDX-License-Identifier: MIT
/*
 * A shell in the VM (see session.h): the plan's first config prepared as a
 * run prepares it, its test device mounted, check ready to be typed.
 */
#include "boot/session.h"
#include "boot/session_internal.h"
#include "boot/catalog.h"
#include "boot/loopback.h"
#include "boot/shell.h"
#include "machine/mount.h"
#include "model/plan.h"
#include "util/fileio.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The shell's lines: config, devices, how to run a test, how to leave. */
static void shell_banner(const struct session *s, bool ready, const char *status, char *buf, size_t size)
{
	if (!ready)
		snprintf(buf, size,
			 "fsagent shell: no config prepared (fsagent-qemu -c CONFIG --shell); exit powers off");
	else
		snprintf(buf, size,
			 "fsagent shell: config %s, section %s (HOST_OPTIONS=%s)\r\n"
			 "fsagent shell: %s\r\n"
			 "fsagent shell: ./check generic/001 runs a test; exit powers off",
			 s->fsc[0].name, s->rc[0].section, s->config_files[0], status);
}

int session_shell(const struct boot_config *cfg, struct inventory *inv, const char *results, void (*settle)(void),
		  char *summary, size_t ss)
{
	static const char head[] = "# written by fsagent for a shell\n";
	struct session s = {
		.cfg = cfg, .inv = inv, .results = results, .catalog = cfg->catalog ? cfg->catalog : SESSION_CATALOG
	};
	const char *fstests = cfg->fstests ? cfg->fstests : SESSION_FSTESTS;
	char err[512] = "", why[512] = "", banner[1536], hopt[PATH_MAX + 16], ps1[128], cfgenv[96], **sections = NULL;
	const char *env[4] = { NULL };
	struct plan plan;
	bool ready;
	int r;

	r = plan_init(&plan);
	if (r < 0)
		return r;
	s.plan = &plan;
	snprintf(s.pg.dir, sizeof(s.pg.dir), "%s/shell", results);
	snprintf(s.host_options, sizeof(s.host_options), "%s/fstests.config", FSAGENT_RUN_DIR);
	fileio_mkdir_p(s.pg.dir);
	fileio_mkdir_p(FSAGENT_RUN_DIR);
	fileio_write_atomic(s.host_options, head, strlen(head));
	r = session_load_plan(&plan, cfg, results, err, sizeof(err));
	if (r == 0)
		r = session_load_configs(&s, &sections, err, sizeof(err));
	if (settle)
		settle();
	ready = r == 0 && s.n > 0;
	if (r < 0) {
		snprintf(why, sizeof(why), "the plan: %s", err);
	} else if (ready) {
		/* the first config, prepared as a run prepares it, its test device then mounted to look at */
		r = session_prepare(&s, &s.rc[0], err, sizeof(err));
		if (r == 0 && s.fsc[0].export_fstype[0]) {
			snprintf(why, sizeof(why), "the guest's %s server exports %s and %s (%s); check mounts them",
				 s.fsc[0].fstype, CATALOG_EXPORT_TEST, CATALOG_EXPORT_SCRATCH, s.fsc[0].export_fstype);
		} else if (r == 0) {
			const struct role_slot *test = roles_get(&inv->roles, catalog_test_role(&s.fsc[0]));
			const char *dev =
				test && !(s.fsc[0].devices & CAT_DEV_NONE) ? test->dev->devnode : s.fsc[0].fstype;

			r = mount_device(dev, "/mnt/test", s.fsc[0].fstype, NULL);
			snprintf(why, sizeof(why), "TEST_DEV %s %s (%s)%s", dev,
				 s.fsc[0].devices & CAT_DEV_NONE ? "needs no device" : "formatted", s.fsc[0].fstype,
				 r == 0 ? " and mounted on /mnt/test" : ", check mounts it");
		} else {
			snprintf(why, sizeof(why), "config %s not prepared: %s", s.fsc[0].name,
				 *err ? err : strerror(-r));
		}
		snprintf(hopt, sizeof(hopt), "HOST_OPTIONS=%s", s.config_files[0]);
		snprintf(cfgenv, sizeof(cfgenv), "FSAGENT_CONFIG=%s", s.fsc[0].name);
		env[0] = hopt;
		env[1] = cfgenv;
	}
	snprintf(ps1, sizeof(ps1), "PS1=fsagent %s:\\w# ", ready ? s.rc[0].section : "");
	env[ready ? 2 : 0] = ps1;
	shell_banner(&s, ready, why, banner, sizeof(banner));
	if (!ready && *why)
		snprintf(banner + strlen(banner), sizeof(banner) - strlen(banner), "\r\nfsagent shell: %s", why);
	r = shell_run(access(fstests, X_OK) == 0 ? fstests : "/", env, banner);
	mount_umount("/mnt/test");
	mount_umount("/mnt/scratch");
	loopback_stop(s.server);
	snprintf(summary, ss, "shell: exit status %d", r);
	session_release(&s, sections);
	plan_release(&plan);
	return r < 0 ? r : 0;
}
