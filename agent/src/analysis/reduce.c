// SPDX-License-Identifier: MIT
/*
 * ddmin over the tests before an order-dependent failure (see reduce.h).
 */
#include "analysis/reduce.h"
#include "model/bundle.h"
#include "model/result.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct reducer {
	const char *suspect;
	unsigned budget, probes;
	reduce_probe probe;
	void *data;
	char **buf; /* a probe's list: the set, then the suspect */
};

/* Probe set[0..n) then the suspect. Returns 1 failed, 0 passed, -ENOSPC over budget, or the probe's error. */
static int try_set(struct reducer *r, char *const *set, size_t n)
{
	if (r->probes >= r->budget)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++)
		r->buf[i] = set[i];
	r->buf[n] = (char *)r->suspect;
	r->buf[n + 1] = NULL;
	r->probes++;
	return r->probe(r->data, r->buf, n + 1);
}

/* Keep, in the order of all, the members of all[lo..hi) (sub) or all but them (!sub) into out. Returns the count. */
static size_t pick(char *const *all, size_t n, size_t lo, size_t hi, bool sub, char **out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if ((i >= lo && i < hi) == sub)
			out[k++] = all[i];
	return k;
}

/*
 * Zeller's ddmin: cur[0..*n) fails; shrink it in place to a 1-minimal
 * failing set. Returns 0, -ENOSPC when the budget ran out (cur is the
 * smallest failing set so far), or a probe error.
 */
static int ddmin(struct reducer *r, char **cur, size_t *n)
{
	size_t gran = 2;
	char **cand = calloc(*n + 1, sizeof(*cand));
	int rc = 0;

	if (!cand)
		return -ENOMEM;
	while (*n >= 2) {
		bool reduced = false;

		if (gran > *n)
			gran = *n;
		/* each chunk alone, then each complement */
		for (int pass = 0; pass < 2 && !reduced; pass++)
			for (size_t c = 0; c < gran && !reduced; c++) {
				size_t lo = *n * c / gran, hi = *n * (c + 1) / gran;
				size_t k = pick(cur, *n, lo, hi, pass == 0, cand);

				if (k == 0 || k == *n)
					continue;
				rc = try_set(r, cand, k);
				if (rc < 0)
					goto out;
				if (rc == 1) {
					memcpy(cur, cand, k * sizeof(*cand));
					*n = k;
					gran = pass == 0 ? 2 : (gran > 2 ? gran - 1 : 2);
					reduced = true;
				}
			}
		if (reduced)
			continue;
		if (gran >= *n)
			break; /* every single one tried: 1-minimal */
		gran = gran * 2 < *n ? gran * 2 : *n;
	}
	rc = 0;
out:
	free(cand);
	return rc;
}

int reduce_order(char *const *before, size_t n, const char *suspect, unsigned budget, reduce_probe probe, void *data,
		 struct reduce_result *ret)
{
	struct reducer r = { .suspect = suspect, .budget = budget, .probe = probe, .data = data };
	char **cur = NULL;
	size_t k = n;
	int rc;

	memset(ret, 0, sizeof(*ret));
	r.buf = calloc(n + 2, sizeof(*r.buf));
	cur = calloc(n + 1, sizeof(*cur));
	if (!r.buf || !cur) {
		rc = -ENOMEM;
		goto out;
	}
	/* alone first: a failure without any test before it is no order's */
	rc = try_set(&r, NULL, 0);
	if (rc < 0)
		goto out;
	if (rc == 1) {
		ret->verdict = REDUCE_FAILS_ALONE;
		rc = 0;
		goto out;
	}
	rc = try_set(&r, before, n);
	if (rc < 0)
		goto out;
	if (rc == 0) {
		ret->verdict = REDUCE_NOT_REPRODUCED;
		goto out;
	}
	memcpy(cur, before, n * sizeof(*cur));
	rc = ddmin(&r, cur, &k);
	if (rc < 0 && rc != -ENOSPC)
		goto out;
	ret->verdict = rc == -ENOSPC ? REDUCE_BUDGET : REDUCE_FOUND;
	ret->culprits = strv_split("", ",");
	for (size_t i = 0; ret->culprits && i < k; i++)
		if (strv_push(&ret->culprits, cur[i]) < 0)
			break;
	rc = ret->culprits && strv_length(ret->culprits) == k ? 0 : -ENOMEM;
out:
	ret->probes = r.probes;
	if (rc == -ENOSPC) /* the budget ended before the two checks: nothing known */
		rc = -EINVAL;
	free(r.buf);
	free(cur);
	return rc;
}

void reduce_result_release(struct reduce_result *r)
{
	strv_free(r->culprits);
	memset(r, 0, sizeof(*r));
}

const char *reduce_verdict_to_string(enum reduce_verdict v)
{
	static const char *const names[] = { [REDUCE_FOUND] = "found",
					     [REDUCE_FAILS_ALONE] = "fails-alone",
					     [REDUCE_NOT_REPRODUCED] = "not-reproduced",
					     [REDUCE_BUDGET] = "budget" };

	return v <= REDUCE_BUDGET ? names[v] : "?";
}

int reduce_file_load(const char *path, json_t **ret, char *err, size_t es)
{
	_cleanup_free_ char *buf = NULL;
	json_error_t je;
	json_t *doc, *e, *v;
	size_t len, i, k;
	int r = fileio_read_regular(path, 1 << 20, &buf, &len);

	if (r < 0) {
		if (err)
			snprintf(err, es, "%s: %s", path, strerror(-r));
		return r;
	}
	doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		if (err)
			snprintf(err, es, "%s: line %d: %s", path, je.line, je.text);
		return -EBADMSG;
	}
	if (!streq(json_string_value(json_object_get(doc, "schema")) ?: "", REDUCE_SCHEMA) ||
	    !json_is_array(json_object_get(doc, "reductions")))
		goto bad;
	json_array_foreach(json_object_get(doc, "reductions"), i, e) {
		const char *verdict = json_string_value(json_object_get(e, "verdict")), *name;
		bool known = false;

		name = json_string_value(json_object_get(e, "config"));
		if (!name || !config_name_ok(name))
			goto bad;
		name = json_string_value(json_object_get(e, "test"));
		if (!name || !test_name_ok(name, NULL))
			goto bad;
		for (int d = 0; d <= REDUCE_BUDGET; d++)
			known |= verdict && streq(verdict, reduce_verdict_to_string((enum reduce_verdict)d));
		if (!known || !json_is_array(json_object_get(e, "culprits")))
			goto bad;
		json_array_foreach(json_object_get(e, "culprits"), k, v)
			if (!json_is_string(v) || !test_name_ok(json_string_value(v), NULL))
				goto bad;
		for (const char *const *f =
			     (const char *const[]){ "probes", "confirm_runs", "fails_with", "fails_alone", NULL };
		     *f; f++)
			if (!json_is_integer(json_object_get(e, *f)) ||
			    json_integer_value(json_object_get(e, *f)) < 0 ||
			    json_integer_value(json_object_get(e, *f)) > 1000000)
				goto bad;
	}
	*ret = doc;
	return 0;
bad:
	if (err)
		snprintf(err, es, "%s: not a file of fsagent reduce's results (schema %s)", path, REDUCE_SCHEMA);
	json_decref(doc);
	return -EBADMSG;
}

void reduce_print(json_t *res, FILE *out)
{
	const char *verdict = json_string_value(json_object_get(res, "verdict")) ?: "";
	json_int_t m = json_integer_value(json_object_get(res, "confirm_runs"));
	json_t *v;
	size_t i;

	fprintf(out, "%s %s ", json_string_value(json_object_get(res, "config")),
		json_string_value(json_object_get(res, "test")));
	if (streq(verdict, "fails-alone") || streq(verdict, "not-reproduced")) {
		fprintf(out, "%s: not order-dependent here (%lld probes)\n",
			streq(verdict, "fails-alone") ? "fails alone" : "passed after every test before it",
			(long long)json_integer_value(json_object_get(res, "probes")));
		return;
	}
	fputs("fails after ", out);
	json_array_foreach(json_object_get(res, "culprits"), i, v)
		fprintf(out, "%s%s", i ? " and " : "", json_string_value(v));
	if (m)
		fprintf(out, " (%lld of %lld), passes alone (%lld of %lld)",
			(long long)json_integer_value(json_object_get(res, "fails_with")), (long long)m,
			(long long)(m - json_integer_value(json_object_get(res, "fails_alone"))), (long long)m);
	fprintf(out, "; %lld of the %lld tests before it, found in %lld probes%s\n",
		(long long)json_array_size(json_object_get(res, "culprits")),
		(long long)json_integer_value(json_object_get(res, "before")),
		(long long)json_integer_value(json_object_get(res, "probes")),
		streq(verdict, "budget") ? "; the budget ran out before the set was minimal" : "");
}
