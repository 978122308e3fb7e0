/* SPDX-License-Identifier: MIT */
/*
 * The run session at boot: the plan from its three sources (image defaults,
 * the results disk, the kernel command line), each config of the catalog
 * formatted and checked on the designated devices, fstests run through the
 * runner, and the bundle on the results disk.
 */
#pragma once

#include <stddef.h>

#include "boot/config.h"
#include "machine/inventory.h"

#define SESSION_DEFAULTS "/etc/fsagent/plan.conf"
#define SESSION_FSTESTS "/root/xfstests"
#define SESSION_CATALOG "/etc/fsagent/configs"
#define SESSION_FAILED 2      /* tests failed */
#define SESSION_NOTHING_RAN 4 /* no test ran: no config could be served, or every test was skipped */

/*
 * Run the plan, if it names configs (summary stays empty when it names none).
 * Otherwise summary gets one line for the final
 * status ("3 configs, 40 tests: 38 pass, 2 fail; bundle runs/<id>").
 * settle (or NULL) is called once the plan is read and the bundle begun,
 * before any test is selected or device formatted: the caller's devices
 * may still be settling meanwhile.
 * Returns 0 (nothing failed, or no configs to run), SESSION_FAILED, SESSION_NOTHING_RAN,
 * RUNNER_UNKILLABLE (reboot and resume), or -errno with summary the error.
 */
int session_run(const struct boot_config *cfg, struct inventory *inv, const char *results, void (*settle)(void),
		char *summary, size_t size);

/*
 * fsagent.shell=1: the plan's first config prepared as a run prepares it
 * (test device formatted, its fstests section written) and its test device
 * mounted on /mnt/test, then a root shell on the console in the fstests tree
 * with HOST_OPTIONS naming that section, so `./check generic/001` works as
 * typed (boot/shell.h). Returns 0 once the shell exits, or -errno; summary
 * says how it ended.
 */
int session_shell(const struct boot_config *cfg, struct inventory *inv, const char *results, void (*settle)(void),
		  char *summary, size_t size);
