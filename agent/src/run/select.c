// SPDX-License-Identifier: MIT
/*
 * group.list parsing and test selection (see select.h). check's own rules:
 * a bare group collects from tests/generic and tests/$FSTYP (ext2 and ext3
 * use ext4), "dir/group" from that directory only; test names match
 * [0-9]{3}-?[[:alnum:]-]*.
 */
#include "run/select.h"
#include "model/machine_wide.h"
#include "model/result.h"
#include "util/fileio.h"
#include "util/lines.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

void group_list_release(struct group_list *g)
{
	for (size_t i = 0; i < g->n; i++)
		strv_free(g->groups[i]);
	free(g->groups);
	strv_free(g->names);
	free(g->dir);
	memset(g, 0, sizeof(*g));
}

/* group.list names a test by its leaf, which starts with its number: "001" */
static bool name_ok(const char *n)
{
	return test_leaf_ok(n, false) && isdigit((unsigned char)n[0]) && isdigit((unsigned char)n[1]) &&
	       isdigit((unsigned char)n[2]);
}

int select_parse_group_list(const char *dir, const char *file, const char *buf, struct group_list *ret, char *err,
			    size_t errsize)
{
	struct group_list g = { .dir = strdup(dir), .names = strv_split("", " ") };
	struct lines l;
	int rl;

	if (!g.dir || !g.names)
		goto nomem;
	lines_init(&l, buf);
	while ((rl = lines_next(&l)) > 0) {
		char **words = strv_split(l.line, " \t"), ***ng;

		if (!words)
			break;
		if (!name_ok(words[0])) {
			snprintf(err, errsize, "%s:%u: '%s' is not a test name", file, l.lineno, words[0]);
			strv_free(words);
			lines_release(&l);
			group_list_release(&g);
			return -EINVAL;
		}
		ng = realloc(g.groups, (g.n + 1) * sizeof(*ng));
		if (ng)
			g.groups = ng;
		if (!ng || strv_push(&g.names, words[0]) < 0) {
			strv_free(words);
			rl = -ENOMEM;
			break;
		}
		/* the groups are the words after the name */
		free(words[0]);
		memmove(words, words + 1, strv_length(words + 1) * sizeof(*words) + sizeof(*words));
		g.groups[g.n++] = words;
	}
	lines_release(&l);
	if (rl != 0)
		goto nomem;
	*ret = g;
	return 0;
nomem:
	group_list_release(&g);
	snprintf(err, errsize, "%s: out of memory", file);
	return -ENOMEM;
}

void selection_release(struct selection *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].reason);
		free(s->v[i].source);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int load_dir(const char *root, const char *dir, struct group_list **lists, size_t *n, char *err, size_t es)
{
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX];
	struct group_list *nv;
	int r;

	for (size_t i = 0; i < *n; i++)
		if (streq((*lists)[i].dir, dir))
			return 0;
	snprintf(path, sizeof(path), "%s/tests/%s/group.list", root, dir);
	r = fileio_read_full(path, &buf, NULL);
	if (r == -ENOENT)
		return 0; /* no such directory here: nothing to select from it */
	if (r < 0) {
		snprintf(err, es, "read '%s' failed: %s", path, strerror(-r));
		return r;
	}
	nv = realloc(*lists, (*n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*lists = nv;
	r = select_parse_group_list(dir, path, buf, &nv[*n], err, es);
	if (r < 0)
		return r;
	(*n)++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Tests of group (bare, or dir/group) over the loaded lists, appended to *out. */
static int collect_group(const struct group_list *lists, size_t n, const char *group, const char *const *dirs,
			 char ***out)
{
	const char *slash = strchr(group, '/');
	const char *gname = slash ? slash + 1 : group;

	for (size_t i = 0; i < n; i++) {
		const struct group_list *g = &lists[i];
		bool wanted = false;

		if (slash)
			wanted = strncmp(g->dir, group, (size_t)(slash - group)) == 0 && g->dir[slash - group] == '\0';
		else
			for (size_t d = 0; dirs[d]; d++)
				wanted |= streq(g->dir, dirs[d]);
		if (!wanted)
			continue;
		for (size_t t = 0; t < g->n; t++) {
			char name[PATH_MAX];

			if (!strv_contains(g->groups[t], gname))
				continue;
			snprintf(name, sizeof(name), "%s/%s", g->dir, g->names[t]);
			if (strv_push(out, name) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static int add_selected(struct selection *s, const char *name, enum selected_state st, const char *reason,
			const char *source)
{
	struct selected_test *nv = realloc(s->v, (s->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	s->v = nv;
	nv[s->n] = (struct selected_test){ strdup(name), st, reason ? strdup(reason) : NULL,
					   source ? strdup(source) : NULL };
	if (!nv[s->n].name)
		return -ENOMEM;
	s->n++;
	return 0;
}

/* Which selected tests are in the serial group, and whether the tree has that group at all. */
static void mark_serial(struct selection *s, const struct group_list *lists, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t t = 0; t < lists[i].n; t++) {
			char name[PATH_MAX];

			if (!strv_contains(lists[i].groups[t], SELECT_SERIAL_GROUP))
				continue;
			s->knows_parallel = true;
			snprintf(name, sizeof(name), "%s/%s", lists[i].dir, lists[i].names[t]);
			for (size_t k = 0; k < s->n; k++)
				if (streq(s->v[k].name, name))
					s->v[k].serial = true;
		}
}

/*
 * Beside others: the tests whose scripts reach the whole machine are
 * serial too (model/machine_wide.h), said once. A script that cannot be
 * read is left to check.
 */
static void mark_machine_wide(struct selection *s, const char *root)
{
	char said[1024] = "";
	size_t k = 0, len = 0;

	for (size_t i = 0; i < s->n; i++) {
		_cleanup_free_ char *text = NULL;
		char path[PATH_MAX];
		size_t tl = 0;

		if (s->v[i].state != SEL_RUN || s->v[i].serial ||
		    snprintf(path, sizeof(path), "%s/tests/%s", root, s->v[i].name) >= (int)sizeof(path) ||
		    fileio_read_full(path, &text, &tl) < 0 || !(s->v[i].machine_why = machine_wide_why(text, tl)))
			continue;
		s->v[i].serial = true;
		if (k++ < 8 && len < sizeof(said))
			len += (size_t)snprintf(said + len, sizeof(said) - len, "%s%s (%s)", len ? ", " : "",
						s->v[i].name, s->v[i].machine_why);
	}
	if (k)
		log_info("%zu test%s need%s the machine alone, so run%s after the others, one at a time: %s%s", k,
			 k == 1 ? "" : "s", k == 1 ? "s" : "", k == 1 ? "s" : "", said, k > 8 ? ", ..." : "");
}

int select_tests(const char *root, const char *fstype, const struct plan *plan, const struct expunge_list *expunges,
		 const struct expunge_ctx *ctx, struct selection *ret, char *err, size_t es)
{
	const char *fsdir = streq(fstype, "ext2") || streq(fstype, "ext3") ? "ext4" : fstype;
	const char *dirs[] = { "generic", fsdir, NULL };
	struct group_list *lists = NULL;
	size_t n = 0;
	char **explicit_ = NULL, **grouped = NULL, **excluded = NULL;
	struct selection s = { 0 };
	int r = 0;

	/* load generic, the fs dir, and every dir named by a test, group or glob */
	for (size_t d = 0; dirs[d] && r == 0; d++)
		r = load_dir(root, dirs[d], &lists, &n, err, es);
	for (char **v = plan->tests; r == 0 && v && *v; v++) {
		char dir[NAME_MAX + 1];

		snprintf(dir, sizeof(dir), "%.*s", (int)(strchr(*v, '/') - *v), *v);
		r = load_dir(root, dir, &lists, &n, err, es);
	}
	for (char **v = plan->groups; r == 0 && v && *v; v++)
		if (strchr(*v, '/')) {
			char dir[NAME_MAX + 1];

			snprintf(dir, sizeof(dir), "%.*s", (int)(strchr(*v, '/') - *v), *v);
			r = load_dir(root, dir, &lists, &n, err, es);
		}
	if (r < 0)
		goto out;

	/* explicit tests in the plan's order; globs expand sorted */
	for (char **v = plan->tests; v && *v; v++) {
		bool found = false;

		for (size_t i = 0; i < n; i++)
			for (size_t t = 0; t < lists[i].n; t++) {
				char name[PATH_MAX];

				snprintf(name, sizeof(name), "%s/%s", lists[i].dir, lists[i].names[t]);
				if (fnmatch(*v, name, FNM_PATHNAME) == 0 ||
				    (strncmp(name, *v, strlen(*v)) == 0 && name[strlen(*v)] == '-')) {
					found = true;
					if (!strv_contains(explicit_, name) && strv_push(&explicit_, name) < 0)
						goto nomem;
				}
			}
		if (!found && add_selected(&s, *v, SEL_UNKNOWN, "unknown test: not in any group.list", "plan") < 0)
			goto nomem;
	}
	/*
	 * Groups and tests are a union, as in check; but the built-in default
	 * group (auto) only applies when the plan names no tests.
	 */
	if (json_object_get(plan->origins, "groups") || !plan->tests || !plan->tests[0])
		for (char **v = plan->groups; v && *v; v++)
			if (collect_group(lists, n, *v, dirs, &grouped) < 0)
				goto nomem;
	if (grouped)
		qsort(grouped, strv_length(grouped), sizeof(*grouped), cmp_str);
	for (char **v = plan->exclude_groups; v && *v; v++)
		if (collect_group(lists, n, *v, dirs, &excluded) < 0)
			goto nomem;

	for (int pass = 0; pass < 2; pass++) {
		char **list = pass == 0 ? explicit_ : grouped;

		for (size_t i = 0; list && list[i]; i++) {
			const char *name = list[i];
			const struct expunge_rule *rule;
			bool dup = false;
			char src[PATH_MAX + 16];

			for (size_t k = 0; k < s.n && !dup; k++)
				dup = streq(s.v[k].name, name);
			if (dup || strv_contains(excluded, name))
				continue; /* -x leaves no trace, as in check */
			if (strv_contains(plan->exclude, name)) {
				r = add_selected(&s, name, SEL_EXPUNGED, "excluded by the plan", "plan:exclude");
			} else if (expunges && (rule = expunge_match(expunges, name, ctx))) {
				snprintf(src, sizeof(src), "%s:%u", rule->file, rule->line);
				r = add_selected(&s, name, SEL_EXPUNGED, rule->reason, src);
			} else {
				r = add_selected(&s, name, SEL_RUN, NULL, NULL);
			}
			if (r < 0)
				goto nomem;
		}
	}
	mark_serial(&s, lists, n);
	if (plan->jobs > 1)
		mark_machine_wide(&s, root);
	*ret = s;
	s = (struct selection){ 0 };
	r = 0;
	goto out;
nomem:
	snprintf(err, es, "out of memory selecting tests");
	r = -ENOMEM;
out:
	selection_release(&s);
	strv_free(explicit_);
	strv_free(grouped);
	strv_free(excluded);
	for (size_t i = 0; i < n; i++)
		group_list_release(&lists[i]);
	free(lists);
	return r;
}
