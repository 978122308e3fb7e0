// SPDX-License-Identifier: MIT
/*
 * Line cursor (see lines.h).
 */
#include "lines.h"
#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lines_init(struct lines *l, const char *text)
{
	memset(l, 0, sizeof(*l));
	l->next = text && *text ? text : NULL;
}

int lines_next(struct lines *l)
{
	while (l->next) {
		const char *eol = strchrnul(l->next, '\n');
		char *hash;

		free(l->buf);
		l->buf = strndup(l->next, (size_t)(eol - l->next));
		l->lineno++;
		l->next = *eol && eol[1] ? eol + 1 : NULL;
		if (!l->buf)
			return -ENOMEM;
		l->comment = NULL;
		hash = strchr(l->buf, '#');
		if (hash) {
			*hash = '\0';
			l->comment = fileio_strstrip(hash + 1);
		}
		l->line = fileio_strstrip(l->buf);
		if (*l->line)
			return 1;
	}
	return 0;
}

void lines_release(struct lines *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

int lines_key_value(struct lines *l, const char *file, char **ret_key, char **ret_value, char *err, size_t es)
{
	char *eq = strchr(l->line, '=');

	if (!eq) {
		snprintf(err, es, "%s:%u: '%s' is not 'key = value'", file, l->lineno, l->line);
		return -EINVAL;
	}
	*eq = '\0';
	*ret_key = fileio_strstrip(l->line);
	*ret_value = fileio_strstrip(eq + 1);
	if (!**ret_key) {
		snprintf(err, es, "%s:%u: missing key before '='", file, l->lineno);
		return -EINVAL;
	}
	return 0;
}
