// SPDX-License-Identifier: MIT
/*
 * The fsagent multicall binary: as PID 1 (or `fsagent init`) it boots the
 * test VM; otherwise it dispatches host and diagnostic subcommands from a
 * table (kmod's tools/kmod.c shape).
 */
#include "config.h"
#include "frame.h"
#include "inventory.h"
#include "pid1.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/sysroot.h"
#include "version.h"

#include <getopt.h>
#include <string.h>
#include <sys/utsname.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static int cmd_help(int argc, char **argv);

static int cmd_init(int argc _unused_, char **argv _unused_)
{
	if (getpid() != 1) {
		log_err("'init' must run as PID 1 (the kernel's init= or rdinit=)");
		return 1;
	}
	pid1_main();
}

static int cmd_caps(int argc, char **argv)
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
		case 'c':
			cmdline_arg = optarg;
			break;
		case 'h':
			printf("usage: fsagent caps [--sysroot DIR] [--cmdline WORDS]\n"
			       "Print the machine inventory (caps.json) that fsagent writes at boot.\n"
			       "  --sysroot DIR   read /sys, /proc, /dev, /boot and /lib/modules under DIR\n"
			       "  --cmdline WORDS use these fsagent.* words instead of /proc/cmdline\n");
			return 0;
		default:
			return 2;
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
	r = inventory_build(mods, &cfg, NULL, &inv);
	if (r < 0) {
		log_err("inventory of '%s' failed: %s", sysroot_is_real() ? "/" : sysroot_get(),
			strerror(-r));
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

static int cmd_unframe(int argc, char **argv)
{
	_cleanup_free_ char *log = NULL, *doc = NULL;
	size_t len;
	int r;

	if (argc < 2 || argc > 3) {
		log_err("usage: fsagent unframe NAME [CONSOLE-LOG]");
		return 2;
	}
	r = fileio_read_full(argc == 3 ? argv[2] : "/dev/stdin", &log, NULL);
	if (r < 0) {
		log_err("read '%s' failed: %s", argc == 3 ? argv[2] : "stdin", strerror(-r));
		return 1;
	}
	r = frame_extract(log, argv[1], &doc, &len);
	if (r == -ENOENT) {
		log_err("no '%s' frame in the console log", argv[1]);
		return 1;
	}
	if (r < 0) {
		log_err("frame '%s' is damaged: %s", argv[1], strerror(-r));
		return 1;
	}
	fwrite(doc, 1, len, stdout);
	return 0;
}

static int cmd_version(int argc _unused_, char **argv _unused_)
{
	printf("fsagent %s\n", FSAGENT_VERSION);
	return 0;
}

static const struct command commands[] = {
	{ "init", cmd_init, "boot the test VM (run as PID 1)" },
	{ "caps", cmd_caps, "print the machine inventory as JSON" },
	{ "unframe", cmd_unframe, "cut a framed document out of a console log" },
	{ "version", cmd_version, "print the version" },
	{ "help", cmd_help, "show this help" },
};

static int cmd_help(int argc _unused_, char **argv _unused_)
{
	printf("usage: fsagent COMMAND [ARGS]\n\nCommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		printf("  %-10s %s\n", commands[i].name, commands[i].help);
	printf("\nAs PID 1, fsagent runs 'init' whatever its arguments.\n");
	return 0;
}

int main(int argc, char **argv)
{
	/* the kernel may pass its own words to init; PID 1 always boots */
	if (getpid() == 1)
		pid1_main();
	if (argc < 2) {
		cmd_help(0, NULL);
		return 2;
	}
	if (streq(argv[1], "--help") || streq(argv[1], "-h"))
		return cmd_help(0, NULL);
	if (streq(argv[1], "--version"))
		return cmd_version(0, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (streq(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	log_err("unknown command '%s'; see 'fsagent help'", argv[1]);
	return 2;
}
