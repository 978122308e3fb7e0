/* SPDX-License-Identifier: MIT */
/*
 * Persistent memory made DAX-capable. A label-less NVDIMM (QEMU's nvdimm
 * device) comes up as a raw namespace whose /dev/pmemN has queue/dax 0; DAX
 * needs fsdax mode, a pfn device claiming the namespace, which is what
 * `ndctl create-namespace -f -e namespaceX.Y -m fsdax` makes. This does it
 * through sysfs: unbind the namespace from nd_pmem, give the region's pfn
 * seed a uuid, mode "pmem" (its struct pages on the device) and the
 * namespace, and bind the pfn to nd_pmem. The pfn's info block is written to
 * the device, so later boots find fsdax mode by themselves.
 */
#pragma once

#include <stddef.h>

/* The block device (pmemN) of namespace ns, or of the pfn claiming it. Returns 0 or -ENOENT. */
int pmem_block_of(const char *ns, char *buf, size_t size);

/*
 * Make every raw, non-DAX pmem namespace that is blank (its first MiB zero:
 * the conversion destroys what it holds) fsdax. Returns how many were made,
 * or -errno on the first that failed; each is logged.
 */
int pmem_make_fsdax(void);
