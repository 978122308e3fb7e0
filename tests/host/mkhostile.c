// SPDX-License-Identifier: MIT
/*
 * mkhostile IMAGE < COMMANDS: make an ext2/3/4 image hostile, as a buggy or
 * malicious guest could, for the extraction tests. libext2fs writes what
 * the kernel never would: names holding '/' or "..", a second entry of a
 * name, a directory linked under itself, a giant size with no blocks.
 *
 * One command a line; NAME may hold C escapes (\n, \x1b, \\):
 *   link DIR NAME PATH       an entry NAME in DIR for PATH's inode
 *   symlink DIR NAME TARGET  a symbolic link
 *   mknod DIR NAME fifo|chr|blk|sock
 *   size PATH BYTES          set the inode's size (no blocks added)
 *   mode PATH OCTAL          set the inode's permission bits
 *   unlink DIR NAME          remove an entry (the inode stays)
 */
#include <ext2fs/ext2fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ext2_filsys fs;

static void die(const char *what, const char *arg, errcode_t e)
{
	fprintf(stderr, "mkhostile: %s '%s': %s\n", what, arg, e ? error_message(e) : "bad command");
	exit(1);
}

static ext2_ino_t inode_of(const char *path)
{
	ext2_ino_t ino;
	errcode_t e = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino);

	if (e)
		die("no such path", path, e);
	return ino;
}

/* C escapes in place; returns the length (the name may hold any byte but NUL). */
static size_t unescape(char *s)
{
	char *o = s;

	for (char *p = s; *p; p++) {
		if (*p != '\\' || !p[1]) {
			*o++ = *p;
			continue;
		}
		p++;
		if (*p == 'n')
			*o++ = '\n';
		else if (*p == 'x' && p[1] && p[2]) {
			char hex[3] = { p[1], p[2], 0 };

			*o++ = (char)strtol(hex, NULL, 16);
			p += 2;
		} else
			*o++ = *p;
	}
	*o = '\0';
	return (size_t)(o - s);
}

static void add_link(ext2_ino_t dir, const char *name, ext2_ino_t ino, int type)
{
	errcode_t e = ext2fs_link(fs, dir, name, ino, type);

	if (e == EXT2_ET_DIR_NO_SPACE) {
		e = ext2fs_expand_dir(fs, dir);
		if (!e)
			e = ext2fs_link(fs, dir, name, ino, type);
	}
	if (e)
		die("link", name, e);
}

static void set_inode(const char *path, int what, unsigned long long v)
{
	ext2_ino_t ino = inode_of(path);
	struct ext2_inode inode;
	errcode_t e = ext2fs_read_inode(fs, ino, &inode);

	if (e)
		die("read inode", path, e);
	if (what == 's') {
		inode.i_size = (__u32)v;
		inode.i_size_high = (__u32)(v >> 32);
	} else
		inode.i_mode = (__u16)((inode.i_mode & ~07777) | (v & 07777));
	e = ext2fs_write_inode(fs, ino, &inode);
	if (e)
		die("write inode", path, e);
}

static void make_node(ext2_ino_t dir, const char *name, const char *kind)
{
	struct ext2_inode inode = { 0 };
	ext2_ino_t ino;
	int type, mode;
	errcode_t e;

	if (!strcmp(kind, "fifo"))
		mode = LINUX_S_IFIFO, type = EXT2_FT_FIFO;
	else if (!strcmp(kind, "chr"))
		mode = LINUX_S_IFCHR, type = EXT2_FT_CHRDEV;
	else if (!strcmp(kind, "blk"))
		mode = LINUX_S_IFBLK, type = EXT2_FT_BLKDEV;
	else if (!strcmp(kind, "sock"))
		mode = LINUX_S_IFSOCK, type = EXT2_FT_SOCK;
	else
		die("node kind", kind, 0);
	e = ext2fs_new_inode(fs, dir, mode, NULL, &ino);
	if (e)
		die("new inode", name, e);
	ext2fs_inode_alloc_stats2(fs, ino, +1, 0);
	inode.i_mode = (__u16)(mode | 0666);
	inode.i_links_count = 1;
	/* /dev/zero and /dev/sda, in the old encoding */
	inode.i_block[0] = type == EXT2_FT_CHRDEV ? 0x0105 : type == EXT2_FT_BLKDEV ? 0x0800 : 0;
	e = ext2fs_write_new_inode(fs, ino, &inode);
	if (e)
		die("write inode", name, e);
	add_link(dir, name, ino, type);
}

int main(int argc, char **argv)
{
	char line[4096], *w[4];
	errcode_t e;

	if (argc != 2) {
		fprintf(stderr, "usage: mkhostile IMAGE < COMMANDS\n");
		return 2;
	}
	e = ext2fs_open(argv[1], EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	if (e)
		die("open", argv[1], e);
	if ((e = ext2fs_read_bitmaps(fs)))
		die("read bitmaps", argv[1], e);
	while (fgets(line, sizeof(line), stdin)) {
		int n = 0;

		line[strcspn(line, "\n")] = '\0';
		for (char *t = strtok(line, " "); t && n < 4; t = strtok(NULL, " "))
			w[n++] = t;
		if (n == 0 || w[0][0] == '#')
			continue;
		if (!strcmp(w[0], "link") && n == 4) {
			ext2_ino_t dir = inode_of(w[1]), ino = inode_of(w[3]);
			struct ext2_inode inode;

			unescape(w[2]);
			if ((e = ext2fs_read_inode(fs, ino, &inode)))
				die("read inode", w[3], e);
			add_link(dir, w[2], ino, LINUX_S_ISDIR(inode.i_mode) ? EXT2_FT_DIR : EXT2_FT_REG_FILE);
			/* a hard link counts, or e2fsck would fix the disk back */
			inode.i_links_count++;
			ext2fs_write_inode(fs, ino, &inode);
		} else if (!strcmp(w[0], "symlink") && n == 4) {
			ext2_ino_t dir = inode_of(w[1]);

			unescape(w[2]);
			e = ext2fs_symlink(fs, dir, 0, w[2], w[3]);
			if (e == EXT2_ET_DIR_NO_SPACE && !(e = ext2fs_expand_dir(fs, dir)))
				e = ext2fs_symlink(fs, dir, 0, w[2], w[3]);
			if (e)
				die("symlink", w[2], e);
		} else if (!strcmp(w[0], "mknod") && n == 4) {
			ext2_ino_t dir = inode_of(w[1]);

			unescape(w[2]);
			make_node(dir, w[2], w[3]);
		} else if (!strcmp(w[0], "size") && n == 3)
			set_inode(w[1], 's', strtoull(w[2], NULL, 0));
		else if (!strcmp(w[0], "mode") && n == 3)
			set_inode(w[1], 'm', strtoull(w[2], NULL, 8));
		else if (!strcmp(w[0], "unlink") && n == 3) {
			unescape(w[2]);
			if ((e = ext2fs_unlink(fs, inode_of(w[1]), w[2], 0, 0)))
				die("unlink", w[2], e);
		} else
			die("command", w[0], 0);
	}
	e = ext2fs_close_free(&fs);
	if (e)
		die("close", argv[1], e);
	return 0;
}
