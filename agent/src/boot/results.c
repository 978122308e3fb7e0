// SPDX-License-Identifier: MIT
/*
 * Results disk files: JSON documents and the claims ledger (see results.h).
 */
#include "boot/results.h"
#include "util/fileio.h"
#include "util/macro.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

void results_claims_free(char **claims)
{
	if (!claims)
		return;
	for (char **c = claims; *c; c++)
		free(*c);
	free(claims);
}

int results_parse_claims(const char *buf, char ***ret, char *err, size_t errsize)
{
	json_error_t jerr;
	json_auto_t *doc = json_loads(buf, 0, &jerr);
	json_t *arr, *e;
	const char *schema = NULL;
	char **v;
	size_t i;

	if (!doc) {
		snprintf(err, errsize, "claims.json: line %d: %s", jerr.line, jerr.text);
		return -EBADMSG;
	}
	if (json_unpack(doc, "{s:s, s:o}", "schema", &schema, "claims", &arr) < 0 || !json_is_array(arr)) {
		snprintf(err, errsize, "claims.json: key 'claims': missing, or not an array");
		return -EBADMSG;
	}
	if (!streq(schema, CLAIMS_SCHEMA)) {
		snprintf(err, errsize, "claims.json: key 'schema': '%s' is not '%s'", schema, CLAIMS_SCHEMA);
		return -EBADMSG;
	}
	v = calloc(json_array_size(arr) + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	json_array_foreach(arr, i, e) {
		const char *id = NULL;

		if (json_unpack(e, "{s:s}", "id", &id) < 0) {
			snprintf(err, errsize, "claims.json: key 'claims[%zu].id': missing", i);
			results_claims_free(v);
			return -EBADMSG;
		}
		v[i] = strdup(id);
		if (!v[i]) {
			results_claims_free(v);
			return -ENOMEM;
		}
	}
	*ret = v;
	return 0;
}

int results_read_claims(const char *dir, char ***ret, char *err, size_t errsize)
{
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX];
	int r;

	snprintf(path, sizeof(path), "%s/claims.json", dir);
	r = fileio_read_full(path, &buf, NULL);
	if (r == -ENOENT) {
		*ret = calloc(1, sizeof(char *));
		return *ret ? 0 : -ENOMEM;
	}
	if (r < 0) {
		snprintf(err, errsize, "claims.json: %s", strerror(-r));
		return r;
	}
	return results_parse_claims(buf, ret, err, errsize);
}

int results_write_json(const char *dir, const char *name, json_t *doc)
{
	_cleanup_free_ char *text = json_dumps(doc, JSON_INDENT(2));
	char path[PATH_MAX];
	size_t len;
	int r;

	if (!text)
		return -ENOMEM;
	len = strlen(text);
	/* documents end with a newline, like every text file */
	{
		char *t = realloc(text, len + 2);

		if (!t)
			return -ENOMEM;
		text = t;
		text[len++] = '\n';
		text[len] = '\0';
	}
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	r = fileio_write_atomic(path, text, len);
	return r;
}

int results_write_claims(const char *dir, const struct roles *r)
{
	_cleanup_free_ char *buf = NULL;
	json_auto_t *doc = NULL;
	char path[PATH_MAX];
	json_t *arr;
	bool changed = false;
	int rr;

	snprintf(path, sizeof(path), "%s/claims.json", dir);
	rr = fileio_read_full(path, &buf, NULL);
	if (rr == -ENOENT)
		doc = json_pack("{s:s, s:[]}", "schema", CLAIMS_SCHEMA, "claims");
	else if (rr < 0)
		return rr;
	else
		doc = json_loads(buf, 0, NULL);
	arr = json_object_get(doc, "claims");
	/* never overwrite a ledger we could not read: its entries would be lost */
	if (!json_is_array(arr))
		return -EBADMSG;
	for (size_t i = 0; i < r->n; i++) {
		const struct role_slot *s = &r->v[i];
		char id[160];
		bool known = false;
		size_t k;
		json_t *e;

		if (s->state != ROLE_ASSIGNED || s->role == ROLE_RESULTS)
			continue;
		roles_identity(s->dev, id, sizeof(id));
		json_array_foreach(arr, k, e) {
			const char *have = json_string_value(json_object_get(e, "id"));

			if (have && streq(have, id))
				known = true;
		}
		if (known)
			continue;
		json_array_append_new(arr, json_pack("{s:s, s:s, s:I}", "id", id, "role", role_to_string(s->role),
						     "size", (json_int_t)s->dev->size_bytes));
		changed = true;
	}
	if (!changed && rr == 0)
		return 0;
	return results_write_json(dir, "claims.json", doc);
}
