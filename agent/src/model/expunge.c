// SPDX-License-Identifier: MIT
/*
 * Expunge file parsing and matching (see expunge.h).
 */
#include "model/expunge.h"
#include "util/fileio.h"
#include "util/lines.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static void rule_release(struct expunge_rule *r)
{
	free(r->pattern);
	free(r->reason);
	free(r->file);
	strv_free(r->fs);
	strv_free(r->configs);
	strv_free(r->arch);
	strv_free(r->caps);
	strv_free(r->not_caps);
}

void expunge_list_release(struct expunge_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		rule_release(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int parse_kernel(struct expunge_rule *r, const char *cond)
{
	static const struct {
		const char *tok;
		enum expunge_op op;
	} ops[] = { { "<=", EXP_LE }, { ">=", EXP_GE }, { "<", EXP_LT }, { ">", EXP_GT }, { "=", EXP_EQ } };
	const char *p = cond + strlen("kernel");

	if (r->n_kernel >= ARRAY_SIZE(r->kernel))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (startswith(p, ops[i].tok)) {
			r->kernel[r->n_kernel].op = ops[i].op;
			if (kver_parse(p + strlen(ops[i].tok), &r->kernel[r->n_kernel].v) < 0)
				return -EINVAL;
			r->n_kernel++;
			return 0;
		}
	return -EINVAL;
}

/* "key=a,b" into a list; returns -EINVAL on an empty item */
static int parse_set(char ***dst, const char *value)
{
	char **v;

	if (!*value || strstr(value, ",,") || value[0] == ',' || value[strlen(value) - 1] == ',')
		return -EINVAL;
	v = strv_split(value, ",");
	if (!v)
		return -ENOMEM;
	if (strv_extend(dst, v) < 0) {
		strv_free(v);
		return -ENOMEM;
	}
	strv_free(v);
	return 0;
}

static int parse_condition(struct expunge_rule *r, const char *c)
{
	if (startswith(c, "kernel"))
		return parse_kernel(r, c);
	if (startswith(c, "fs="))
		return parse_set(&r->fs, c + 3);
	if (startswith(c, "config="))
		return parse_set(&r->configs, c + 7);
	if (startswith(c, "arch="))
		return parse_set(&r->arch, c + 5);
	if (startswith(c, "cap="))
		return parse_set(&r->caps, c + 4);
	if (startswith(c, "!cap="))
		return parse_set(&r->not_caps, c + 5);
	return -EINVAL;
}

static bool pattern_ok(const char *t)
{
	const char *slash = strchr(t, '/');

	return slash && slash != t && slash[1] && !strchr(slash + 1, '/');
}

int expunge_parse(struct expunge_list *list, const char *file, const char *buf, char *err, size_t es)
{
	struct expunge_list add = { 0 };
	struct lines l;
	int rl;

	lines_init(&l, buf);
	while ((rl = lines_next(&l)) > 0) {
		const unsigned lineno = l.lineno;
		struct expunge_rule r = { 0 };
		char *save = NULL, *tok;
		struct expunge_rule *nv;

		tok = strtok_r(l.line, " \t", &save);
		if (!pattern_ok(tok)) {
			snprintf(err, es, "%s:%u: '%s' is not a test (want dir/NNN or a glob)", file, lineno, tok);
			goto bad;
		}
		r.pattern = strdup(tok);
		while ((tok = strtok_r(NULL, " \t", &save))) {
			int rc = parse_condition(&r, tok);

			if (rc == -ENOMEM)
				goto nomem_rule;
			if (rc < 0) {
				snprintf(err, es, "%s:%u: bad condition '%s'", file, lineno, tok);
				rule_release(&r);
				goto bad;
			}
		}
		if (!l.comment || !*l.comment) {
			snprintf(err, es, "%s:%u: no reason given (add '# why')", file, lineno);
			rule_release(&r);
			goto bad;
		}
		r.reason = strdup(l.comment);
		r.file = strdup(file);
		r.line = lineno;
		if (!r.pattern || !r.reason || !r.file)
			goto nomem_rule;
		nv = realloc(add.v, (add.n + 1) * sizeof(*nv));
		if (!nv)
			goto nomem_rule;
		add.v = nv;
		add.v[add.n++] = r;
		continue;
	nomem_rule:
		rule_release(&r);
		rl = -ENOMEM;
		break;
	}
	lines_release(&l);
	if (rl < 0) {
		expunge_list_release(&add);
		return -ENOMEM;
	}
	/* all or nothing: append only a file that parsed whole */
	if (add.n) {
		struct expunge_rule *nv = realloc(list->v, (list->n + add.n) * sizeof(*nv));

		if (!nv) {
			expunge_list_release(&add);
			return -ENOMEM;
		}
		list->v = nv;
		memcpy(list->v + list->n, add.v, add.n * sizeof(*nv));
		list->n += add.n;
		free(add.v);
	}
	return 0;
bad:
	lines_release(&l);
	expunge_list_release(&add);
	return -EINVAL;
}

int expunge_load_files(struct expunge_list *l, const char *base, char *const *files, char *err, size_t es)
{
	for (size_t i = 0; files && files[i]; i++) {
		_cleanup_free_ char *buf = NULL;
		char path[PATH_MAX];
		int r;

		if (files[i][0] == '/' || !base)
			snprintf(path, sizeof(path), "%s", files[i]);
		else
			snprintf(path, sizeof(path), "%s/%s", base, files[i]);
		r = fileio_read_full(path, &buf, NULL);
		if (r < 0) {
			snprintf(err, es, "read expunge file '%s' failed: %s", path, strerror(-r));
			return r;
		}
		r = expunge_parse(l, files[i], buf, err, es);
		if (r < 0)
			return r;
	}
	return 0;
}

static bool in_set(char *const *set, const char *value, bool glob)
{
	for (size_t i = 0; set && set[i]; i++)
		if (value && (glob ? fnmatch(set[i], value, 0) == 0 : streq(set[i], value)))
			return true;
	return false;
}

static bool kernel_holds(const struct expunge_rule *r, const struct kver *k)
{
	for (unsigned i = 0; i < r->n_kernel; i++) {
		int c = kver_cmp(k, &r->kernel[i].v);
		bool ok = r->kernel[i].op == EXP_LT   ? c < 0
			  : r->kernel[i].op == EXP_LE ? c <= 0
			  : r->kernel[i].op == EXP_GT ? c > 0
			  : r->kernel[i].op == EXP_GE ? c >= 0
						      : c == 0;
		if (!ok)
			return false;
	}
	return true;
}

bool expunge_rule_matches(const struct expunge_rule *r, const char *test, const struct expunge_ctx *ctx)
{
	if (fnmatch(r->pattern, test, FNM_PATHNAME) != 0 || !kernel_holds(r, &ctx->kernel))
		return false;
	if ((r->fs && !in_set(r->fs, ctx->fs, false)) || (r->configs && !in_set(r->configs, ctx->config, true)) ||
	    (r->arch && !in_set(r->arch, ctx->arch, false)))
		return false;
	for (size_t k = 0; r->caps && r->caps[k]; k++)
		if (!strv_contains(ctx->caps, r->caps[k]))
			return false;
	for (size_t k = 0; r->not_caps && r->not_caps[k]; k++)
		if (strv_contains(ctx->caps, r->not_caps[k]))
			return false;
	return true;
}

const struct expunge_rule *expunge_match(const struct expunge_list *l, const char *test, const struct expunge_ctx *ctx)
{
	for (size_t i = 0; i < l->n; i++)
		if (expunge_rule_matches(&l->v[i], test, ctx))
			return &l->v[i];
	return NULL;
}
