// SPDX-License-Identifier: MIT
/*
 * Unified diffs (see patch.h): one pass over the lines, a hunk's counts
 * saying where it ends.
 */
#include "model/patch.h"
#include "util/macro.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void patch_free(struct patch *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nfiles; i++) {
		struct patch_file *f = &p->files[i];

		free(f->old_path);
		free(f->new_path);
		for (size_t k = 0; k < f->nhunks; k++)
			free(f->hunks[k].section);
		free(f->hunks);
		free(f->lines);
	}
	free(p->files);
	free(p->buf);
	free(p);
}

/* "a/fs/x.c" -> "fs/x.c" (and a diff -u timestamp after a tab dropped); NULL for /dev/null */
static int strip_path(const char *s, size_t len, char **ret)
{
	const char *tab = memchr(s, '\t', len), *slash;

	if (tab)
		len = (size_t)(tab - s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\r'))
		len--;
	*ret = NULL;
	if (len == 9 && !memcmp(s, "/dev/null", 9))
		return 0;
	slash = memchr(s, '/', len);
	if (slash && (size_t)(slash - s) + 1 < len) {
		len -= (size_t)(slash - s) + 1;
		s = slash + 1;
	}
	*ret = strndup(s, len);
	return *ret ? 0 : -ENOMEM;
}

static struct patch_file *new_file(struct patch *p)
{
	struct patch_file *nv = realloc(p->files, (p->nfiles + 1) * sizeof(*nv));

	if (!nv)
		return NULL;
	p->files = nv;
	memset(&nv[p->nfiles], 0, sizeof(nv[p->nfiles]));
	return &nv[p->nfiles++];
}

static int push_line(struct patch_file *f, size_t *cap, const struct patch_line *l)
{
	if (f->nlines == *cap) {
		struct patch_line *nv = realloc(f->lines, (*cap = *cap ? *cap * 2 : 64) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		f->lines = nv;
	}
	f->lines[f->nlines++] = *l;
	return 0;
}

/* "@@ -a[,b] +c[,d] @@ section" */
static int parse_hunk_header(const char *s, struct patch_hunk *h)
{
	unsigned a, b = 1, c, d = 1;
	int n = 0;
	const char *at;

	if (sscanf(s, "@@ -%u%n", &a, &n) != 1)
		return -EBADMSG;
	s += n;
	if (*s == ',' && sscanf(s, ",%u%n", &b, &n) == 1)
		s += n;
	if (sscanf(s, " +%u%n", &c, &n) != 1)
		return -EBADMSG;
	s += n;
	if (*s == ',' && sscanf(s, ",%u%n", &d, &n) == 1)
		s += n;
	if (strncmp(s, " @@", 3) != 0)
		return -EBADMSG;
	at = s + 3;
	while (*at == ' ')
		at++;
	*h = (struct patch_hunk){ .old_start = a, .old_len = b, .new_start = c, .new_len = d };
	h->section = strdup(at);
	return h->section ? 0 : -ENOMEM;
}

int patch_parse(const char *buf, size_t len, const char *name, struct patch **ret, char *err, size_t es)
{
	struct patch *p = calloc(1, sizeof(*p));
	struct patch_file *f = NULL;
	size_t cap = 0, pos = 0;
	uint32_t left_old = 0, left_new = 0, old_no = 0, new_no = 0;
	unsigned lineno = 0, hunk_at = 0;
	bool git_header = false; /* f came from "diff --git" and has no "---" yet */
	int r = 0;

	*ret = NULL;
	if (!p || !(p->buf = malloc(len + 1))) {
		free(p);
		return -ENOMEM;
	}
	memcpy(p->buf, buf, len);
	p->buf[len] = '\0';
	while (r >= 0 && pos < len) {
		char *s = p->buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;

		pos += l + 1;
		lineno++;
		if (nl)
			*nl = '\0';
		if (l && s[l - 1] == '\r')
			s[--l] = '\0';
		if (s[0] == '\\') /* "\ No newline at end of file" */
			continue;
		if (left_old || left_new) {
			struct patch_line pl = {
				.kind = l ? s[0] : ' ', .text = l ? s + 1 : s, .len = l ? l - 1 : 0, .patch_no = lineno
			};

			if (pl.kind != ' ' && pl.kind != '-' && pl.kind != '+') {
				r = -EBADMSG;
				snprintf(err, es,
					 "%s:%u: the hunk at line %u ends early (%u old and %u new lines missing)",
					 name, lineno, hunk_at, left_old, left_new);
				break;
			}
			if ((pl.kind != '+' && !left_old) || (pl.kind != '-' && !left_new)) {
				r = -EBADMSG;
				snprintf(err, es, "%s:%u: more lines than the hunk at line %u counts", name, lineno,
					 hunk_at);
				break;
			}
			if (pl.kind != '+') {
				pl.old_no = old_no++;
				left_old--;
			}
			if (pl.kind != '-') {
				pl.new_no = new_no++;
				left_new--;
			}
			f->hunks[f->nhunks - 1].n++;
			r = push_line(f, &cap, &pl);
			continue;
		}
		if (!strncmp(s, "diff --git ", 11)) {
			const char *b = strstr(s + 11, " b/");

			f = new_file(p);
			cap = 0;
			if (!f) {
				r = -ENOMEM;
				break;
			}
			git_header = true;
			if (!strncmp(s + 11, "a/", 2) && b &&
			    ((r = strip_path(s + 11, (size_t)(b - s - 11), &f->old_path)) < 0 ||
			     (r = strip_path(b + 1, strlen(b + 1), &f->new_path)) < 0))
				break;
		} else if (!strncmp(s, "index ", 6) && f) {
			const char *dots = strstr(s + 6, "..");

			if (dots)
				sscanf(s + 6, "%40[0-9a-f]..%40[0-9a-f]", f->old_blob, f->new_blob);
		} else if ((!strncmp(s, "Binary files ", 13) || !strcmp(s, "GIT binary patch")) && f) {
			f->binary = true;
		} else if (!strncmp(s, "--- ", 4) && pos < len && !strncmp(p->buf + pos, "+++ ", 4)) {
			char *nl2 = memchr(p->buf + pos, '\n', len - pos), *t = p->buf + pos;
			size_t l2 = nl2 ? (size_t)(nl2 - t) : len - pos;

			if (!git_header || !f) {
				f = new_file(p);
				cap = 0;
				if (!f) {
					r = -ENOMEM;
					break;
				}
			}
			git_header = false;
			free(f->old_path);
			free(f->new_path);
			f->old_path = f->new_path = NULL;
			if ((r = strip_path(s + 4, l - 4, &f->old_path)) < 0 ||
			    (r = strip_path(t + 4, l2 - 4, &f->new_path)) < 0)
				break;
			pos += l2 + 1;
			lineno++;
		} else if (!strncmp(s, "@@ ", 3)) {
			struct patch_hunk h, *nv;

			if (!f || (!f->old_path && !f->new_path)) {
				r = -EBADMSG;
				snprintf(err, es, "%s:%u: a hunk before any '---'/'+++' file header", name, lineno);
				break;
			}
			r = parse_hunk_header(s, &h);
			if (r == -EBADMSG)
				snprintf(err, es, "%s:%u: '%.60s' is not a hunk header (@@ -A,B +C,D @@)", name, lineno,
					 s);
			if (r < 0)
				break;
			nv = realloc(f->hunks, (f->nhunks + 1) * sizeof(*nv));
			if (!nv) {
				free(h.section);
				r = -ENOMEM;
				break;
			}
			f->hunks = nv;
			h.first = f->nlines;
			f->hunks[f->nhunks++] = h;
			left_old = h.old_len;
			left_new = h.new_len;
			old_no = h.old_start;
			new_no = h.new_start;
			hunk_at = lineno;
		}
		/* anything else outside a hunk: mail headers, modes, renames, a signature */
	}
	if (r >= 0 && (left_old || left_new)) {
		r = -EBADMSG;
		snprintf(err, es, "%s:%u: the diff ends inside the hunk at line %u (%u old and %u new lines missing)",
			 name, lineno, hunk_at, left_old, left_new);
	}
	if (r >= 0 && !p->nfiles) {
		r = -EBADMSG;
		snprintf(err, es, "%s: no file in it: not a unified diff", name);
	}
	if (r < 0) {
		patch_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

const struct patch_file *patch_find(const struct patch *p, const char *path)
{
	for (size_t i = 0; i < p->nfiles; i++)
		if ((p->files[i].new_path && streq(p->files[i].new_path, path)) ||
		    (!p->files[i].new_path && p->files[i].old_path && streq(p->files[i].old_path, path)))
			return &p->files[i];
	return NULL;
}

uint32_t patch_map(const struct patch_file *f, uint32_t line, bool from_new)
{
	int64_t delta = 0;

	for (size_t k = 0; k < f->nhunks; k++) {
		const struct patch_hunk *h = &f->hunks[k];
		uint32_t start = from_new ? h->new_start : h->old_start, n = from_new ? h->new_len : h->old_len,
			 other = from_new ? h->old_len : h->new_len;

		if (n ? line < start : line <= start)
			break;
		if (line < start + n) {
			for (size_t i = h->first; i < h->first + h->n; i++) {
				const struct patch_line *l = &f->lines[i];

				if ((from_new ? l->new_no : l->old_no) == line)
					return l->kind == ' ' ? (from_new ? l->old_no : l->new_no) : 0;
			}
			return 0;
		}
		delta += (int64_t)other - (int64_t)n;
	}
	return (uint32_t)((int64_t)line + delta);
}
