// SPDX-License-Identifier: MIT
/*
 * libmount context wrapper (see mount.h).
 */
#include "machine/mount.h"
#include "util/fileio.h"
#include "util/macro.h"

#include <errno.h>
#include <libmount/libmount.h>

DEFINE_CLEANUP(struct libmnt_context, mnt_free_context)

int mount_device(const char *source, const char *target, const char *fstype, const char *options)
{
	_cleanup_(mnt_free_contextp) struct libmnt_context *cxt = mnt_new_context();
	int r;

	if (!cxt)
		return -ENOMEM;
	r = fileio_mkdir_p(target);
	if (r < 0)
		return r;
	if (mnt_context_disable_helpers(cxt, 1) < 0 || mnt_context_disable_mtab(cxt, 1) < 0 ||
	    mnt_context_set_source(cxt, source) < 0 || mnt_context_set_target(cxt, target) < 0)
		return -ENOMEM;
	if (fstype && mnt_context_set_fstype(cxt, fstype) < 0)
		return -ENOMEM;
	if (options && mnt_context_set_options(cxt, options) < 0)
		return -EINVAL;
	r = mnt_context_mount(cxt);
	/* 0: done; >0: mount(2) failed with that errno; <0: libmount's own error */
	if (r > 0)
		return -r;
	if (r < 0)
		return r == -1 ? -EINVAL : r;
	return 0;
}

int mount_umount(const char *target)
{
	_cleanup_(mnt_free_contextp) struct libmnt_context *cxt = mnt_new_context();
	int r;

	if (!cxt)
		return -ENOMEM;
	if (mnt_context_disable_helpers(cxt, 1) < 0 || mnt_context_disable_mtab(cxt, 1) < 0 ||
	    mnt_context_set_target(cxt, target) < 0)
		return -ENOMEM;
	r = mnt_context_umount(cxt);
	if (r > 0)
		return -r;
	return r < 0 ? (r == -1 ? -EINVAL : r) : 0;
}
