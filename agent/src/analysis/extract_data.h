/* SPDX-License-Identifier: MIT */
/*
 * A regular file's data read out of a guest-written ext4 image, for
 * extract.c: how much the disk really holds for it, and a bounded copy of
 * it into a host file, extent by extent (copy_file_range when it can), that
 * refuses a tree mapping outside the disk or more than the file's size.
 */
#pragma once

#include <ext2fs/ext2fs.h>
#include <stdbool.h>
#include <stdint.h>

#define EXTRACT_COPY_CHUNK (1U << 20)

struct extract_source {
	ext2_filsys fs;
	int imgfd; /* the image, for reading extents directly */
	bool cfr;  /* copy_file_range() works between image and host (cleared when it does not) */
	char *buf; /* EXTRACT_COPY_CHUNK bytes */
};

/* libext2fs's errcode_t as 0 or -errno (-EIO for its own codes). */
int extract_ext2_errno(errcode_t e);

/* Bytes the file's data really occupies on the disk. Returns 0 or -errno. */
int extract_allocated_bytes(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode, uint64_t *ret);

/*
 * Copy size bytes of the file's data to fd (holes stay holes). Returns 0,
 * -EBADMSG when the image cannot give it whole and true, or -errno of the
 * write.
 */
int extract_copy_data(struct extract_source *src, int fd, ext2_ino_t ino, struct ext2_inode *inode, uint64_t size);
