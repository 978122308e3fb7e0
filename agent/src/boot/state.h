/* SPDX-License-Identifier: MIT */
/*
 * What PID 1 learns as it boots, shared by its steps (pid1.c runs them,
 * finish.c writes it out): the command line, the modules, the inventory,
 * the timeline and the errors met on the way.
 */
#pragma once

#include "boot/config.h"
#include "boot/drivers.h"
#include "boot/timeline.h"
#include "machine/inventory.h"
#include "util/macro.h"

#include <jansson.h>
#include <stdbool.h>

struct boot_state {
	int sigfd;
	int console; /* -1: none, log to stderr */
	struct boot_config cfg;
	char cfg_error[256];
	struct modules *mods;
	struct drivers drivers;
	struct inventory inv;
	bool have_inv;
	bool results_mounted;
	int udev_fd; /* the udev helper's pipe while it settles, else -1 */
	json_t *mounts, *errors, *udev;
	struct timeline timeline;
	const char *stop_reason; /* set by a signal */
	/* what the run session ended with, for the final status line */
	char session_summary[512];
	int session_status;
};

/* Note an error in caps.json's "errors" (and nowhere else: the caller logged it if it must). */
void boot_record_error(struct boot_state *s, const char *fmt, ...) _printf_(2, 3);
