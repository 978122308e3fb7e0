// SPDX-License-Identifier: MIT
/*
 * A commit message's upstream id and Fixes: tags (see commit_tags.h), read
 * line by line, each line's text bounded by len.
 */
#include "model/commit_tags.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* p[0..n) starts with word (any case); *p moved past it when it does */
static bool take(const char **p, const char *end, const char *word)
{
	size_t w = strlen(word);

	if ((size_t)(end - *p) < w || strncasecmp(*p, word, w) != 0)
		return false;
	*p += w;
	return true;
}

static void skip_blanks(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

/* The hex digits at *p (moved past them), lower-cased into out when there are from min to 40; else 0. */
static size_t take_hex(const char **p, const char *end, size_t min, char out[COMMIT_ID_SIZE])
{
	size_t n = 0;

	while (*p + n < end && isxdigit((unsigned char)(*p)[n]))
		n++;
	if (n < min || n > 40)
		return 0;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)(*p)[i]);
	out[n] = '\0';
	*p += n;
	return n;
}

/* One line's upstream id, by any of the three forms. */
static bool line_upstream(const char *p, const char *end, char id[COMMIT_ID_SIZE])
{
	skip_blanks(&p, end);
	if (take(&p, end, "commit ")) {
		/* "commit <id> upstream." */
		if (take_hex(&p, end, 40, id) != 40)
			return false;
		skip_blanks(&p, end);
		return take(&p, end, "upstream");
	}
	if (take(&p, end, "[")) {
		/* "[ Upstream commit <id> ]" */
		skip_blanks(&p, end);
		if (!take(&p, end, "upstream commit "))
			return false;
		skip_blanks(&p, end);
		return take_hex(&p, end, 40, id) == 40;
	}
	/* "(cherry picked from commit <id>)" */
	return take(&p, end, "(cherry picked from commit ") && take_hex(&p, end, 40, id) == 40;
}

int commit_upstream_id(const char *msg, size_t len, char id[COMMIT_ID_SIZE])
{
	const char *p = msg, *end = msg + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;

		if (line_upstream(p, eol, id))
			return 0;
		p = eol + 1;
	}
	id[0] = '\0';
	return -ENOENT;
}

size_t commit_fixes(const char *msg, size_t len, char (*ids)[COMMIT_ID_SIZE], size_t max)
{
	const char *p = msg, *end = msg + len;
	size_t n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end, *q = p;
		char id[COMMIT_ID_SIZE];
		bool seen = false;

		p = eol + 1;
		skip_blanks(&q, eol);
		if (!take(&q, eol, "fixes:"))
			continue;
		skip_blanks(&q, eol);
		/* the id ends the line or is followed by a blank ("Fixes: 0123456789ab ("subject")") */
		if (!take_hex(&q, eol, 8, id) || (q < eol && *q != ' ' && *q != '\t' && *q != '\r'))
			continue;
		for (size_t i = 0; i < n && i < max; i++)
			seen |= strcmp(ids[i], id) == 0;
		if (seen)
			continue;
		if (n < max)
			memcpy(ids[n], id, sizeof(id));
		n++;
	}
	return n;
}

bool commit_id_names(const char *prefix, const char *id)
{
	size_t n = strlen(prefix);

	return n >= 8 && n <= 40 && strlen(id) >= n && strncasecmp(prefix, id, n) == 0;
}

/* Whether s[0..n) is n hex digits. */
static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

int commit_mail(const char *mail, size_t len, char id[COMMIT_ID_SIZE], char *subject, size_t ss)
{
	const char *p = mail, *end = mail + len;
	bool in_headers = true, subj = false, diff = false;
	size_t sl = 0;

	id[0] = '\0';
	if (ss)
		subject[0] = '\0';
	if (len > 45 && memcmp(mail, "From ", 5) == 0 && all_hex(mail + 5, 40) && mail[45] == ' ') {
		for (int i = 0; i < 40; i++)
			id[i] = (char)tolower((unsigned char)mail[5 + i]);
		id[40] = '\0';
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		const size_t n = (size_t)(eol - p);

		if (in_headers && n == 0) {
			in_headers = false;
		} else if (in_headers && n > 8 && strncasecmp(p, "Subject:", 8) == 0) {
			subj = true;
			sl = (size_t)snprintf(subject, ss, "%.*s", (int)(n - 8), p + 8);
		} else if (in_headers && subj && (*p == ' ' || *p == '\t') && sl < ss) {
			sl += (size_t)snprintf(subject + sl, ss - sl, "%.*s", (int)n, p); /* a folded Subject */
		} else if (in_headers && n) {
			subj = false; /* another header: the Subject ended */
		} else if (!in_headers &&
			   ((n >= 11 && memcmp(p, "diff --git ", 11) == 0) || (n >= 4 && memcmp(p, "+++ ", 4) == 0))) {
			diff = true;
		}
		p = eol + 1;
	}
	if (!ss || !subject[0] || !diff)
		return -EINVAL;
	{
		/* blanks and "[PATCH 6.1 12/34]" tags off the front */
		char *q = subject;

		for (;;) {
			q += strspn(q, " \t");
			if (*q != '[' || !strchr(q, ']'))
				break;
			q = strchr(q, ']') + 1;
		}
		memmove(subject, q, strlen(q) + 1);
	}
	return subject[0] ? 0 : -EINVAL;
}
