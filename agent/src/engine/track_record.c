// SPDX-License-Identifier: MIT
/*
 * fsagent track's record: DIR/track.jsonl, one event a line, replayed into
 * every revision's state; DIR/status.json written from it (see track.h).
 */
#include "engine/track.h"
#include "engine/job.h"
#include "engine/jsonl.h"
#include "analysis/track_output.h"
#include "util/fileio.h"
#include "util/jnum.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/utctime.h"
#include "util/output.h"
#include "util/strv.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void track_say(const char *fmt, ...)
{
	time_t t = time(NULL);
	char when[32];
	va_list ap;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	printf("%s track: ", when);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

const char *track_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)) ?: "";
}

json_t *track_rev(struct track_state *s, const char *sha)
{
	json_t *r;
	size_t i;

	json_array_foreach(s->revs, i, r)
		if (streq(track_str(r, "sha"), sha))
			return r;
	return NULL;
}

/* The revision the next one is compared with: the last one done that was built. */
json_t *track_baseline(struct track_state *s)
{
	json_t *r, *b = NULL;
	size_t i;

	json_array_foreach(s->revs, i, r)
		if (streq(track_str(r, "state"), "done") && !json_object_get(r, "why"))
			b = r;
	return b;
}

/* ---- the record ---------------------------------------------------------- */

/* A test in a list of {config, test}. */
static bool listed(json_t *list, json_t *t)
{
	json_t *x;
	size_t i;

	json_array_foreach(list, i, x)
		if (streq(track_str(x, "config"), track_str(t, "config")) &&
		    streq(track_str(x, "test"), track_str(t, "test")))
			return true;
	return false;
}

/*
 * A soak boot into the revision's soak: its boots, hours and runs, and its
 * findings, each with the boot's seed (to replay it) and whether the
 * qualification saw the test fail on this kernel too.
 */
static void take_soak(json_t *r, json_t *ev)
{
	json_t *soak = json_object_get(r, "soak"), *f, *boot = json_deep_copy(ev);
	size_t i;

	if (!soak) {
		soak = json_pack("{s:[], s:f, s:I, s:[]}", "boots", "seconds", 0.0, "runs", (json_int_t)0, "findings");
		json_object_set_new(r, "soak", soak);
	}
	json_object_del(boot, "event");
	json_object_del(boot, "sha");
	json_array_append_new(json_object_get(soak, "boots"), boot);
	json_object_set_new(soak, "seconds",
			    json_real(json_number_value(json_object_get(soak, "seconds")) +
				      json_number_value(json_object_get(ev, "seconds"))));
	json_object_set_new(soak, "runs",
			    json_integer(json_integer_value(json_object_get(soak, "runs")) +
					 json_integer_value(json_object_get(ev, "runs"))));
	json_array_foreach(json_object_get(ev, "failures"), i, f) {
		json_t *x = json_deep_copy(f);

		json_object_set(x, "boot", json_object_get(ev, "boot"));
		json_object_set(x, "seed", json_object_get(ev, "seed"));
		json_object_set_new(x, "in_qualification", json_boolean(listed(json_object_get(r, "failed"), f)));
		json_object_set_new(x, "first", json_boolean(!listed(json_object_get(soak, "findings"), f)));
		json_array_append_new(json_object_get(soak, "findings"), x);
	}
}

/* One event into the revisions' states. */
static void take(struct track_state *s, json_t *ev)
{
	const char *e = track_str(ev, "event");
	json_t *r = track_rev(s, track_str(ev, "sha"));
	char dir[PATH_MAX], rel[128];

	/* what the step under way says is over once it records something */
	if (r)
		json_object_del(r, "step");

	if (streq(e, "seen")) {
		if (r)
			return;
		snprintf(rel, sizeof(rel), "revs/%03zu-%s", json_array_size(s->revs), track_str(ev, "slug"));
		snprintf(dir, sizeof(dir), "%s/%s", s->in->dir, rel);
		r = json_pack("{s:O, s:O, s:I, s:O, s:s, s:s, s:s, s:b}", "name", json_object_get(ev, "name"), "sha",
			      json_object_get(ev, "sha"), "index", (json_int_t)json_array_size(s->revs), "seen",
			      json_object_get(ev, "time"), "dir", dir, "path", rel, "state", "seen", "start",
			      json_is_true(json_object_get(ev, "start")));
		if (r)
			json_array_append_new(s->revs, r);
		return;
	}
	if (!r)
		return;
	if (streq(e, "built")) {
		json_object_set_new(r, "state", json_string("built"));
		json_object_set(r, "build_seconds", json_object_get(ev, "seconds"));
	} else if (streq(e, "unbuildable")) {
		json_object_set_new(r, "state", json_string("done"));
		json_object_set(r, "why", json_object_get(ev, "why"));
		json_object_set_new(r, "verdict", json_string("cannot build"));
		s->unsent = track_str(r, "sha");
	} else if (streq(e, "qualified")) {
		json_object_set_new(r, "state", json_string("qualified"));
		json_object_update(r, ev);
		json_object_del(r, "event");
		json_object_set_new(r, "verdict",
				    json_string(json_array_size(json_object_get(ev, "regressions")) ? "regression"
												    : "no regression"));
		json_object_set_new(r, "bisections", json_array());
	} else if (streq(e, "bisected")) {
		json_t *b = json_deep_copy(ev);

		json_object_del(b, "event");
		json_object_del(b, "sha");
		json_array_append_new(json_object_get(r, "bisections"), b);
	} else if (streq(e, "fixes")) {
		json_t *b;
		size_t i;

		/* on its bisection, the last one of that config and test */
		json_array_foreach(json_object_get(r, "bisections"), i, b)
			if (streq(track_str(b, "config"), track_str(ev, "config")) &&
			    streq(track_str(b, "test"), track_str(ev, "test")))
				json_object_set(b, "fixes", json_object_get(ev, "fixes"));
	} else if (streq(e, "soaked")) {
		take_soak(r, ev);
	} else if (streq(e, "done")) {
		json_object_set_new(r, "state", json_string("done"));
		if (json_is_true(json_object_get(r, "start")))
			json_object_set_new(r, "verdict", json_string("the start"));
		else
			s->unsent = track_str(r, "sha");
	} else if (streq(e, "moved")) {
		json_object_set(r, "moved_to", json_object_get(ev, "to"));
	} else if (streq(e, "notified")) {
		if (s->unsent && streq(s->unsent, track_str(r, "sha")))
			s->unsent = NULL;
	}
}

/* status.json and index.html, their names ending in suffix ("" or ".idle") */
static int write_status_as(struct track_state *s, const char *suffix)
{
	char path[PATH_MAX], now[UTCTIME_SIZE];
	json_t *b = track_baseline(s), *r;
	json_auto_t *doc = NULL;
	size_t i, regressions = 0;
	int ret;

	json_array_foreach(s->revs, i, r)
		regressions += streq(track_str(r, "verdict"), "regression");
	utctime_format((long long)time(NULL), now, sizeof(now));
	doc = json_pack("{s:s, s:O, s:O, s:O, s:s?, s:I, s:s, s:O}", "schema", TRACK_SCHEMA, "tree",
			json_object_get(s->track, "tree"), "follow", json_object_get(s->track, "follow"), "start",
			json_object_get(s->track, "start"), "baseline", b ? track_str(b, "name") : NULL, "regressions",
			(json_int_t)regressions, "updated", now, "revisions", s->revs);
	if (!doc)
		return -ENOMEM;
	if ((ret = fileio_pathf(path, "%s/status.json%s", s->in->dir, suffix)) < 0)
		return ret;
	if ((ret = write_output(path, doc, dump_json)) < 0 ||
	    (ret = fileio_pathf(path, "%s/index.html%s", s->in->dir, suffix)) < 0)
		return ret;
	return write_output(path, doc, track_html);
}

/* The pages; while no step is under way, a stop has nothing to put in their place. */
static int write_status(struct track_state *s)
{
	json_t *rv;
	size_t i;
	bool step = false;

	json_array_foreach(s->revs, i, rv)
		step |= json_object_get(rv, "step") != NULL;
	if (!step) {
		char path[PATH_MAX];

		job_on_stop_rename(0, NULL, NULL);
		if (fileio_pathf(path, "%s/status.json.idle", s->in->dir) == 0)
			unlink(path);
		if (fileio_pathf(path, "%s/index.html.idle", s->in->dir) == 0)
			unlink(path);
	}
	return write_status_as(s, "");
}

/*
 * What is wrong with an event of DIR/track.jsonl, or NULL: its key, and the
 * fault in words. Events are the loop's own; counts are integers from 0 to
 * 2^31; a revision is seen once, before anything else of it.
 */
static const char *bad_event(struct track_state *s, json_t *ev, const char **key)
{
	static const char *const events[] = { "seen",	"built", "unbuildable", "qualified", "bisected", "fixes",
					      "soaked", "done",	 "notified",	"moved",     NULL };
	const char *e = track_str(ev, "event");
	bool seen = streq(e, "seen");
	json_int_t n;

	*key = "event";
	if (!strv_contains((char **)events, e))
		return "not an event of a watch";
	*key = "sha";
	if (!json_is_string(json_object_get(ev, "sha")))
		return "not a revision";
	if (seen && track_rev(s, track_str(ev, "sha")))
		return "a revision seen twice";
	if (!seen && !track_rev(s, track_str(ev, "sha")))
		return "a revision not seen before";
	*key = "runs";
	if (jnum_count(json_object_get(ev, "runs"), JNUM_COUNT_MAX, &n) == -EBADMSG)
		return JNUM_COUNT_WHY;
	*key = "boot";
	if (jnum_count(json_object_get(ev, "boot"), JNUM_COUNT_MAX, &n) == -EBADMSG)
		return JNUM_COUNT_WHY;
	*key = "seconds";
	if (json_object_get(ev, "seconds") &&
	    (!json_is_number(json_object_get(ev, "seconds")) || json_number_value(json_object_get(ev, "seconds")) < 0))
		return "not a number of seconds";
	return NULL;
}

/* One line of DIR/track.jsonl back: a bad one refused, naming file, line and key. */
static int take_line(void *ctx, json_t *ev, const char *path, unsigned line)
{
	struct track_state *s = ctx;
	const char *key = "event", *why = json_is_object(ev) ? bad_event(s, ev, &key) : "not an object";

	if (why) {
		log_err("%s:%u: not a record of this watch: key '%s': %s", path, line, key, why);
		return -EBADMSG;
	}
	take(s, ev);
	return 0;
}

int track_replay(struct track_state *s)
{
	char path[PATH_MAX];
	int r = fileio_pathf(path, "%s/track.jsonl", s->in->dir);

	return r < 0 ? r : jsonl_replay(path, take_line, s);
}

int track_step(struct track_state *s, json_t *rv, const char *fmt, ...)
{
	_cleanup_free_ char *what = NULL, *text = NULL;
	char now[32];
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vasprintf(&what, fmt, ap);
	va_end(ap);
	utctime_format(time(NULL), now, sizeof(now));
	if (n < 0 || asprintf(&text, "%s since %s", what, now) < 0)
		return -ENOMEM;
	/* the pages without it first, put in place if a signal stops the watch while it is under way */
	json_object_del(rv, "step");
	if ((r = write_status_as(s, ".idle")) < 0)
		return r;
	{
		char from[2][PATH_MAX], to[2][PATH_MAX];

		if ((r = fileio_pathf(from[0], "%s/status.json.idle", s->in->dir)) < 0 ||
		    (r = fileio_pathf(from[1], "%s/index.html.idle", s->in->dir)) < 0 ||
		    (r = fileio_pathf(to[0], "%s/status.json", s->in->dir)) < 0 ||
		    (r = fileio_pathf(to[1], "%s/index.html", s->in->dir)) < 0)
			return r;
		job_on_stop_rename(2, (const char *const[]){ from[0], from[1] }, (const char *const[]){ to[0], to[1] });
	}
	if (json_object_set_new(rv, "step", json_string(text)) < 0)
		return -ENOMEM;
	return write_status_as(s, "");
}

int track_steps_over(struct track_state *s)
{
	json_t *rv;
	size_t i, n = 0;

	json_array_foreach(s->revs, i, rv)
		n += json_object_del(rv, "step") == 0;
	return n ? write_status(s) : 0;
}

int track_append(struct track_state *s, json_t *ev)
{
	char path[PATH_MAX];
	int r;

	if (!ev)
		return -ENOMEM;
	if ((r = fileio_pathf(path, "%s/track.jsonl", s->in->dir)) == 0 && (r = jsonl_append(path, ev)) == 0)
		take(s, ev);
	json_decref(ev);
	return r < 0 ? r : write_status(s);
}
