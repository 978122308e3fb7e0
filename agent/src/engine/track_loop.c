// SPDX-License-Identifier: MIT
/*
 * The watch of a branch (see track_loop.h): revisions listed from git,
 * each taken through its steps (track_steps.c), every step's outcome
 * recorded (track_record.c) before the next begins.
 */
#include "engine/track_loop.h"
#include "engine/git.h"
#include "engine/job.h"
#include "engine/qualify_loop.h"
#include "engine/qualify_plan.h"
#include "engine/statedir.h"
#include "engine/track.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int take_rev(struct track_state *s, json_t *rv)
{
	json_t *base = track_baseline(s);
	_cleanup_free_ char *text = NULL;
	int r = 0;

	if (streq(track_str(rv, "state"), "seen") && (r = track_build(s, rv)) < 0)
		return r;
	if (streq(track_str(rv, "state"), "built") && json_is_true(json_object_get(rv, "start")))
		return track_append(s, json_pack("{s:s, s:s}", "event", "done", "sha", track_str(rv, "sha")));
	if (streq(track_str(rv, "state"), "built")) {
		if (!base) {
			log_err("track: no baseline to compare %s with: the start could not be built",
				track_str(rv, "name"));
			return -ENOENT;
		}
		if ((r = track_qualify(s, rv, base)) < 0)
			return r;
	}
	if (streq(track_str(rv, "state"), "qualified")) {
		if ((r = track_bisect(s, rv)) < 0 || (r = track_fixes(s, rv)) < 0)
			return r;
		if ((r = track_append(s, json_pack("{s:s, s:s}", "event", "done", "sha", track_str(rv, "sha")))) < 0)
			return r;
	}
	text = track_summary(rv);
	if (text) {
		track_say("%s", text);
		fflush(stdout);
		r = track_notify_done(s, rv, text);
	}
	return r;
}

static bool stop_asked(struct track_state *s)
{
	return s->in->stop_file && fileio_exists(s->in->stop_file);
}

/* git fetch in the tree; on failure the wait before the next look doubles (to an hour), reset on success. */
static void fetch(struct track_state *s, unsigned *wait)
{
	const char *args[] = { "fetch", "--tags", "--quiet", NULL };
	_cleanup_free_ char *out = NULL;
	char err[512];

	if (git_capture(s->in->tree, args, &out, err, sizeof(err)) == 0) {
		*wait = s->in->interval;
		return;
	}
	*wait = *wait * 2 > 3600 ? 3600 : *wait * 2;
	log_warn("track: git fetch in %s failed (%s): the next look in %u s", s->in->tree, err, *wait);
}

/*
 * One soak boot of rv. Each test's first failure in its soak is said; those
 * its qualification never saw fail are news, told with --notify once for the
 * boot (the batch in soak-boot-N.txt). Returns 0, 1 when the runner failed
 * (the next boot waits an interval), or -errno.
 */
static int soak(struct track_state *s, json_t *rv)
{
	json_t *boots, *boot, *f;
	size_t i, seen_before = json_array_size(json_object_get(json_object_get(rv, "soak"), "findings"));
	int r = track_soak(s, rv), ex, news = 0;
	_cleanup_free_ char *batch = NULL;
	size_t len = 0;
	FILE *out;
	char file[64];

	if (r < 0)
		return r;
	boots = json_object_get(json_object_get(rv, "soak"), "boots");
	boot = json_array_get(boots, json_array_size(boots) - 1);
	ex = (int)json_integer_value(json_object_get(boot, "exit"));
	if (!(out = open_memstream(&batch, &len)))
		return -ENOMEM;
	fprintf(out, "%s (%.12s): soak boot %lld found what its qualification never saw fail (seed %lld):\n",
		track_str(rv, "name"), track_str(rv, "sha"), json_integer_value(json_object_get(boot, "boot")),
		json_integer_value(json_object_get(boot, "seed")));
	json_array_foreach(json_object_get(json_object_get(rv, "soak"), "findings"), i, f) {
		bool seen = json_is_true(json_object_get(f, "in_qualification"));

		if (i < seen_before || !json_is_true(json_object_get(f, "first")))
			continue;
		track_say("%s (%.12s): the soak found %s %s failing (%lld of %lld runs, boot %lld, seed %lld)%s\n",
			  track_str(rv, "name"), track_str(rv, "sha"), track_str(f, "config"), track_str(f, "test"),
			  json_integer_value(json_object_get(f, "failures")),
			  json_integer_value(json_object_get(f, "runs")),
			  json_integer_value(json_object_get(f, "boot")),
			  json_integer_value(json_object_get(f, "seed")),
			  seen ? ": its qualification saw it fail too (not told)"
			       : ": its qualification never saw it fail");
		if (seen)
			continue;
		news++;
		fprintf(out, "  %s %s: %lld of %lld runs failed\n", track_str(f, "config"), track_str(f, "test"),
			json_integer_value(json_object_get(f, "failures")),
			json_integer_value(json_object_get(f, "runs")));
	}
	fflush(stdout);
	if (fclose(out) != 0)
		return -ENOMEM;
	snprintf(file, sizeof(file), "soak-boot-%lld.txt", json_integer_value(json_object_get(boot, "boot")));
	if (news)
		track_notify(s, rv, "soak finding", file, batch);
	return ex == 0 || ex == 1 || ex == 4 ? 0 : 1;
}

static int loop(struct track_state *s)
{
	unsigned wait = s->in->interval;

	for (;;) {
		json_t *rv;
		size_t i;
		int r;

		if (s->in->fetch)
			fetch(s, &wait);
		if ((r = track_look(s)) < 0)
			return r == -ENOMEM ? 3 : 2;
		json_array_foreach(s->revs, i, rv) {
			if (stop_asked(s))
				return 0;
			if (!streq(track_str(rv, "state"), "done") && (r = take_rev(s, rv)) < 0)
				return r == -ENOENT ? 2 : 3;
		}
		if (s->in->once || stop_asked(s))
			return 0;
		/* nothing waits: the baseline soaks a boot, then the next look; a new revision ends the soak there */
		if (s->in->soak && (rv = track_baseline(s))) {
			if ((r = soak(s, rv)) < 0)
				return 3;
			if (r == 0)
				continue;
		}
		for (unsigned t = 0; t < wait && !stop_asked(s); t++)
			sleep(1);
		if (stop_asked(s))
			return 0;
	}
}

/* The notification a stop cut off (the revision was done, its notify had not run): sent now. */
static int send_unsent(struct track_state *s)
{
	json_t *rv = s->unsent && s->in->notify ? track_rev(s, s->unsent) : NULL;
	_cleanup_free_ char *text = rv ? track_summary(rv) : NULL;

	if (!text)
		return 0;
	track_say("sending again the notification a stop cut off: %s", text);
	fflush(stdout);
	return track_notify_done(s, rv, text);
}

/* Revision folders with no record of them: the journal was lost, and starting over would redo them. */
static int journal_lost(struct track_state *s)
{
	char revs[PATH_MAX];
	int r = fileio_pathf(revs, "%s/revs", s->in->dir);

	if (r < 0)
		return r;
	if (!fileio_exists(revs))
		return 0;
	log_err("%s/track.jsonl is missing or empty, but %s holds revisions: refused, nothing redone (put the "
		"journal back, or give a new --dir)",
		s->in->dir, revs);
	return -ENOENT;
}

int track_loop(struct track_run *in)
{
	struct track_state s = { .in = in };
	struct qualify_run plan = { .dir = in->dir };
	int r, rc;

	if (statedir_lock(in->dir, "fsagent track") < 0)
		return 2;
	job_stop_on_signals(3);
	s.revs = json_array();
	if (!s.revs)
		return 3;
	/* the plan every qualification runs: DIR/plan, as qualify keeps its own */
	r = track_setup(&s);
	if (r == 0)
		r = qualify_plan_setup(&plan, in->plan);
	qualify_loop_release(&plan);
	if (r == 0 && (r = track_replay(&s)) == 0 && !json_array_size(s.revs) && (r = journal_lost(&s)) == 0)
		r = track_seen(&s, track_str(json_object_get(s.track, "start"), "name"),
			       track_str(json_object_get(s.track, "start"), "sha"), true);
	if (r == 0)
		r = send_unsent(&s);
	if (r < 0) {
		rc = r == -ENOMEM || r == -EIO ? 3 : 2;
	} else {
		json_t *rv;
		size_t i;

		rc = loop(&s);
		track_steps_over(&s);
		if (rc == 0)
			json_array_foreach(s.revs, i, rv)
				if (streq(track_str(rv, "verdict"), "regression"))
					rc = 1;
	}
	json_decref(s.track);
	json_decref(s.revs);
	strv_free(s.skipped_tags);
	return rc;
}
