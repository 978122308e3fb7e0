/* SPDX-License-Identifier: MIT */
/*
 * Mounting through libmount, with helpers and mtab disabled (PID 1 has no
 * mount.* helpers to trust). libmount's three-way return code is turned into
 * 0 / -errno here.
 */
#pragma once

/*
 * Mount source (a device path) on target (created if missing) as fstype
 * (NULL: detect with libblkid) with options (may be NULL).
 * Returns 0 or -errno (the mount(2) errno when the syscall failed).
 */
int mount_device(const char *source, const char *target, const char *fstype, const char *options);

/* Unmount target. Returns 0 or -errno. */
int mount_umount(const char *target);
