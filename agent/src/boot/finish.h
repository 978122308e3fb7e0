/* SPDX-License-Identifier: MIT */
/*
 * The end of every boot: caps.json (and fatal.json) to the results disk and
 * framed to the console, everything PID 1 started stopped, the results disk
 * synced and unmounted, the one final status line the host looks for, and
 * power-off, halt or reboot. "Never return" lives here.
 */
#pragma once

#include "boot/state.h"
#include "util/macro.h"

#include <stdbool.h>

/* caps.json (and fatal.json when fatal) to the results disk; framed to the console too when frame. */
void finish_write_documents(struct boot_state *s, const char *fatal, bool frame);

/* End the boot: fatal is NULL, or why PID 1 could not go on. */
_noreturn_ void finish_boot(struct boot_state *s, const char *fatal);

/* Log the error and end the boot with it. */
_noreturn_ void finish_fatal(struct boot_state *s, const char *fmt, ...) _printf_(2, 3);
