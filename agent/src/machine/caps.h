/* SPDX-License-Identifier: MIT */
/*
 * Machine capabilities: kernel release and version, command line, the kernel
 * config options that matter to filesystem testing, lockdep and gcov state,
 * CPUs, memory, filesystems, pmem namespaces, taint. Collection reads through
 * the sysroot; the parsers below are pure and take buffers.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "model/kver.h"
#include "machine/modules.h"

struct caps {
	char release[128];
	struct kver version;
	bool version_ok;
	bool lockdep_configured; /* CONFIG_PROVE_LOCKING or CONFIG_LOCKDEP */
	bool lockdep_live;	 /* debug_locks still 1 */
	unsigned long long taint;
};

/*
 * Collect capabilities. *ret_json (new reference) holds everything;
 * ret gets the few facts other code decides on. mods may be NULL.
 * Returns 0 or -errno (only on allocation failure or missing osrelease).
 */
int caps_collect(struct modules *mods, struct caps *ret, json_t **ret_json);

/*
 * The filesystems a run may ask for, each "registered" (in
 * /proc/filesystems), "module" (loadable) or "builtin", as a JSON array.
 * mods may be NULL.
 */
json_t *caps_filesystems_json(struct modules *mods);

/* Count CPUs in a list such as "0-3,8,10-11". Returns count or -EINVAL. */
int caps_count_cpu_list(const char *s);

/* Whether caps.json's kconfig options hold OPTION ("XFS_RT", without CONFIG_): what a catalog may require. */
bool caps_kconfig_collected(const char *option);

/* Value in kB of a /proc/meminfo field ("MemTotal"), or -ENOENT. */
long long caps_meminfo_kb(const char *buf, const char *field);

/* Letters for a taint mask as the kernel prints them ("G" for 0). buf >= 32 bytes. */
void caps_taint_letters(unsigned long long taint, char *buf);

/* From /proc/lockdep_stats: 1 if "debug_locks: 1", 0 if 0, -ENOENT if absent. */
int caps_lockdep_debug_locks(const char *buf);
