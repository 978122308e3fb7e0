// SPDX-License-Identifier: MIT
/*
 * A bisection's line, set up from the revisions given or read back (see
 * bisect_line.h).
 */
#include "engine/bisect_line.h"
#include "analysis/qualify.h"
#include "engine/git.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/output.h"
#include "util/strv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define LINE_SCHEMA "fsagent-bisect-line/1"

/* o's runs and its key fails (runs >= fails >= 0) added to *runs and *fails; false when they are not counts. */
static bool counts_of(json_t *o, const char *fails, json_int_t *runs, json_int_t *failed)
{
	json_t *n = json_object_get(o, "runs"), *f = json_object_get(o, fails);

	if (!json_is_integer(n) || !json_is_integer(f) || json_integer_value(f) < 0 ||
	    json_integer_value(f) > json_integer_value(n))
		return false;
	*runs += json_integer_value(n);
	*failed += json_integer_value(f);
	return true;
}

/*
 * The ends' runs from a qualification: its baseline's runs of the tests on
 * the config are the good end's, its candidate's the bad end's (every run
 * of each test counts, as in a probe). *ret: {from, good: {runs, fails}, bad}.
 */
static int ends_of(const char *qdir, const char *config, char **tests, json_t **ret)
{
	char path[PATH_MAX];
	json_t *q, *t;
	json_int_t gr = 0, gf = 0, br = 0, bf = 0;
	int r;

	if ((r = fileio_pathf(path, "%s/qualify.json", qdir)) < 0)
		return r;
	q = json_load_file(path, 0, NULL);
	if (!json_is_object(q) || !streq(json_string_value(json_object_get(q, "schema")) ?: "", QUALIFY_SCHEMA)) {
		log_err("--ends-from %s: %s is missing or not the outcome of fsagent qualify (schema %s)", qdir, path,
			QUALIFY_SCHEMA);
		json_decref(q);
		return -EBADMSG;
	}
	for (char **name = tests; *name; name++) {
		json_t *found = NULL;
		size_t i;

		json_array_foreach(json_object_get(q, "tests"), i, t)
			if (streq(json_string_value(json_object_get(t, "config")) ?: "", config) &&
			    streq(json_string_value(json_object_get(t, "test")) ?: "", *name))
				found = t;
		if (!found) {
			log_err("%s: key 'tests': no runs of %s on %s", path, *name, config);
			r = -ENOENT;
			break;
		}
		if (!counts_of(json_object_get(found, "baseline"), "failures", &gr, &gf) ||
		    !counts_of(json_object_get(found, "candidate"), "failures", &br, &bf)) {
			log_err("%s: %s on %s: key 'baseline' or 'candidate': not runs and failures", path, *name,
				config);
			r = -EBADMSG;
			break;
		}
	}
	if (r == 0 && !(*ret = json_pack("{s:s, s:{s:I, s:I}, s:{s:I, s:I}}", "from", path, "good", "runs", gr, "fails",
					 gf, "bad", "runs", br, "fails", bf)))
		r = -ENOMEM;
	json_decref(q);
	return r;
}

/* line.json's ends: the good and the bad end's runs and fails, or none */
static bool ends_ok(json_t *e)
{
	json_int_t runs = 0, fails = 0;

	return !e || (counts_of(json_object_get(e, "good"), "fails", &runs, &fails) &&
		      counts_of(json_object_get(e, "bad"), "fails", &runs, &fails));
}

/* line.json made from the revisions given (resolved, checked), or read back; given ones must match. */
static int line_setup(struct bisect_run *in, json_t **ret);

int bisect_line_setup(struct bisect_run *in, json_t **ret)
{
	struct bisect_run fw;
	char *from[2];
	int r;

	if (!in->forward || !in->bad)
		return line_setup(in, ret);
	if (!in->goods || !in->goods[0] || in->goods[1]) {
		log_err("a forward bisection takes one --bad (where the test fails) and one --good (a descendant, "
			"where it passes)");
		return -EINVAL;
	}
	/* the line is made from the failing end to the passing one, as a bisection's from its good end to its bad */
	fw = *in;
	from[0] = (char *)in->bad;
	from[1] = NULL;
	fw.goods = from;
	fw.bad = in->goods[0];
	r = line_setup(&fw, ret);
	in->build = fw.build;
	return r;
}

static int line_setup(struct bisect_run *in, json_t **ret)
{
	char path[PATH_MAX], err[512], bad[41];
	json_t *goods = NULL, *doc, *line_doc = NULL, *commits;
	char **line = NULL;
	int r;

	if ((r = fileio_pathf(path, "%s/line.json", in->dir)) < 0)
		return r;
	if (in->bad) {
		char *first = NULL;

		if (!in->tree || !in->goods || !*in->goods || !in->tests || !*in->tests || !in->config) {
			log_err("a bisection begins with --git TREE, --good REV, --bad REV, --test TEST and --config");
			return -EINVAL;
		}
		if ((r = git_dirty(in->tree)) != 0) {
			if (r > 0)
				log_err("%s has changes not committed: the bisection builds commits, not the work "
					"tree (commit or stash them)",
					in->tree);
			else
				log_err("%s: not a git work tree (%s)", in->tree, strerror(-r));
			return r > 0 ? -EINVAL : r;
		}
		if ((r = git_resolve(in->tree, in->bad, bad, err, sizeof(err))) < 0) {
			log_err("--bad %s: %s", in->bad, err);
			return r;
		}
		goods = json_array();
		for (char **g = in->goods; *g; g++) {
			char sha[41];

			if ((r = git_resolve(in->tree, *g, sha, err, sizeof(err))) < 0) {
				log_err("--good %s: %s", *g, err);
				goto out;
			}
			if ((r = git_is_ancestor(in->tree, sha, bad)) != 1 || streq(sha, bad)) {
				if (in->forward)
					log_err("--bad %s is not an ancestor of --good %s: nothing lies between them",
						*g, in->bad);
				else
					log_err("--good %s is not an ancestor of --bad %s: nothing lies between them",
						*g, in->bad);
				r = -EINVAL;
				goto out;
			}
			json_array_append_new(goods, json_string(sha));
		}
		{
			char **shas = NULL;
			size_t i;
			json_t *v;

			json_array_foreach(goods, i, v)
				strv_push(&shas, json_string_value(v));
			r = git_line(in->tree, bad, shas, &line, err, sizeof(err));
			strv_free(shas);
		}
		if (r < 0) {
			log_err("git log %s in %s failed: %s", in->bad, in->tree, err);
			goto out;
		}
		first = json_string_value(json_array_get(goods, 0))
				? (char *)json_string_value(json_array_get(goods, 0))
				: NULL;
		doc = json_pack("{s:s, s:s, s:O, s:s, s:o, s:s, s:s?, s:[{s:s, s:s}]}", "schema", LINE_SCHEMA, "tree",
				in->tree, "good", goods, "bad", bad, "tests", strv_to_json(in->tests), "config",
				in->config, "build", in->build, "commits", "sha", first, "subject",
				in->forward ? "(where it fails)" : "(the good end)");
		if (doc && in->ends_from) {
			json_t *ends = NULL;

			if ((r = ends_of(in->ends_from, in->config, in->tests, &ends)) < 0) {
				json_decref(doc);
				goto out;
			}
			json_object_set_new(doc, "ends", ends);
		}
		for (char **l = line; doc && *l; l++)
			json_array_append_new(json_object_get(doc, "commits"),
					      json_pack("{s:s%, s:s}", "sha", *l, (size_t)40, "subject", *l + 41));
		if (!doc || json_array_size(json_object_get(doc, "commits")) < 2 ||
		    !streq(json_string_value(
				   json_object_get(json_array_get(json_object_get(doc, "commits"),
								  json_array_size(json_object_get(doc, "commits")) - 1),
						   "sha"))
				   ?: "",
			   bad)) {
			log_err("%s: the line from the good ends to %s does not end at it", in->tree, in->bad);
			json_decref(doc);
			r = -EINVAL;
			goto out;
		}
		if (in->forward) {
			/* turned round: the engine's good end is where the test passes, its bad end where it fails */
			json_t *c = json_object_get(doc, "commits"), *rev = json_array();
			size_t i;

			for (i = json_array_size(c); rev && i > 0; i--)
				json_array_append(rev, json_array_get(c, i - 1));
			if (!rev || json_object_set_new(doc, "commits", rev) < 0 ||
			    json_object_set_new(doc, "forward", json_true()) < 0) {
				json_decref(doc);
				r = -ENOMEM;
				goto out;
			}
		}
		if (fileio_exists(path)) {
			json_t *old = json_load_file(path, 0, NULL);
			bool same = old && json_equal(json_object_get(old, "good"), json_object_get(doc, "good")) &&
				    json_equal(json_object_get(old, "bad"), json_object_get(doc, "bad")) &&
				    json_equal(json_object_get(old, "tests"), json_object_get(doc, "tests")) &&
				    json_equal(json_object_get(old, "config"), json_object_get(doc, "config")) &&
				    json_is_true(json_object_get(old, "forward")) == in->forward &&
				    (json_object_get(old, "ends") == json_object_get(doc, "ends") ||
				     json_equal(json_object_get(old, "ends"), json_object_get(doc, "ends")));

			json_decref(old);
			json_decref(doc);
			if (!same) {
				log_err("%s was made for other revisions, tests, config or --ends-from (%s): give the "
					"same, none, or a new --dir",
					in->dir, path);
				r = -EEXIST;
				goto out;
			}
		} else {
			r = write_output(path, doc, dump_json);
			json_decref(doc);
			if (r < 0)
				goto out;
		}
	} else if (!fileio_exists(path)) {
		log_err("%s holds no bisection yet: --git, --good, --bad, --test and --config begin one", in->dir);
		return -ENOENT;
	}
	line_doc = json_load_file(path, 0, NULL);
	commits = json_object_get(line_doc, "commits");
	if (!json_is_object(line_doc) ||
	    !streq(json_string_value(json_object_get(line_doc, "schema")) ?: "", LINE_SCHEMA) ||
	    json_array_size(commits) < 2 || !json_is_string(json_object_get(line_doc, "config")) ||
	    !json_is_array(json_object_get(line_doc, "tests"))) {
		log_err("%s: not the line of fsagent bisect (schema %s)", path, LINE_SCHEMA);
		r = -EBADMSG;
		goto out;
	}
	if (!ends_ok(json_object_get(line_doc, "ends"))) {
		log_err("%s: key 'ends': not the runs and fails of the good and the bad end", path);
		r = -EBADMSG;
		goto out;
	}
	/* the build command is the directory's: the kernels built so far are its */
	{
		json_t *b = json_object_get(line_doc, "build");

		if (in->build && !streq(in->build, json_string_value(b) ?: "")) {
			log_err("%s was begun with %s: kernels are built as they were (give the same --build, none, "
				"or a new --dir)",
				in->dir, b ? json_string_value(b) : "no --build");
			r = -EEXIST;
			goto out;
		}
		in->build = json_string_value(b);
	}
	for (size_t i = 0; i < json_array_size(commits); i++) {
		const char *sha = json_string_value(json_object_get(json_array_get(commits, i), "sha"));

		if (!sha || strlen(sha) != 40 || strspn(sha, "0123456789abcdef") != 40) {
			log_err("%s: commits[%zu]: key 'sha': not a commit id", path, i);
			r = -EBADMSG;
			goto out;
		}
	}
	*ret = TAKE_PTR(line_doc);
	r = 0;
out:
	json_decref(line_doc);
	json_decref(goods);
	strv_free(line);
	return r;
}
