/* SPDX-License-Identifier: MIT */
/*
 * The state of a bisection's loop (bisect_loop.c) and its record,
 * DIR/runs.jsonl: one JSON line per build or probe as it ends, fsync'd,
 * read back on a restart (a bad line refused by file, line and key).
 */
#pragma once

#include "analysis/bisect.h"
#include "engine/bisect_loop.h"

#include <jansson.h>
#include <stddef.h>

struct bisect_state {
	struct bisect_run *in;
	json_t *line;	  /* line.json */
	json_t *commits;  /* line.json's commits: [0] the good end, last the bad end */
	struct bisect *b; /* the engine, fed every recorded run */
	json_t *log;	  /* runs.jsonl's records, in order */
	unsigned long runs, kernels, probes;
	double seconds;
	int bundles; /* the probe's kind, once a call showed it: 1 leaves bundles, 0 is one run a call, -1 unknown */
};

/* Commit i of the line's sha. */
const char *bisect_runs_sha(struct bisect_state *s, size_t i);
/* Where sha is in the line, or -1. */
int bisect_runs_index(struct bisect_state *s, const char *sha);
/* DIR/runs.jsonl read back into the engine (a probe's runs cut off with its record come back from its bundles). */
int bisect_runs_replay(struct bisect_state *s);
/* rec appended to DIR/runs.jsonl and fsync'd, then taken. Returns 0 or -errno (logged). */
int bisect_runs_append(struct bisect_state *s, json_t *rec);
/* The ends' runs from a qualification (line.json's ends) into the engine; not this bisection's runs. */
void bisect_runs_take_ends(struct bisect_state *s);
