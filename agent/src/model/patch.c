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

/*
 * A name git C-quoted ("a/f\303\244 \"x\".c": quotes, backslashes, control
 * and non-ASCII bytes escaped) from s (at its opening quote) into *ret;
 * *used: the bytes taken, the closing quote included. -EBADMSG when it is
 * not one.
 */
static int unquote(const char *s, size_t len, char **ret, size_t *used)
{
	static const char esc[] = "a\ab\bf\fn\nr\rt\tv\v\"\"\\\\";
	char *out = malloc(len + 1), *o = out;
	size_t i = 1;

	if (!out)
		return -ENOMEM;
	while (i < len && s[i] != '"') {
		const char *e;

		if (s[i] != '\\') {
			*o++ = s[i++];
		} else if (i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
			   s[i + 3] >= '0' && s[i + 3] <= '7') {
			*o++ = (char)((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 | (s[i + 3] - '0'));
			i += 4;
		} else if (i + 1 < len && s[i + 1] && (e = strchr(esc, s[i + 1])) && (e - esc) % 2 == 0) {
			*o++ = e[1];
			i += 2;
		} else {
			break;
		}
	}
	if (i >= len || s[i] != '"' || o == out) {
		free(out);
		return -EBADMSG;
	}
	*o = '\0';
	*ret = out;
	*used = i + 1;
	return 0;
}

/* "a/fs/x.c" -> "fs/x.c" (git's quoted form unquoted, a diff -u timestamp after a tab dropped); NULL for /dev/null */
static int strip_path(const char *s, size_t len, char **ret)
{
	const char *tab = memchr(s, '\t', len), *slash;
	char *q = NULL;
	size_t used;
	int r;

	*ret = NULL;
	if (len && s[0] == '"') {
		if ((r = unquote(s, len, &q, &used)) < 0)
			return r;
		s = q;
		len = strlen(q);
	} else if (tab) {
		len = (size_t)(tab - s);
	}
	while (!q && len && (s[len - 1] == ' ' || s[len - 1] == '\r'))
		len--;
	if (len == 9 && !memcmp(s, "/dev/null", 9)) {
		free(q);
		return 0;
	}
	slash = memchr(s, '/', len);
	if (slash && (size_t)(slash - s) + 1 < len) {
		len -= (size_t)(slash - s) + 1;
		s = slash + 1;
	}
	*ret = strndup(s, len);
	free(q);
	return *ret ? 0 : -ENOMEM;
}

/* "diff --git a/X b/X"'s names (either quoted) into f; -EBADMSG when they are not there. */
static int git_names(const char *s, struct patch_file *f)
{
	size_t len = strlen(s), used;
	const char *b;
	char *q;
	int r;

	if (s[0] == '"') {
		if ((r = unquote(s, len, &q, &used)) < 0)
			return r;
		r = strip_path(q, strlen(q), &f->old_path);
		free(q);
		if (r < 0 || s[used] != ' ')
			return r < 0 ? r : -EBADMSG;
		b = s + used + 1;
	} else {
		if (strncmp(s, "a/", 2) != 0 || !(b = strstr(s, " b/")) ||
		    (r = strip_path(s, (size_t)(b - s), &f->old_path)) < 0)
			return -EBADMSG;
		b++;
	}
	return strip_path(b, strlen(b), &f->new_path);
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

/* The largest line number or count a hunk may name: 2^31 - 1 (a start and its count together too). */
#define PATCH_LINE_MAX 0x7fffffffu

/* Decimal digits at *s as a line number or count (no sign, no overflow); *s moved past them. */
static int number(const char **s, uint32_t *ret)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -EBADMSG;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (uint64_t)(*p - '0')) > PATCH_LINE_MAX)
			return -ERANGE;
	*s = p;
	*ret = (uint32_t)v;
	return 0;
}

/* ",n" after a number, when there: *ret, else 1 (a hunk of one line). */
static int count(const char **s, uint32_t *ret)
{
	*ret = 1;
	if (**s != ',')
		return 0;
	(*s)++;
	return number(s, ret);
}

/* "@@ -a[,b] +c[,d] @@ section": -EBADMSG when it is not one, -ERANGE for a number past PATCH_LINE_MAX */
static int parse_hunk_header(const char *s, struct patch_hunk *h)
{
	uint32_t a, b, c, d;
	const char *at;
	int r;

	if (strncmp(s, "@@ -", 4) != 0)
		return -EBADMSG;
	s += 4;
	if ((r = number(&s, &a)) < 0 || (r = count(&s, &b)) < 0)
		return r;
	if (strncmp(s, " +", 2) != 0)
		return -EBADMSG;
	s += 2;
	if ((r = number(&s, &c)) < 0 || (r = count(&s, &d)) < 0)
		return r;
	if (strncmp(s, " @@", 3) != 0)
		return -EBADMSG;
	if ((uint64_t)a + b > PATCH_LINE_MAX || (uint64_t)c + d > PATCH_LINE_MAX)
		return -ERANGE;
	at = s + 3;
	while (*at == ' ')
		at++;
	*h = (struct patch_hunk){ .old_start = a, .old_len = b, .new_start = c, .new_len = d };
	h->section = strdup(at);
	return h->section ? 0 : -ENOMEM;
}

/* Whether hunk h starts before the previous one of its file ends, on either side. */
static bool overlaps(const struct patch_file *f, const struct patch_hunk *h)
{
	const struct patch_hunk *p = f->nhunks ? &f->hunks[f->nhunks - 1] : NULL;

	return p && (h->old_start < p->old_start + p->old_len || h->new_start < p->new_start + p->new_len);
}

int patch_parse(const char *buf, size_t len, const char *name, struct patch **ret, char *err, size_t es)
{
	struct patch *p = calloc(1, sizeof(*p));
	struct patch_file *f = NULL;
	size_t cap = 0, pos = 0;
	uint32_t left_old = 0, left_new = 0, old_no = 0, new_no = 0;
	unsigned lineno = 0, hunk_at = 0;
	bool git_header = false; /* f came from "diff --git" and has no "---" yet */
	bool hunk_ended = false; /* the line before ended a hunk */
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
		if (memchr(s, '\0', l)) {
			r = -EBADMSG;
			snprintf(err, es, "%s:%u: a NUL byte: not a text diff", name, lineno);
			break;
		}
		if (l && s[l - 1] == '\r')
			s[--l] = '\0';
		if (s[0] == '\\') /* "\ No newline at end of file" */
			continue;
		if (hunk_ended && !left_old && !left_new && (s[0] == '+' || s[0] == '-' || s[0] == ' ') &&
		    strcmp(s, "-- ") != 0 && strcmp(s, "--") != 0 &&
		    !(!strncmp(s, "--- ", 4) && pos < len && !strncmp(p->buf + pos, "+++ ", 4))) {
			/* as git apply and patch: a hunk whose counts leave changed lines out is corrupt */
			r = -EBADMSG;
			snprintf(err, es, "%s:%u: more lines than the hunk at line %u counts", name, lineno, hunk_at);
			break;
		}
		hunk_ended = false;
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
			hunk_ended = !left_old && !left_new;
			r = push_line(f, &cap, &pl);
			continue;
		}
		if (!strncmp(s, "diff --git ", 11)) {
			f = new_file(p);
			cap = 0;
			if (!f) {
				r = -ENOMEM;
				break;
			}
			git_header = true;
			/* names git could not write plainly are taken from "---"/"+++" (or stay unknown) */
			if ((r = git_names(s + 11, f)) == -EBADMSG)
				r = 0;
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
			    (r = strip_path(t + 4, l2 - 4, &f->new_path)) < 0) {
				if (r == -EBADMSG)
					snprintf(err, es, "%s:%u: a file name quoted wrongly", name, lineno);
				break;
			}
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
			else if (r == -ERANGE)
				snprintf(err, es, "%s:%u: a line number or count past %u in the hunk header", name,
					 lineno, PATCH_LINE_MAX);
			if (r == 0 && overlaps(f, &h)) {
				free(h.section);
				r = -EBADMSG;
				snprintf(err, es, "%s:%u: the hunk overlaps or comes before the one at line %u", name,
					 lineno, hunk_at);
			}
			if (r < 0) {
				r = r == -ERANGE ? -EBADMSG : r;
				break;
			}
			/* room doubles: a diff of a million one-line hunks must not copy the array a million times */
			if ((f->nhunks & (f->nhunks - 1)) == 0) {
				nv = realloc(f->hunks, (f->nhunks ? 2 * f->nhunks : 1) * sizeof(*nv));
				if (!nv) {
					free(h.section);
					r = -ENOMEM;
					break;
				}
				f->hunks = nv;
			}
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
