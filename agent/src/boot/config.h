/* SPDX-License-Identifier: MIT */
/*
 * Boot configuration from `fsagent.<key>=<value>` words on the kernel command
 * line: device role specs, devices that may be wiped, modules the run
 * requires, filesystems to load, what to do at the end. A pure parser over a
 * buffer; an unknown key or bad value is an error naming the key.
 *
 *   fsagent.dev.<role>=SPEC   role: results test scratch log rt logwrites dax_test
 *                             dax_scratch pool
 *                             SPEC: serial:S label:L wwid:W uuid:U /dev/... NAME
 *                             (pool: comma separated)
 *   fsagent.wipe=SPEC[,SPEC]  devices that may be formatted whatever they hold
 *   fsagent.modules=M[,M]     modules the run requires (fatal when missing)
 *   fsagent.fs=FS[,FS]        filesystems whose modules to load
 *   fsagent.action=poweroff|reboot|halt
 *   fsagent.hostname=NAME     fsagent.loglevel=0..3   fsagent.udev=auto|0|1
 *   fsagent.fstests=DIR       fsagent.catalog=DIR     (image layout overrides)
 *   fsagent.pmem=fsdax|keep   make blank raw pmem namespaces fsdax (machine/pmem.h)
 *   fsagent.shell=1|0         the plan's first config prepared, then a root shell on
 *                             the console in the fstests tree (boot/shell.h)
 *   fsagent.root=SPEC         the root disk to switch to from the initramfs
 *                             (LABEL=L, UUID=U or /dev/...; switchroot.h)
 *   fsagent.<plan key>=VALUE  any run plan key (plan.h), e.g. fsagent.seed=42
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "machine/roles.h"

enum boot_action { ACTION_POWEROFF, ACTION_REBOOT, ACTION_HALT };
enum udev_mode { UDEV_AUTO, UDEV_OFF, UDEV_ON };

struct boot_config {
	char *buf; /* owned copy of the words; the pointers below point into it */
	const char *role_spec[ROLE_MAX];
	const char *wipe;
	const char *modules;
	const char *fs;
	const char *hostname;
	const char *fstests; /* the fstests tree, default /root/xfstests */
	const char *catalog; /* the config catalog, default /etc/fsagent/configs */
	const char *root;    /* the root disk, when booted from fsagent's initramfs */
	enum boot_action action;
	enum udev_mode udev;
	bool pmem_fsdax;
	bool shell;
	int loglevel;
	/* fsagent.<plan key>=<value> words, applied over the plan file later */
	const char **plan_keys, **plan_values;
	size_t n_plan;
};

/*
 * Parse cmdline into *ret (release with boot_config_release). Words that do
 * not start with "fsagent." are ignored. On error *ret is released and err
 * holds "key 'fsagent.x': reason". Returns 0 or -EINVAL/-ENOMEM.
 */
int config_parse_cmdline(const char *cmdline, struct boot_config *ret, char *err, size_t errsize);
void boot_config_release(struct boot_config *c);
/* What the command line asks of the roles (specs, devices that may be wiped), with the claims ledger. */
struct roles_request boot_config_roles(const struct boot_config *c, const char *const *claims);
const char *boot_action_to_string(enum boot_action a);
