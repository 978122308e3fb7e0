// SPDX-License-Identifier: MIT
/*
 * A bisection's record, DIR/runs.jsonl (see bisect_runs.h): each line
 * checked against the line of commits before the engine takes it.
 */
#include "engine/bisect_runs.h"
#include "engine/jsonl.h"
#include "util/fileio.h"
#include "util/jnum.h"
#include "util/log.h"
#include "util/macro.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

const char *bisect_runs_sha(struct bisect_state *s, size_t i)
{
	return json_string_value(json_object_get(json_array_get(s->commits, i), "sha"));
}

int bisect_runs_index(struct bisect_state *s, const char *sha)
{
	for (size_t i = 0; i < json_array_size(s->commits); i++)
		if (streq(bisect_runs_sha(s, i), sha))
			return (int)i;
	return -1;
}

/* One record into the engine and the counts (checked by take_line, or made here). */
static void take(struct bisect_state *s, json_t *rec)
{
	int i = bisect_runs_index(s, json_string_value(json_object_get(rec, "commit")) ?: "");
	json_t *v;

	if (i < 0)
		return;
	if ((v = json_object_get(rec, "runs"))) {
		bisect_record(s->b, (size_t)i, (unsigned)json_integer_value(v),
			      (unsigned)json_integer_value(json_object_get(rec, "fails")));
		s->runs += (unsigned long)json_integer_value(v);
	}
	if (json_object_get(rec, "skip"))
		bisect_skip(s->b, (size_t)i);
	if (json_is_true(json_object_get(rec, "built")))
		s->kernels++;
	if ((v = json_object_get(rec, "probe")) && (unsigned long)json_integer_value(v) >= s->probes)
		s->probes = (unsigned long)json_integer_value(v) + 1;
	if (json_is_boolean(json_object_get(rec, "bundles")))
		s->bundles = json_is_true(json_object_get(rec, "bundles"));
	s->seconds += json_number_value(json_object_get(rec, "seconds"));
	json_array_append(s->log, rec);
}

/*
 * What is wrong with a record of DIR/runs.jsonl, or NULL: its key, and the
 * fault in words. Counts are integers from 0 to 2^31 (fails <= runs, a
 * commit's total too), probes numbered upwards, each once.
 */
/* "" or probes/N/... with no ".." part */
static bool artifact_ok(const char *a)
{
	if (!*a)
		return true;
	if (strncmp(a, "probes/", 7) != 0)
		return false;
	for (const char *p = a; *p; p = strchr(p, '/') ? strchr(p, '/') + 1 : p + strlen(p))
		if (!strncmp(p, "../", 3) || streq(p, ".."))
			return false;
	return true;
}

static const char *bad_record(struct bisect_state *s, json_t *rec, const char **key)
{
	int i = bisect_runs_index(s, json_string_value(json_object_get(rec, "commit")) ?: "");
	json_int_t runs = 0, fails = 0, probe = 0;
	json_t *skip = json_object_get(rec, "skip"), *built = json_object_get(rec, "built"),
	       *secs = json_object_get(rec, "seconds");
	int rr = jnum_count(json_object_get(rec, "runs"), JNUM_COUNT_MAX, &runs);
	int rf = jnum_count(json_object_get(rec, "fails"), runs, &fails);
	int rp = jnum_count(json_object_get(rec, "probe"), JNUM_COUNT_MAX, &probe);

	*key = "commit";
	if (i < 0)
		return "not a commit of this bisection's line";
	*key = "runs";
	if (rr == -EBADMSG)
		return JNUM_COUNT_WHY;
	if (bisect_runs(s->b, (size_t)i) + runs > JNUM_COUNT_MAX)
		return "the commit's runs add up to more than 2147483648";
	*key = "fails";
	if (rr == 0 && rf < 0)
		return "not an integer from 0 to the record's runs";
	if (rr < 0 && rf != -ENOENT)
		return "fails without runs";
	*key = "probe";
	if (rp == -EBADMSG)
		return JNUM_COUNT_WHY;
	if (rp == 0 && (unsigned long)probe < s->probes)
		return "a probe recorded before (each probe has one record, numbered upwards)";
	*key = "skip";
	if (skip && !json_is_string(skip))
		return "not a reason";
	*key = "built";
	if (built && !json_is_boolean(built))
		return "not true or false";
	*key = "bundles";
	if (json_object_get(rec, "bundles") && !json_is_boolean(json_object_get(rec, "bundles")))
		return "not true or false";
	*key = "seconds";
	if (secs && (!json_is_number(secs) || json_number_value(secs) < 0))
		return "not a number of seconds";
	*key = "why";
	if (json_object_get(rec, "why") && !json_is_string(json_object_get(rec, "why")))
		return "not a reason";
	/* a link on the page beside DIR: a path under it, never out of it */
	*key = "artifact";
	if (json_object_get(rec, "artifact") && (!json_is_string(json_object_get(rec, "artifact")) ||
						 !artifact_ok(json_string_value(json_object_get(rec, "artifact")))))
		return "not a path under the bisection's probes/";
	return NULL;
}

/* One line of DIR/runs.jsonl back: a bad one refused, naming file, line and key. */
static int take_line(void *ctx, json_t *rec, const char *path, unsigned line)
{
	struct bisect_state *s = ctx;
	const char *key = "commit", *why = json_is_object(rec) ? bad_record(s, rec, &key) : "not an object";

	if (why) {
		log_err("%s:%u: not a record of this bisection: key '%s': %s", path, line, key, why);
		return -EBADMSG;
	}
	take(s, rec);
	return 0;
}

void bisect_runs_take_ends(struct bisect_state *s)
{
	json_t *e = json_object_get(s->line, "ends"), *g = json_object_get(e, "good"), *b = json_object_get(e, "bad");

	if (!e)
		return;
	bisect_record(s->b, 0, (unsigned)json_integer_value(json_object_get(g, "runs")),
		      (unsigned)json_integer_value(json_object_get(g, "fails")));
	bisect_record(s->b, json_array_size(s->commits) - 1, (unsigned)json_integer_value(json_object_get(b, "runs")),
		      (unsigned)json_integer_value(json_object_get(b, "fails")));
	printf("the ends' runs from %s: the good end failed %lld of %lld, the bad end %lld of %lld\n",
	       json_string_value(json_object_get(e, "from")),
	       (long long)json_integer_value(json_object_get(g, "fails")),
	       (long long)json_integer_value(json_object_get(g, "runs")),
	       (long long)json_integer_value(json_object_get(b, "fails")),
	       (long long)json_integer_value(json_object_get(b, "runs")));
}

int bisect_runs_replay(struct bisect_state *s)
{
	char path[PATH_MAX];
	int r = fileio_pathf(path, "%s/runs.jsonl", s->in->dir);

	return r < 0 ? r : jsonl_replay(path, take_line, s);
}

int bisect_runs_append(struct bisect_state *s, json_t *rec)
{
	char path[PATH_MAX];
	int r = fileio_pathf(path, "%s/runs.jsonl", s->in->dir);

	if (r == 0 && (r = jsonl_append(path, rec)) == 0)
		take(s, rec);
	return r;
}
