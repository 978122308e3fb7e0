/* SPDX-License-Identifier: MIT */
/*
 * Kernel modules through libkmod: load what the machine and the run need from
 * <sysroot>/lib/modules/<release>, record every outcome (loaded, already
 * loaded, built in, absent, failed) and answer "could this be loaded?" from
 * the module indexes alone. libkmod's messages go to the debug log.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>

enum module_status { MODULE_LOADED, MODULE_ALREADY, MODULE_BUILTIN, MODULE_ABSENT, MODULE_FAILED, MODULE_STATUS_MAX };

enum module_avail { MODULE_AVAIL_NONE, MODULE_AVAIL_BUILTIN, MODULE_AVAIL_LOADABLE };

struct modules;

/*
 * Open the module directory <sysroot>/lib/modules/<release> with an empty
 * modprobe configuration. A missing directory is not an error (a kernel with
 * everything built in has none); *ret is owned by the caller.
 * Returns 0 or -errno.
 */
int modules_new(const char *sysroot, const char *release, struct modules **ret);
void modules_free(struct modules *m);

/* Whether the module directory had usable indexes. */
bool modules_have_index(const struct modules *m);

/*
 * Load name and its dependencies. The outcome is recorded (with required);
 * returns 0 when the module is usable now (loaded, already there, built in),
 * -ENOENT when absent, other -errno when loading failed.
 */
int modules_load(struct modules *m, const char *name, bool required);

/*
 * Load name for the running kernel (its module directory under /lib/modules),
 * as modules_load does: once, for a caller that needs one module now (a
 * filesystem server, the loop driver). Returns 0, -ENOENT or -errno.
 */
int modules_load_now(const char *name);

/*
 * Record name as already loaded (by an earlier boot stage that checked it)
 * without looking it up. Returns 0 or -ENOMEM.
 */
int modules_note_loaded(struct modules *m, const char *name);

struct module_request {
	const char *name;
	bool required;
};

/*
 * Load n modules with up to jobs threads (each with its own libkmod context),
 * recording outcomes in the order given. Loading big modules such as xfs
 * costs about a second each under software emulation; two CPUs halve it.
 * Returns 0 or -ENOMEM; individual failures are in the outcomes.
 */
int modules_load_all(struct modules *m, const struct module_request *reqs, size_t n, unsigned jobs);

struct modules_batch;

/*
 * The same in the background: jobs threads start at once and the caller goes
 * on (reqs must stay valid). Outcomes are recorded when modules_batch_wait()
 * joins the threads and frees *ret. Meanwhile m may be used for lookups
 * (modules_available) but not for loading. Returns 0 or -ENOMEM.
 */
int modules_batch_start(struct modules *m, const struct module_request *reqs, size_t n, unsigned jobs,
			struct modules_batch **ret);
int modules_batch_wait(struct modules_batch *b);

/*
 * Which of names[] a device present now wants: a device under
 * <sysroot>/sys/bus/<bus>/devices/ (bus in the NULL-terminated buses[])
 * whose modalias the module index maps to that module, as udev's coldplug
 * would; a virtio PCI function also wants its virtio device's driver. Sets
 * want[i]; returns how many are wanted, 0 without an index, or -errno.
 */
int modules_wanted_by_devices(struct modules *m, const char *const *buses, const char *const *names, size_t n,
			      bool *want);

/* Whether name was recorded as usable (loaded, already loaded, built in). */
bool modules_usable(const struct modules *m, const char *name);

/* Where name would come from, judged from the module indexes only. */
enum module_avail modules_available(struct modules *m, const char *name);

const char *module_status_to_string(enum module_status s);

/* The recorded outcomes as a JSON array (new reference). */
json_t *modules_to_json(const struct modules *m);

/* Names of required modules that are not usable, comma separated, or NULL (caller frees). */
char *modules_failed_required(const struct modules *m);
