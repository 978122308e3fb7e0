/* SPDX-License-Identifier: MIT */
/*
 * fsagent as its own initramfs. With fsagent.root=SPEC on the kernel command
 * line while / is still the initramfs, PID 1 finds the root disk (SPEC:
 * LABEL=L, UUID=U or a /dev path, through libblkid), mounts it, moves it
 * over / and goes on there as PID 1: in its own process when the root's
 * /sbin/fsagent is the same build, else by exec'ing it. Debian's initramfs and
 * systemd cost tens of seconds under TCG; this costs the disk driver's
 * probe. What the first stage hands the second is in handoff.h.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define SWITCHROOT_INIT "/sbin/fsagent"

/* Whether / is an initramfs (ramfs or tmpfs), below sysroot ("" for the real one). */
bool switchroot_on_initramfs(const char *sysroot);

/*
 * Find spec's device (waiting up to timeout_ms for it to appear), mount it
 * read-write, check it has SWITCHROOT_INIT, move the early mounts in
 * mounts[0..n) onto it and move it over /. Returns 0, or -errno with err
 * saying what failed.
 */
int switchroot_enter(const char *spec, unsigned timeout_ms, const char *const *mounts, size_t n, char *err,
		     size_t errsize);

/*
 * Whether the root's SWITCHROOT_INIT is the running binary: the same size
 * and the same first page (ELF headers and the build id). The initramfs
 * stage then goes on in its own process instead of exec'ing it.
 */
bool switchroot_same_init(void);

/* Exec SWITCHROOT_INIT with env. Returns only on failure: -errno with err saying why. */
int switchroot_exec(char *const *env, char *err, size_t errsize);
