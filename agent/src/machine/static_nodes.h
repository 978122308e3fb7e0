/* SPDX-License-Identifier: MIT */
/*
 * The device nodes that load their module when opened (modules.devname:
 * /dev/loop-control, /dev/mapper/control, /dev/fuse, ...), made as a
 * systemd guest's kmod-static-nodes makes them: without them, a test that
 * mounts an image file (generic/042: mount picks a loop device) fails in a
 * guest where the loop module was not loaded yet.
 */
#pragma once

#include <stddef.h>

struct static_node {
	char module[64];
	char name[64]; /* under /dev: "loop-control", "mapper/control" */
	char type;     /* 'c' or 'b' */
	unsigned major, minor;
};

/*
 * Parse modules.devname's text ("loop loop-control c10:237" lines, '#'
 * comments) into v[0..max); *n gets how many. A line that is not one is
 * skipped; its number (1-based) in *bad_line if bad_line and none before.
 * Returns 0 or -E2BIG (more than max).
 */
int static_nodes_parse(const char *text, size_t len, struct static_node *v, size_t max, size_t *n, unsigned *bad_line);

/*
 * Make the static nodes of the modules of release (sysroot's
 * /lib/modules/RELEASE/modules.devname) under the sysroot's /dev, mode
 * 0600, leaving any that exist. Returns how many it made, 0 without the
 * file, or -errno.
 */
int static_nodes_make(const char *release);
