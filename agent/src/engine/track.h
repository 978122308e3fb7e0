/* SPDX-License-Identifier: MIT */
/*
 * The parts of fsagent track's loop (track_loop.h), shared among its files:
 * the record (track_record.c: DIR/track.jsonl replayed into every
 * revision's state, status.json), the revisions (track_revs.c: track.json,
 * what git lists), and each revision's steps (track_steps.c: build,
 * qualification, bisections, soak, notify).
 */
#pragma once

#include "util/macro.h"

#include <jansson.h>
#include <stdbool.h>

#include "engine/track_loop.h"

#define TRACK_SCHEMA "fsagent-track/1"

struct track_state {
	struct track_run *in;
	json_t *track;	     /* track.json */
	json_t *revs;	     /* every revision's state, in the order seen (status.json's "revisions") */
	char **skipped_tags; /* tags that name no commit, warned of once */
	const char *unsent;  /* the sha of the revision whose notification a stop may have cut off, or NULL */
};

/* A line of the watch's own on stdout, after the UTC time ("2026-12-06T19:10:01Z track: ..."), flushed. */
void track_say(const char *fmt, ...) _printf_(1, 2);

/* o's string at key, "" when none */
const char *track_str(json_t *o, const char *key);
/* The revision of sha, or NULL. */
json_t *track_rev(struct track_state *s, const char *sha);
/* The revision the next one is compared with: the last one done that was built, or NULL. */
json_t *track_baseline(struct track_state *s);
/* DIR/track.jsonl read back into s->revs. Returns 0 or -errno (logged, naming file and line). */
int track_replay(struct track_state *s);
/* ev (owned) appended and fsync'd, taken, status.json rewritten. Returns 0 or -errno (logged). */
int track_append(struct track_state *s, json_t *ev);
/*
 * The step under way for rv, on its row of the page until it records an
 * event ("qualifying against v6.1.11 since 2026-12-06T19:10:01Z"); kept in
 * status.json only, never in the journal. Returns 0 or -errno.
 */
int track_step(struct track_state *s, json_t *rv, const char *fmt, ...) _printf_(3, 4);
/* No step under way any more (the watch ends or stops): the page no longer says one is. Returns 0 or -errno. */
int track_steps_over(struct track_state *s);

/* DIR/track.json made (the start resolved) or checked against what was given. Returns 0 or -errno (logged). */
int track_setup(struct track_state *s);
/* A revision recorded as seen. Returns 0 or -errno. */
int track_seen(struct track_state *s, const char *name, const char *sha, bool start);
/* Each new revision recorded as seen, the oldest first. Returns 0 or -errno (logged). */
int track_look(struct track_state *s);

/* The steps: each records its outcome. Return 0 or -errno (-EIO: a command failed, logged). */
int track_build(struct track_state *s, json_t *rv);
int track_qualify(struct track_state *s, json_t *rv, json_t *base);
int track_bisect(struct track_state *s, json_t *rv);
/* With --upstream: each found culprit's upstream fix, applied to rv (track_fixes.c). */
int track_fixes(struct track_state *s, json_t *rv);
/* One soak boot of rv's kernel. */
int track_soak(struct track_state *s, json_t *rv);
/*
 * rv in words (owned), for the terminal and --notify; --notify run with
 * text, kept in rv's folder as file (each kind of notification its own file,
 * none overwriting another's), within --notify-timeout. Returns 0 when it ran
 * (whatever its exit status: logged), -ENOENT without --notify, -ETIME when
 * stopped at its limit (said), or -errno.
 */
char *track_summary(json_t *rv);
int track_notify(struct track_state *s, json_t *rv, const char *what, const char *file, const char *text);
/* The revision's notification (its words, what: "done") sent and, once it ran, recorded. Returns 0 or -errno. */
int track_notify_done(struct track_state *s, json_t *rv, const char *text);
