// SPDX-License-Identifier: MIT
/*
 * String vectors (see strv.h).
 */
#include "strv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t strv_length(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

int strv_push(char ***v, const char *s)
{
	size_t n = strv_length(*v);
	char **nv = realloc(*v, (n + 2) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[n] = strdup(s);
	if (!nv[n]) {
		nv[n] = NULL;
		return -ENOMEM;
	}
	nv[n + 1] = NULL;
	return 0;
}

int strv_extend(char ***v, char *const *add)
{
	for (size_t i = 0; add && add[i]; i++)
		if (strv_push(v, add[i]) < 0)
			return -ENOMEM;
	return 0;
}

char **strv_split(const char *s, const char *seps)
{
	char **v = calloc(1, sizeof(*v));
	const char *p = s ? s : "";

	if (!v)
		return NULL;
	while (*p) {
		size_t n;
		char *w;

		p += strspn(p, seps);
		n = strcspn(p, seps);
		if (n == 0)
			break;
		w = strndup(p, n);
		if (!w || strv_push(&v, w) < 0) {
			free(w);
			strv_free(v);
			return NULL;
		}
		free(w);
		p += n;
	}
	return v;
}

bool strv_contains(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

char *strv_join(char *const *v, char sep)
{
	size_t len = 1;
	char *s, *p;

	for (size_t i = 0; v && v[i]; i++)
		len += strlen(v[i]) + 1;
	s = p = calloc(1, len);
	for (size_t i = 0; s && v && v[i]; i++) {
		if (i)
			*p++ = sep;
		p = stpcpy(p, v[i]);
	}
	return s;
}

json_t *strv_to_json(char *const *v)
{
	json_t *a = json_array();

	for (size_t i = 0; a && v && v[i]; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}
