// SPDX-License-Identifier: MIT
/*
 * A parallel runner's fstests config (see runner_config.h).
 */
#include "model/runner_config.h"
#include "util/macro.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The key a line assigns ("TEST_DIR" of "  export TEST_DIR=/mnt"), into key; false for none. */
static bool line_key(const char *line, size_t len, char *key, size_t size)
{
	const char *p = line, *end = line + len, *k;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p > 7 && memcmp(p, "export", 6) == 0 && (p[6] == ' ' || p[6] == '\t'))
		for (p += 6; p < end && (*p == ' ' || *p == '\t');)
			p++;
	k = p;
	while (p < end &&
	       (*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
		p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == k || p == end || *p != '=' || (size_t)(p - k) >= size)
		return false;
	snprintf(key, size, "%.*s", (int)strcspn(k, " \t="), k);
	return true;
}

static bool set_here(const char *const *sets, const char *key)
{
	size_t n = strlen(key);

	for (const char *const *s = sets; s && *s; s++)
		if (strncmp(*s, key, n) == 0 && (*s)[n] == '=')
			return true;
	return false;
}

/* "[name]" alone on the line (blanks around allowed): its name into buf. */
static bool header(const char *line, size_t len, char *buf, size_t size)
{
	const char *p = line, *end = line + len, *close;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p != '[' || !(close = memchr(p, ']', (size_t)(end - p))) || (size_t)(close - p - 1) >= size)
		return false;
	snprintf(buf, size, "%.*s", (int)(close - p - 1), p + 1);
	return true;
}

/* How far a walk over the text is: the section it wants (the first when none was named) and whether it is in it. */
struct walk {
	const char *section;
	char first[128];
	bool in, sections;
};

/* Whether line is a section header; if so, the walk enters or leaves the section it wants. */
static bool walk_header(struct walk *w, const char *line, size_t len)
{
	char name[128];

	if (!header(line, len, name, sizeof(name)))
		return false;
	/* with no section named, check takes the first */
	if (!w->section) {
		snprintf(w->first, sizeof(w->first), "%s", name);
		w->section = w->first;
	}
	w->sections = true;
	w->in = streq(name, w->section);
	return true;
}

int runner_config_text(const char *text, const char *section, const char *const *sets, char **ret, char *err,
		       size_t errsize)
{
	struct walk w = { .section = section, .in = true };
	char *out = NULL, key[128];
	size_t size = 0;
	FILE *f;
	bool found = section == NULL;

	for (const char *const *s = sets; s && *s; s++)
		if (!strchr(*s, '=') || strpbrk(strchr(*s, '='), "\"\\$`\n")) {
			snprintf(err, errsize, "runner config: '%s' cannot be written as KEY=\"VALUE\"", *s);
			return -EINVAL;
		}
	f = open_memstream(&out, &size);
	if (!f)
		return -ENOMEM;
	for (const char *l = text; *l;) {
		size_t len = strcspn(l, "\n");

		if (walk_header(&w, l, len)) {
			found |= w.in;
			if (w.in)
				fprintf(f, "[%s]\n", w.section);
		} else if (w.in && !(line_key(l, len, key, sizeof(key)) && set_here(sets, key))) {
			fprintf(f, "%.*s\n", (int)len, l);
		}
		l += len + (l[len] == '\n');
	}
	if (!found) {
		fclose(f);
		free(out);
		snprintf(err, errsize, "runner config: no section [%s]", section);
		return -ENOENT;
	}
	for (const char *const *s = sets; s && *s; s++)
		fprintf(f, "%s%.*s=\"%s\"\n", w.sections ? "" : "export ", (int)strcspn(*s, "="), *s,
			strchr(*s, '=') + 1);
	if (fclose(f) != 0) {
		free(out);
		return -ENOMEM;
	}
	*ret = out;
	return 0;
}

int runner_config_get(const char *text, const char *section, const char *key, char *buf, size_t size)
{
	struct walk w = { .section = section, .in = true };
	char k[128];
	bool set = false;

	for (const char *l = text; *l;) {
		size_t len = strcspn(l, "\n");

		if (!walk_header(&w, l, len) && w.in && line_key(l, len, k, sizeof(k)) && streq(k, key)) {
			const char *v = (const char *)memchr(l, '=', len) + 1, *end = l + len;

			while (v < end && (*v == ' ' || *v == '\t'))
				v++;
			while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
				end--;
			if (end - v >= 2 && (*v == '"' || *v == '\'') && end[-1] == *v)
				v++, end--;
			if ((size_t)(end - v) >= size)
				return -ENAMETOOLONG;
			memcpy(buf, v, (size_t)(end - v));
			buf[end - v] = '\0';
			set = end > v;
		}
		l += len + (l[len] == '\n');
	}
	return set ? 0 : -ENOENT;
}
