// SPDX-License-Identifier: MIT
/*
 * Expunge upkeep (see upkeep.h): counts per config, test and kernel
 * release in an array indexed through a strmap; the report reads a sorted
 * copy.
 */
#include "analysis/upkeep.h"
#include "model/bundle.h"
#include "model/kver.h"
#include "util/macro.h"
#include "util/strmap.h"
#include "util/strv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cell {
	char *config, *test, *release;
	struct kver kv;
	uint64_t runs, fails;
};

struct upkeep {
	struct strmap keys; /* "config\x1ftest\x1frelease" -> index into v */
	struct cell *v;
	size_t n, cap;
	char release[128]; /* the bundle being read */
	unsigned bundles;
};

int upkeep_new(struct upkeep **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

void upkeep_free(struct upkeep *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++) {
		free(u->v[i].config);
		free(u->v[i].test);
		free(u->v[i].release);
	}
	free(u->v);
	strmap_release(&u->keys);
	free(u);
}

int upkeep_add(struct upkeep *u, const char *config, const char *test, const char *release, uint64_t runs,
	       uint64_t fails)
{
	char key[512];
	struct cell *c;
	bool added;
	long i;

	snprintf(key, sizeof(key), "%s\x1f%s\x1f%s", config, test, release);
	i = strmap_put(&u->keys, key, &added);
	if (i < 0)
		return -ENOMEM;
	if (!added) {
		u->v[i].runs += runs;
		u->v[i].fails += fails;
		return 0;
	}
	if (u->n == u->cap) {
		struct cell *nv = realloc(u->v, (u->cap = u->cap ? u->cap * 2 : 1024) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		u->v = nv;
	}
	c = &u->v[u->n++];
	*c = (struct cell){ strdup(config), strdup(test), strdup(release), { 0 }, runs, fails };
	if (!c->config || !c->test || !c->release)
		return -ENOMEM;
	if (kver_parse(release, &c->kv) < 0)
		c->kv = (struct kver){ 0 };
	return 0;
}

static int on_bundle(void *ctx, json_t *doc)
{
	struct upkeep *u = ctx;
	const char *rel = json_string_value(json_object_get(json_object_get(doc, "kernel"), "release"));

	snprintf(u->release, sizeof(u->release), "%s", rel ? rel : "unknown");
	u->bundles++;
	return 0;
}

static int on_outcome(void *ctx, const struct bundle_outcome *o)
{
	struct upkeep *u = ctx;
	bool pass = streq(o->status, "pass");

	if (streq(o->status, "notrun") || streq(o->status, "expunged"))
		return 0;
	return upkeep_add(u, o->config, o->test, u->release, o->count, pass ? 0 : o->count);
}

int upkeep_add_bundles(struct upkeep *u, const char *path, char *err, size_t es)
{
	static const struct bundle_scan_ops ops = { on_bundle, on_outcome };
	char **list = NULL;
	int r = bundle_find_all(path, &list, err, es);

	for (char **p = list; r >= 0 && *p; p++) {
		r = bundle_scan(*p, &ops, u, err, es);
		if (r < 0 && r != -EBADMSG)
			snprintf(err, es, "%s: %s", *p, strerror(-r));
	}
	strv_free(list);
	return r;
}

/* test, then config, then kernel release */
static int cmp_cell(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;
	int r = strcmp(x->test, y->test);

	if (r)
		return r;
	r = strcmp(x->config, y->config);
	return r ? r : kver_cmp(&x->kv, &y->kv) ? kver_cmp(&x->kv, &y->kv) : strcmp(x->release, y->release);
}

/* A config's verdict on a test: its kernel conditions and evidence, or none. */
struct verdict {
	const char *config;
	bool failing;  /* consistently, somewhere */
	char cond[96]; /* " kernel>=A kernel<=B" or "" */
	char why[200]; /* failed F/R on RELEASES */
};

static void judge(const struct cell *c, size_t n, const struct upkeep_opts *o, struct verdict *v)
{
	const struct cell *first = NULL, *last = NULL;
	uint64_t runs = 0, fails = 0;
	bool pass_before = false, pass_after = false;

	memset(v, 0, sizeof(*v));
	v->config = c[0].config;
	for (size_t i = 0; i < n; i++)
		if (c[i].runs && c[i].fails >= o->min_rate * c[i].runs) {
			if (!first)
				first = &c[i];
			last = &c[i];
			runs += c[i].runs;
			fails += c[i].fails;
		}
	if (!first || runs < o->min_runs)
		return;
	for (size_t i = 0; i < n; i++)
		if (c[i].runs && c[i].fails < o->min_rate * c[i].runs) {
			pass_before |= kver_cmp(&c[i].kv, &first->kv) < 0;
			pass_after |= kver_cmp(&c[i].kv, &last->kv) > 0;
		}
	v->failing = true;
	snprintf(v->cond, sizeof(v->cond), "%s%s%s%s", pass_before ? " kernel>=" : "",
		 pass_before ? first->release : "", pass_after ? " kernel<=" : "", pass_after ? last->release : "");
	if (first == last)
		snprintf(v->why, sizeof(v->why), "failed %llu/%llu on %s", (unsigned long long)fails,
			 (unsigned long long)runs, first->release);
	else
		snprintf(v->why, sizeof(v->why), "failed %llu/%llu on %s..%s", (unsigned long long)fails,
			 (unsigned long long)runs, first->release, last->release);
}

/* The releases a kernel condition copies must not break the rule's syntax. */
static bool release_ok(const char *s)
{
	struct kver k;

	for (const char *p = s; *p; p++)
		if (*p == ' ' || *p == '#' || *p == '\n' || *p == ',')
			return false;
	return kver_parse(s, &k) == 0;
}

static int write_rules(struct cell *v, size_t n, const struct upkeep_opts *o, FILE *out)
{
	int rules = 0;

	for (size_t t = 0; t < n;) {
		size_t t_end = t, nv = 0;
		struct verdict vs[64] = { { 0 } };
		bool any_ok = false;

		while (t_end < n && streq(v[t_end].test, v[t].test))
			t_end++;
		/* one verdict per config */
		for (size_t c = t; c < t_end && nv < ARRAY_SIZE(vs);) {
			size_t c_end = c;
			bool ok = true;

			while (c_end < t_end && streq(v[c_end].config, v[c].config))
				c_end++;
			for (size_t i = c; i < c_end; i++)
				ok &= release_ok(v[i].release);
			if (ok) {
				judge(&v[c], c_end - c, o, &vs[nv]);
				any_ok |= !vs[nv].failing;
				nv++;
			}
			c = c_end;
		}
		/* configs with the same conditions share a rule; config= only where it passed elsewhere */
		for (size_t i = 0; i < nv; i++) {
			bool done = false;

			if (!vs[i].failing)
				continue;
			for (size_t k = 0; k < i; k++)
				done |= vs[k].failing && streq(vs[k].cond, vs[i].cond);
			if (done)
				continue;
			fputs(v[t].test, out);
			if (any_ok) {
				fputs(" config=", out);
				for (size_t k = i, first = 1; k < nv; k++)
					if (vs[k].failing && streq(vs[k].cond, vs[i].cond)) {
						fprintf(out, "%s%s", first ? "" : ",", vs[k].config);
						first = 0;
					}
			}
			fprintf(out, "%s #", vs[i].cond);
			for (size_t k = i, first = 1; k < nv; k++)
				if (vs[k].failing && streq(vs[k].cond, vs[i].cond)) {
					fprintf(out, "%s %s: %s", first ? "" : ";", vs[k].config, vs[k].why);
					first = 0;
				}
			fputc('\n', out);
			rules++;
		}
		t = t_end;
	}
	return rules;
}

static void write_stale(const struct cell *v, size_t n, const struct upkeep_opts *o, const struct expunge_list *cur,
			FILE *out)
{
	bool head = false;

	for (size_t i = 0; i < cur->n; i++) {
		const struct expunge_rule *r = &cur->v[i];
		uint64_t runs = 0, fails = 0;
		unsigned tests = 0;
		const char *prev = NULL;

		if (r->arch || r->caps || r->not_caps)
			continue;
		for (size_t k = 0; k < n; k++) {
			char fs[64];
			struct expunge_ctx ctx = { v[k].kv, fs, v[k].config, NULL, NULL };

			snprintf(fs, sizeof(fs), "%.*s", (int)strcspn(v[k].config, "/"), v[k].config);
			if (!v[k].runs || !expunge_rule_matches(r, v[k].test, &ctx))
				continue;
			runs += v[k].runs;
			fails += v[k].fails;
			tests += !prev || !streq(prev, v[k].test);
			prev = v[k].test;
		}
		if (runs < o->min_runs || fails)
			continue;
		if (!head)
			fputs("\n# expunged tests that passed every run here: these rules can go\n", out);
		head = true;
		fprintf(out, "#   %s:%u: %s: passed %llu/%llu runs of %u test%s (%s)\n", r->file ? r->file : "?",
			r->line, r->pattern, (unsigned long long)runs, (unsigned long long)runs, tests,
			tests == 1 ? "" : "s", r->reason);
	}
}

int upkeep_write(struct upkeep *u, const struct upkeep_opts *o, const struct expunge_list *current, FILE *out)
{
	_cleanup_free_ struct cell *sorted = malloc((u->n ? u->n : 1) * sizeof(*sorted));
	int rules;

	if (!sorted)
		return -ENOMEM;
	/* sorted by test, config, kernel: a copy, the table stays as it is */
	if (u->n) {
		memcpy(sorted, u->v, u->n * sizeof(*sorted));
		qsort(sorted, u->n, sizeof(*sorted), cmp_cell);
	}
	fprintf(out, "# fsagent upkeep: %u bundles; a rule where a test failed at least %.0f%% of >= %u runs\n",
		u->bundles, o->min_rate * 100, o->min_runs);
	rules = write_rules(sorted, u->n, o, out);
	if (current)
		write_stale(sorted, u->n, o, current, out);
	return rules;
}
