/* SPDX-License-Identifier: MIT */
/*
 * fsagent as the VM's init: early mounts, console, hostname, loopback,
 * environment, synchronous signals and zombie reaping, module loading, udev,
 * device inventory, roles, the results disk, and the final sync and
 * power-off. "Never return" lives here and only here.
 */
#pragma once

#include "util/macro.h"

/* Run as PID 1. Never returns: every outcome ends in sync and power-off/reboot. */
_noreturn_ void pid1_main(void);
