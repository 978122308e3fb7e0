// SPDX-License-Identifier: MIT
/*
 * A file's data out of the image (see extract_data.h). libext2fs's
 * errcode_t is converted once, in extract_ext2_errno().
 */
#include "analysis/extract_data.h"
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#define MAX_EXTENTS (1U << 20) /* of one file: a looping extent tree stops here */

int extract_ext2_errno(errcode_t e)
{
	if (e == 0)
		return 0;
	if (e > 0 && e < 4096)
		return -(int)e; /* libext2fs passes system errors through */
	return -EIO;
}

/* Bytes the file's data really occupies on the disk. */
int extract_allocated_bytes(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode, uint64_t *ret)
{
	blk64_t blocks = 0;
	errcode_t e;

	if (inode->i_flags & EXT4_INLINE_DATA_FL) {
		size_t size = 0;

		e = ext2fs_inline_data_size(fs, ino, &size);
		*ret = size;
		return extract_ext2_errno(e);
	}
	if (!(inode->i_flags & EXT4_EXTENTS_FL)) {
		/* block-mapped (ext2/3): what the inode says it holds, in 512-byte units */
		*ret = (uint64_t)ext2fs_get_stat_i_blocks(fs, inode) * 512;
		return 0;
	}
	/* the blocks its extents really map, whatever i_blocks claims */
	e = ext2fs_count_blocks(fs, ino, inode, &blocks);
	if (e)
		return extract_ext2_errno(e);
	*ret = (uint64_t)blocks * fs->blocksize;
	return 0;
}

/*
 * Copy an extent-mapped file's data straight from the image, an extent at
 * a time (libext2fs's file reader goes a block at a time). Unwritten
 * extents and holes stay holes. Returns 0, -EBADMSG for a tree that maps
 * outside the disk or more than the file's size, or -errno of the write.
 */
static int copy_extents(struct extract_source *w, int fd, ext2_ino_t ino, struct ext2_inode *inode, uint64_t size)
{
	uint64_t bs = w->fs->blocksize, disk = ext2fs_blocks_count(w->fs->super), copied = 0;
	ext2_extent_handle_t h;
	struct ext2fs_extent ex;
	unsigned n = 0;
	int r = 0;
	errcode_t e = ext2fs_extent_open2(w->fs, ino, inode, &h);

	if (e)
		return -EBADMSG;
	for (e = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &ex); !e && r == 0;
	     e = ext2fs_extent_get(h, EXT2_EXTENT_NEXT, &ex)) {
		uint64_t off, len;

		if (++n > MAX_EXTENTS) {
			r = -EBADMSG;
			break;
		}
		if (!(ex.e_flags & EXT2_EXTENT_FLAGS_LEAF) || (ex.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT) ||
		    (ex.e_flags & EXT2_EXTENT_FLAGS_UNINIT) || ex.e_len == 0)
			continue;
		off = (uint64_t)ex.e_lblk * bs;
		if (off >= size)
			continue;
		if (ex.e_pblk >= disk || ex.e_len > disk - ex.e_pblk) {
			r = -EBADMSG;
			break;
		}
		len = (uint64_t)ex.e_len * bs;
		if (len > size - off)
			len = size - off;
		copied += len;
		if (copied > size) {
			r = -EBADMSG; /* extents overlap */
			break;
		}
		for (uint64_t done = 0; done < len && r == 0;) {
			size_t chunk = len - done < EXTRACT_COPY_CHUNK ? (size_t)(len - done) : EXTRACT_COPY_CHUNK;
			loff_t in = (loff_t)(ex.e_pblk * bs + done), out = (loff_t)(off + done);
			/* in the kernel when it can (one copy less), else through the buffer */
			ssize_t got = w->cfr ? copy_file_range(w->imgfd, &in, fd, &out, chunk, 0) : -1;

			if (got < 0 && w->cfr && errno != EXDEV && errno != ENOSYS && errno != EINVAL &&
			    errno != EOPNOTSUPP) {
				r = -errno;
				break;
			}
			if (got < 0) {
				w->cfr = false;
				got = pread(w->imgfd, w->buf, chunk, in);
				if (got > 0 && pwrite(fd, w->buf, (size_t)got, out) != got)
					r = -errno ?: -EIO;
			}
			if (got < 0)
				r = -errno;
			else if (got == 0)
				r = -EBADMSG;
			done += got > 0 ? (uint64_t)got : 0;
		}
	}
	ext2fs_extent_free(h);
	if (r == 0 && e && e != EXT2_ET_EXTENT_NO_NEXT)
		r = -EBADMSG;
	if (r == 0 && ftruncate(fd, (off_t)size) < 0)
		r = -errno;
	return r;
}

/*
 * Copy a block-mapped or inline file's data through libext2fs's reader.
 * Returns 0, -EBADMSG when it cannot be read whole, or -errno of the write.
 */
static int copy_blocks(struct extract_source *w, int fd, ext2_ino_t ino, struct ext2_inode *inode, uint64_t size)
{
	ext2_file_t f = NULL;
	uint64_t left = size;
	int r = 0;
	errcode_t e = ext2fs_file_open2(w->fs, ino, inode, 0, &f);

	while (!e && r == 0 && left > 0) {
		unsigned int got = 0;

		e = ext2fs_file_read(f, w->buf, left < EXTRACT_COPY_CHUNK ? (unsigned)left : EXTRACT_COPY_CHUNK, &got);
		if (e || got == 0)
			break;
		r = fileio_write_all(fd, w->buf, got);
		left -= got;
	}
	if (f)
		ext2fs_file_close(f);
	return r < 0 ? r : e || left ? -EBADMSG : 0;
}

int extract_copy_data(struct extract_source *src, int fd, ext2_ino_t ino, struct ext2_inode *inode, uint64_t size)
{
	if ((inode->i_flags & EXT4_EXTENTS_FL) && !(inode->i_flags & EXT4_INLINE_DATA_FL))
		return copy_extents(src, fd, ino, inode, size);
	return copy_blocks(src, fd, ino, inode, size);
}
