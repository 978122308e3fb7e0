// SPDX-License-Identifier: MIT
/*
 * fstests.config read back (see fstests_config.h).
 */
#include "model/fstests_config.h"
#include "util/lines.h"
#include "util/macro.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool section_ok(const char *s, size_t n)
{
	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static bool key_ok(const char *s, size_t n)
{
	if (n == 0 || n > 64 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* The value of `"v"` or `v`, in place; NULL when it is neither. */
static char *value_of(char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		v[n - 1] = '\0';
		v++;
	} else if (strpbrk(v, " \t")) {
		return NULL;
	}
	if (strpbrk(v, "\"'`$\\"))
		return NULL;
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return NULL;
	return v;
}

int fstests_config_parse(const char *text, const char *file, json_t **ret, char *err, size_t errsize)
{
	json_auto_t *doc = json_object();
	json_t *cur = NULL;
	struct lines l;
	int r;

	if (!doc)
		return -ENOMEM;
	lines_init(&l, text);
	while ((r = lines_next(&l)) > 0) {
		char *line = l.line, *eq, *v;
		size_t n = strlen(line);

		if (line[0] == '[') {
			if (n < 2 || line[n - 1] != ']' || !section_ok(line + 1, n - 2)) {
				snprintf(err, errsize, "%s:%u: '%s' is not a section name of [a-z0-9_]", file, l.lineno,
					 line);
				r = -EINVAL;
				break;
			}
			line[n - 1] = '\0';
			if (json_object_get(doc, line + 1)) {
				snprintf(err, errsize, "%s:%u: section '%s' seen twice", file, l.lineno, line + 1);
				r = -EINVAL;
				break;
			}
			if (json_object_set_new(doc, line + 1, cur = json_object()) < 0) {
				r = -ENOMEM;
				break;
			}
			continue;
		}
		eq = strchr(line, '=');
		if (!eq || !key_ok(line, (size_t)(eq - line))) {
			snprintf(err, errsize, "%s:%u: expected KEY=\"value\" or [section], got '%.80s'", file,
				 l.lineno, line);
			r = -EINVAL;
			break;
		}
		*eq = '\0';
		if (!cur) {
			snprintf(err, errsize, "%s:%u: key '%s' before any [section]", file, l.lineno, line);
			r = -EINVAL;
			break;
		}
		v = value_of(eq + 1);
		if (!v) {
			snprintf(err, errsize, "%s:%u: key '%s': the value is not one quoted string", file, l.lineno,
				 line);
			r = -EINVAL;
			break;
		}
		if (json_object_set_new(cur, line, json_string(v)) < 0) {
			r = -ENOMEM;
			break;
		}
	}
	lines_release(&l);
	if (r < 0)
		return r;
	*ret = json_incref(doc);
	return 0;
}
