// SPDX-License-Identifier: MIT
/*
 * The kernel's gcov tree around each test (see gcov.h).
 */
#include "run/gcov.h"
#include "util/dirwalk.h"
#include "util/fileio.h"
#include "util/hash.h"
#include "util/macro.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct zero {
	char *rel; /* "fs/xfs/xfs_inode.gcda" */
	uint64_t hash;
};

struct gcov {
	char root[PATH_MAX];
	char **found, **dirs; /* found[i]: dirs[i] under root */
	size_t n;
	struct zero *zeros; /* each .gcda right after the first reset, sorted by rel */
	size_t nz, capz;
	bool have_zeros;
};

static uint64_t fnv(const char *s, size_t n)
{
	return hash_fnv1a(s, n) ^ n;
}

/* Under path, the first directory whose path ends in "/" want; depth-limited, symlinks not followed. */
static char *find_dir(const char *path, const char *want, int depth)
{
	size_t lp = strlen(path), lw = strlen(want);
	DIR *d;
	struct dirent *de;
	char *hit = NULL;

	if (lp > lw && path[lp - lw - 1] == '/' && streq(path + lp - lw, want))
		return strdup(path);
	if (depth == 0 || !(d = opendir(path)))
		return NULL;
	while (!hit && (de = readdir(d))) {
		char sub[PATH_MAX];
		struct stat st;

		if (de->d_name[0] == '.' || snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >= (int)sizeof(sub))
			continue;
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			hit = find_dir(sub, want, depth - 1);
	}
	closedir(d);
	return hit;
}

void gcov_free(struct gcov *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		free(g->found[i]);
		free(g->dirs[i]);
	}
	for (size_t i = 0; i < g->nz; i++)
		free(g->zeros[i].rel);
	free(g->found);
	free(g->dirs);
	free(g->zeros);
	free(g);
}

int gcov_open(const char *root, char *const *dirs, struct gcov **ret, char *err, size_t es)
{
	struct gcov *g = calloc(1, sizeof(*g));
	char reset[PATH_MAX + 8];
	struct stat st;
	size_t n = 0;

	if (!g)
		return -ENOMEM;
	snprintf(g->root, sizeof(g->root), "%s", root);
	snprintf(reset, sizeof(reset), "%s/reset", root);
	if (stat(reset, &st) < 0) {
		snprintf(err, es, "no '%s': not a kernel with gcov (CONFIG_GCOV_KERNEL, kconfig/gcov), or no debugfs",
			 reset);
		gcov_free(g);
		return -ENOENT;
	}
	while (dirs && dirs[n])
		n++;
	g->found = calloc(n ? n : 1, sizeof(*g->found));
	g->dirs = calloc(n ? n : 1, sizeof(*g->dirs));
	if (!g->found || !g->dirs) {
		gcov_free(g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		char want[PATH_MAX];

		/* "fs/xfs/" and "/fs/xfs" mean fs/xfs */
		snprintf(want, sizeof(want), "%s", dirs[i] + strspn(dirs[i], "/"));
		while (strlen(want) > 1 && want[strlen(want) - 1] == '/')
			want[strlen(want) - 1] = '\0';
		g->dirs[g->n] = strdup(want);
		g->found[g->n] = find_dir(root, want, 24);
		if (!g->dirs[g->n] || !g->found[g->n]) {
			snprintf(err, es, "coverage: no '%s' in '%s' (not built with GCOV_PROFILE?)", want, root);
			g->n++;
			gcov_free(g);
			return -ENOENT;
		}
		g->n++;
	}
	*ret = g;
	return 0;
}

static int add_zero(void *data, const char *path, const char *rel)
{
	struct gcov *g = data;
	_cleanup_free_ char *buf = NULL;
	size_t len;

	if (fileio_read_full(path, &buf, &len) < 0)
		return 0;
	if (g->nz == g->capz) {
		struct zero *nv = realloc(g->zeros, (g->capz = g->capz ? g->capz * 2 : 256) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		g->zeros = nv;
	}
	g->zeros[g->nz].rel = strdup(rel);
	if (!g->zeros[g->nz].rel)
		return -ENOMEM;
	g->zeros[g->nz++].hash = fnv(buf, len);
	return 0;
}

static int cmp_zero(const void *a, const void *b)
{
	return strcmp(((const struct zero *)a)->rel, ((const struct zero *)b)->rel);
}

int gcov_reset(struct gcov *g)
{
	char reset[PATH_MAX + 8];
	int r;

	snprintf(reset, sizeof(reset), "%s/reset", g->root);
	r = fileio_write_file(reset, "1\n", 2);
	if (r < 0 || g->have_zeros)
		return r;
	for (size_t i = 0; i < g->n; i++) {
		r = dirwalk_files(g->found[i], g->dirs[i], ".gcda", add_zero, g, 16);
		if (r < 0)
			return r;
	}
	qsort(g->zeros, g->nz, sizeof(*g->zeros), cmp_zero);
	g->have_zeros = true;
	return 0;
}

struct save {
	struct gcov *g;
	const char *dest;
	unsigned files;
};

static int save_one(void *data, const char *path, const char *rel)
{
	struct save *s = data;
	struct gcov *g = s->g;
	_cleanup_free_ char *buf = NULL;
	struct zero key = { (char *)rel, 0 }, *z;
	char out[PATH_MAX * 2];
	size_t len;
	int r;

	if (fileio_read_full(path, &buf, &len) < 0)
		return 0;
	z = bsearch(&key, g->zeros, g->nz, sizeof(*g->zeros), cmp_zero);
	if (z && z->hash == fnv(buf, len))
		return 0; /* as after the reset: not touched */
	snprintf(out, sizeof(out), "%s/%s", s->dest, rel);
	*strrchr(out, '/') = '\0';
	r = fileio_mkdir_p(out);
	if (r < 0)
		return r;
	snprintf(out, sizeof(out), "%s/%s", s->dest, rel);
	r = fileio_write_file(out, buf, len);
	if (r < 0)
		return r;
	s->files++;
	return 0;
}

int gcov_save(struct gcov *g, const char *dest, unsigned *ret_files)
{
	struct save s = { g, dest, 0 };
	int r = 0;

	for (size_t i = 0; r >= 0 && i < g->n; i++)
		r = dirwalk_files(g->found[i], g->dirs[i], ".gcda", save_one, &s, 16);
	*ret_files = s.files;
	return r;
}
