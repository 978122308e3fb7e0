// SPDX-License-Identifier: MIT
/*
 * fsagent caps: the machine inventory.
 */
#include "cmd/cmd.h"
#include "boot/config.h"
#include "machine/inventory.h"
#include "util/log.h"
#include "util/sysroot.h"
#include "util/macro.h"

#include <getopt.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>

int cmd_caps(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 's' },
		{ "cmdline", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *cmdline_arg = NULL;
	_cleanup_free_ char *cmdline = NULL, *release = NULL, *text = NULL;
	struct boot_config cfg;
	struct modules *mods = NULL;
	struct inventory inv;
	char err[256];
	int c, r;

	while ((c = getopt_long(argc, argv, "s:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (sysroot_set(optarg) < 0) {
				log_err("sysroot '%s' is too long", optarg);
				return 2;
			}
			break;
		case 'c': cmdline_arg = optarg; break;
		case 'h':
			printf("usage: fsagent caps [--sysroot DIR] [--cmdline WORDS]\n"
			       "Print the machine inventory (caps.json) that fsagent writes at boot.\n"
			       "  --sysroot DIR   read /sys, /proc, /dev, /boot and /lib/modules under DIR\n"
			       "  --cmdline WORDS use these fsagent.* words instead of /proc/cmdline\n");
			return 0;
		default: return 2;
		}
	}
	if (optind < argc) {
		log_err("caps: unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (cmdline_arg)
		cmdline = strdup(cmdline_arg);
	else
		sysroot_read_line(&cmdline, "/proc/cmdline");
	r = config_parse_cmdline(cmdline, &cfg, err, sizeof(err));
	if (r < 0) {
		log_err("%s: %s", cmdline_arg ? "--cmdline" : "/proc/cmdline", err);
		return 1;
	}
	if (sysroot_read_line(&release, "/proc/sys/kernel/osrelease") == 0 &&
	    modules_new(sysroot_get(), release, &mods) < 0)
		mods = NULL;
	{
		struct roles_request req = boot_config_roles(&cfg, NULL);

		r = inventory_build(mods, &req, &inv);
	}
	if (r < 0) {
		log_err("inventory of '%s' failed: %s", sysroot_is_real() ? "/" : sysroot_get(), strerror(-r));
		modules_free(mods);
		boot_config_release(&cfg);
		return 1;
	}
	text = json_dumps(inv.doc, JSON_INDENT(2));
	if (text)
		puts(text);
	inventory_release(&inv);
	modules_free(mods);
	boot_config_release(&cfg);
	return text ? 0 : 1;
}
