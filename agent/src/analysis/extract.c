// SPDX-License-Identifier: MIT
/*
 * A run read out of a guest-written results disk with libext2fs (see
 * extract.h). libext2fs's errcode_t is converted once, in extract_ext2_errno().
 */
#include "analysis/extract.h"
#include "analysis/extract_data.h"
#include "util/fileio.h"
#include "util/macro.h"

#include <ext2fs/ext2fs.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define REFUSALS_LISTED 1000 /* extraction.json lists this many; the count is exact */

struct walk {
	struct extract_source src;
	const struct extract_limits *lim;
	ext2fs_inode_bitmap seen; /* directories already entered */
	uint64_t files, dirs, bytes, entries, refused;
	json_t *refusals;
	char *err;
	size_t es;
};

/* One entry of a directory, gathered before any is materialised. */
struct dent {
	char name[EXT2_NAME_LEN + 1];
	size_t len;
	ext2_ino_t ino;
};

struct dlist {
	struct dent *v;
	size_t n, cap;
	uint64_t limit;
	bool truncated;
	int r;
};

int extract_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
	       c == '-' || c == '+' || c == ',' || c == '=' || c == '@' || c == '%' || c == ':';
}

void extract_limits_default(struct extract_limits *lim)
{
	*lim = (struct extract_limits){ EXTRACT_MAX_FILE, EXTRACT_MAX_TOTAL, EXTRACT_MAX_ENTRIES, EXTRACT_MAX_DEPTH };
}

/* A name as shown in extraction.json and messages: bytes outside the set as \xNN. */
static void show_name(char *out, size_t size, const char *name, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 5 < size; i++) {
		unsigned char c = (unsigned char)name[i];

		if (extract_name_char(c) || c == ' ')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
	}
	out[o] = '\0';
}

static void refuse(struct walk *w, const char *path, const char *why)
{
	w->refused++;
	if (json_array_size(w->refusals) < REFUSALS_LISTED)
		json_array_append_new(w->refusals, json_pack("{s:s, s:s}", "path", path, "reason", why));
}

static bool name_plain(const char *name, size_t len)
{
	if (len == 0 || (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!extract_name_char((unsigned char)name[i]))
			return false;
	return true;
}

static int gather(ext2_ino_t dir _unused_, int entry, struct ext2_dir_entry *de, int offset _unused_,
		  int blocksize _unused_, char *buf _unused_, void *priv)
{
	struct dlist *l = priv;
	size_t len = (size_t)ext2fs_dirent_name_len(de);

	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE || de->inode == 0)
		return 0;
	if (l->n >= l->limit) {
		l->truncated = true;
		return DIRENT_ABORT;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct dent *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->r = -ENOMEM;
			return DIRENT_ABORT;
		}
		l->v = v;
		l->cap = cap;
	}
	memcpy(l->v[l->n].name, de->name, len);
	l->v[l->n].name[len] = '\0';
	l->v[l->n].len = len;
	l->v[l->n].ino = de->inode;
	l->n++;
	return 0;
}

static const char *type_name(uint16_t mode)
{
	if (LINUX_S_ISLNK(mode))
		return "a symbolic link";
	if (LINUX_S_ISFIFO(mode))
		return "a FIFO";
	if (LINUX_S_ISCHR(mode))
		return "a character device";
	if (LINUX_S_ISBLK(mode))
		return "a block device";
	if (LINUX_S_ISSOCK(mode))
		return "a socket";
	return "of no known file type";
}

/* Copy a regular file's data into a new file name under dfd. */
static int copy_file(struct walk *w, int dfd, const char *name, const char *path, ext2_ino_t ino,
		     struct ext2_inode *inode)
{
	uint64_t size = EXT2_I_SIZE(inode), alloc = 0;
	char why[160];
	bool extents;
	int fd, r;

	r = extract_allocated_bytes(w->src.fs, ino, inode, &alloc);
	if (r < 0) {
		refuse(w, path, "its blocks cannot be read");
		return 0;
	}
	if (size > alloc) {
		snprintf(why, sizeof(why), "size %llu bytes but only %llu bytes allocated (sparse or corrupt)",
			 (unsigned long long)size, (unsigned long long)alloc);
		refuse(w, path, why);
		return 0;
	}
	if (size > w->lim->max_file) {
		snprintf(why, sizeof(why), "size %llu bytes is over the per-file cap of %llu", (unsigned long long)size,
			 (unsigned long long)w->lim->max_file);
		refuse(w, path, why);
		return 0;
	}
	if (size > w->lim->max_total - w->bytes) {
		snprintf(why, sizeof(why), "size %llu bytes would pass the per-run cap of %llu",
			 (unsigned long long)size, (unsigned long long)w->lim->max_total);
		refuse(w, path, why);
		return 0;
	}
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EEXIST) {
			refuse(w, path, "a second entry of the same name");
			return 0;
		}
		snprintf(w->err, w->es, "create '%s': %s", path, strerror(errno));
		return -errno;
	}
	extents = (inode->i_flags & EXT4_EXTENTS_FL) && !(inode->i_flags & EXT4_INLINE_DATA_FL);
	r = extract_copy_data(&w->src, fd, ino, inode, size);
	close(fd);
	if (r == -EBADMSG) {
		/* a file half read is not a result: it goes, and says why */
		unlinkat(dfd, name, 0);
		refuse(w, path,
		       extents ? "its extents map outside the disk or overlap" : "its data cannot be read whole");
		return 0;
	}
	if (r < 0) {
		snprintf(w->err, w->es, "write '%s': %s", path, strerror(-r));
		return r;
	}
	w->files++;
	w->bytes += size;
	return 0;
}

static int walk_dir(struct walk *w, ext2_ino_t dir, int dfd, const char *prefix, unsigned depth);

static int take_entry(struct walk *w, int dfd, const struct dent *d, const char *prefix, unsigned depth)
{
	static const char *const reserved[] = { EXTRACT_RESERVED };
	char shown[EXT2_NAME_LEN * 4 + 1], path[PATH_MAX];
	struct ext2_inode inode;
	errcode_t e;
	int sub, r;

	show_name(shown, sizeof(shown), d->name, d->len);
	snprintf(path, sizeof(path), "%s%s%s", prefix, prefix[0] ? "/" : "", shown);
	if (++w->entries > w->lim->max_entries) {
		if (w->entries == w->lim->max_entries + 1)
			refuse(w, path, "the per-run cap on entries is reached; this and every later entry left out");
		else
			w->refused++;
		return 0;
	}
	if (!name_plain(d->name, d->len)) {
		refuse(w, path, "the name is not plain (only A-Z a-z 0-9 . _ - + , = @ % :, not . or ..)");
		return 0;
	}
	if (depth == 0)
		for (size_t i = 0; i < ARRAY_SIZE(reserved); i++)
			if (streq(d->name, reserved[i])) {
				refuse(w, path, "the name is the host's own in a run directory");
				return 0;
			}
	e = ext2fs_read_inode(w->src.fs, d->ino, &inode);
	if (e) {
		refuse(w, path, "its inode cannot be read");
		return 0;
	}
	if (LINUX_S_ISREG(inode.i_mode))
		return copy_file(w, dfd, d->name, path, d->ino, &inode);
	if (!LINUX_S_ISDIR(inode.i_mode)) {
		char why[64];

		snprintf(why, sizeof(why), "it is %s", type_name(inode.i_mode));
		refuse(w, path, why);
		return 0;
	}
	if (depth + 1 > w->lim->max_depth) {
		refuse(w, path, "the directory is deeper than the cap");
		return 0;
	}
	if (ext2fs_test_inode_bitmap2(w->seen, d->ino)) {
		refuse(w, path, "the directory was reached before (a loop or a second link)");
		return 0;
	}
	if (mkdirat(dfd, d->name, 0755) < 0) {
		if (errno == EEXIST) {
			refuse(w, path, "a second entry of the same name");
			return 0;
		}
		snprintf(w->err, w->es, "create '%s': %s", path, strerror(errno));
		return -errno;
	}
	sub = openat(dfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0) {
		snprintf(w->err, w->es, "open '%s': %s", path, strerror(errno));
		return -errno;
	}
	w->dirs++;
	r = walk_dir(w, d->ino, sub, path, depth + 1);
	close(sub);
	return r;
}

static int walk_dir(struct walk *w, ext2_ino_t dir, int dfd, const char *prefix, unsigned depth)
{
	struct dlist l = { .limit = w->lim->max_entries + 1 };
	errcode_t e;
	int r = 0;

	ext2fs_mark_inode_bitmap2(w->seen, dir);
	e = ext2fs_dir_iterate2(w->src.fs, dir, 0, NULL, gather, &l);
	if (l.r < 0) {
		free(l.v);
		snprintf(w->err, w->es, "reading directory '%s': %s", prefix[0] ? prefix : ".", strerror(-l.r));
		return l.r;
	}
	if (e)
		refuse(w, prefix[0] ? prefix : ".", "the directory cannot be read whole; what could be read is kept");
	for (size_t i = 0; i < l.n && r == 0; i++)
		r = take_entry(w, dfd, &l.v[i], prefix, depth);
	if (r == 0 && l.truncated)
		refuse(w, prefix[0] ? prefix : ".", "the directory has more entries than the per-run cap");
	free(l.v);
	return r;
}

/* A directory entry of dir by name, of the wanted type. */
static int lookup(ext2_filsys fs, ext2_ino_t dir, const char *name, bool want_dir, ext2_ino_t *ret,
		  struct ext2_inode *inode)
{
	errcode_t e = ext2fs_lookup(fs, dir, name, (int)strlen(name), NULL, ret);

	if (e == EXT2_ET_FILE_NOT_FOUND)
		return -ENOENT;
	if (e)
		return extract_ext2_errno(e);
	e = ext2fs_read_inode(fs, *ret, inode);
	if (e)
		return extract_ext2_errno(e);
	if (want_dir ? !LINUX_S_ISDIR(inode->i_mode) : !LINUX_S_ISREG(inode->i_mode))
		return want_dir ? -ENOTDIR : -EINVAL;
	return 0;
}

/* A small regular file of the disk, whole and NUL-terminated. */
static int read_small(ext2_filsys fs, ext2_ino_t dir, const char *name, uint64_t cap, char **ret)
{
	struct ext2_inode inode;
	ext2_ino_t ino;
	ext2_file_t f;
	uint64_t size;
	unsigned int got = 0;
	char *buf;
	int r = lookup(fs, dir, name, false, &ino, &inode);
	errcode_t e;

	if (r < 0)
		return r;
	size = EXT2_I_SIZE(&inode);
	if (size > cap)
		return -EFBIG;
	buf = malloc(size + 1);
	if (!buf)
		return -ENOMEM;
	e = ext2fs_file_open2(fs, ino, &inode, 0, &f);
	if (!e) {
		e = ext2fs_file_read(f, buf, (unsigned int)size, &got);
		ext2fs_file_close(f);
	}
	if (e || got != size) {
		free(buf);
		return e ? extract_ext2_errno(e) : -EIO;
	}
	buf[size] = '\0';
	*ret = buf;
	return 0;
}

static bool run_id_ok(const char *id)
{
	size_t n = strlen(id);

	return n > 0 && n < sizeof(((struct extract_result *)0)->run_id) && name_plain(id, n);
}

/* The run the disk's /current-run names (its first line). */
static int current_run(ext2_filsys fs, char *id, size_t size)
{
	_cleanup_free_ char *text = NULL;
	int r = read_small(fs, EXT2_ROOT_INO, "current-run", 256, &text);

	if (r < 0)
		return r;
	text[strcspn(text, "\r\n")] = '\0';
	if (!run_id_ok(text))
		return -EBADMSG;
	snprintf(id, size, "%s", text);
	return 0;
}

/* The run's bundle.json must be a bundle that names this run. */
static int check_bundle(struct walk *w, ext2_ino_t run, const char *id, const char *image)
{
	_cleanup_free_ char *text = NULL;
	json_auto_t *doc = NULL;
	const char *named;
	char shown[256];
	int r = read_small(w->src.fs, run, "bundle.json", w->lim->max_file, &text);

	if (r < 0) {
		snprintf(w->err, w->es, "%s: runs/%s/bundle.json: %s", image, id,
			 r == -EINVAL  ? "not a regular file"
			 : r == -EFBIG ? "over the per-file cap"
				       : strerror(-r));
		return r == -ENOENT || r == -EINVAL ? -EBADMSG : r;
	}
	doc = json_loads(text, 0, NULL);
	named = json_string_value(json_object_get(doc, "run_id"));
	if (!named || !streq(named, id)) {
		show_name(shown, sizeof(shown), named ?: "(none)", named ? strlen(named) : 6);
		snprintf(w->err, w->es, "%s: runs/%s/bundle.json names run '%s', not '%s': not extracted", image, id,
			 shown, id);
		return -EBADMSG;
	}
	return 0;
}

static int write_report(struct walk *w, int dfd, const char *image, const char *id)
{
	json_auto_t *doc = json_pack(
		"{s:s, s:s, s:s, s:{s:I, s:I, s:I, s:i}, s:I, s:I, s:I, s:I, s:O}", "schema", "fsagent-extraction/1",
		"image", image, "run_id", id, "limits", "max_file", (json_int_t)w->lim->max_file, "max_total",
		(json_int_t)w->lim->max_total, "max_entries", (json_int_t)w->lim->max_entries, "max_depth",
		(int)w->lim->max_depth, "files", (json_int_t)w->files, "dirs", (json_int_t)w->dirs, "bytes",
		(json_int_t)w->bytes, "refused_count", (json_int_t)w->refused, "refused", w->refusals);
	_cleanup_free_ char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
	int fd, r;

	if (!text)
		return -ENOMEM;
	fd = openat(dfd, "extraction.json", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	r = fileio_write_all(fd, text, strlen(text));
	if (r == 0)
		r = fileio_write_all(fd, "\n", 1);
	close(fd);
	return r;
}

int extract_run(const char *image, const char *run_id, const char *into, const struct extract_limits *lim,
		struct extract_result *res, char *err, size_t es)
{
	struct walk w = { .lim = lim, .src = { .imgfd = -1, .cfr = true }, .err = err, .es = es };
	char priv[PATH_MAX], id[128];
	struct ext2_inode inode;
	ext2_ino_t runs, run;
	int intofd = -1, pfd = -1, rfd = -1, r;
	errcode_t e;

	memset(res, 0, sizeof(*res));
	if (run_id && !run_id_ok(run_id)) {
		snprintf(err, es, "run id: not a plain name");
		return -EINVAL;
	}
	intofd = open(into, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (intofd < 0) {
		r = -errno;
		snprintf(err, es, "%s: %s", into, strerror(errno));
		return r;
	}
	e = ext2fs_open2(image, NULL, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &w.src.fs);
	if (e) {
		snprintf(err, es, "%s: not a readable ext2/3/4 image: %s", image, error_message(e));
		close(intofd);
		return -EBADMSG;
	}
	w.src.imgfd = open(image, O_RDONLY | O_CLOEXEC);
	r = w.src.imgfd < 0 ? -errno : extract_ext2_errno(ext2fs_read_inode_bitmap(w.src.fs));
	if (r == 0)
		r = extract_ext2_errno(ext2fs_allocate_inode_bitmap(w.src.fs, "entered", &w.seen));
	if (r < 0) {
		snprintf(err, es, "%s: %s", image, strerror(-r));
		goto out;
	}
	if (run_id)
		snprintf(id, sizeof(id), "%s", run_id);
	else if ((r = current_run(w.src.fs, id, sizeof(id))) < 0) {
		snprintf(err, es, "%s: /current-run: %s", image,
			 r == -EBADMSG	? "not a plain run id"
			 : r == -EINVAL ? "not a regular file"
					: strerror(-r));
		r = -EBADMSG;
		goto out;
	}
	r = lookup(w.src.fs, EXT2_ROOT_INO, "runs", true, &runs, &inode);
	if (r == 0)
		r = lookup(w.src.fs, runs, id, true, &run, &inode);
	if (r < 0) {
		snprintf(err, es, "%s: runs/%s: %s", image, id, r == -ENOTDIR ? "not a directory" : strerror(-r));
		r = -EBADMSG;
		goto out;
	}
	w.src.buf = malloc(EXTRACT_COPY_CHUNK);
	w.refusals = json_array();
	if (!w.src.buf || !w.refusals) {
		r = -ENOMEM;
		goto out;
	}
	r = check_bundle(&w, run, id, image);
	if (r < 0)
		goto out;

	/* the tree is built where nobody else writes, then moved in whole */
	if (snprintf(priv, sizeof(priv), "%s/.extract.XXXXXX", into) >= (int)sizeof(priv) || !mkdtemp(priv)) {
		r = -errno ?: -ENAMETOOLONG;
		snprintf(err, es, "%s: cannot make a private directory: %s", into, strerror(-r));
		goto out;
	}
	pfd = open(priv, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0 || mkdirat(pfd, id, 0755) < 0 ||
	    (rfd = openat(pfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = -errno;
		snprintf(err, es, "%s: %s", priv, strerror(errno));
		goto out;
	}
	r = walk_dir(&w, run, rfd, "", 0);
	if (r == 0)
		r = write_report(&w, rfd, image, id);
	if (r < 0) {
		if (!err[0])
			snprintf(err, es, "%s/%s: %s", priv, id, strerror(-r));
		goto out;
	}
	if (renameat2(pfd, id, intofd, id, RENAME_NOREPLACE) < 0) {
		r = -errno;
		snprintf(err, es, "%s/%s %s; the run is left in %s/%s", into, id,
			 r == -EEXIST ? "exists already" : strerror(-r), priv, id);
		goto out;
	}
	unlinkat(intofd, priv + strlen(into) + 1, AT_REMOVEDIR);
	snprintf(res->dest, sizeof(res->dest), "%s/%s", into, id);
	snprintf(res->run_id, sizeof(res->run_id), "%s", id);
	res->files = w.files;
	res->dirs = w.dirs;
	res->bytes = w.bytes;
	res->refused = w.refused;
out:
	if (rfd >= 0)
		close(rfd);
	if (pfd >= 0)
		close(pfd);
	close(intofd);
	if (w.seen)
		ext2fs_free_inode_bitmap(w.seen);
	if (w.src.imgfd >= 0)
		close(w.src.imgfd);
	ext2fs_close_free(&w.src.fs);
	json_decref(w.refusals);
	free(w.src.buf);
	return r;
}
