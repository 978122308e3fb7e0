/* SPDX-License-Identifier: MIT */
/*
 * A state directory: where a loop that runs for hours keeps everything it
 * needs to go on after a stop. One process at a time (flock on DIR/.lock,
 * held until exit), and the options its verdicts depend on fixed at the
 * start (DIR/options.json): going on with others is refused.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Make dir and lock it for who (a command's name, for the error). Returns 0 or -errno (logged). */
int statedir_lock(const char *dir, const char *who);

struct statedir_option {
	const char *key;
	double *value; /* in: given or default; out: the directory's */
	bool given;    /* given on the command line: must equal the directory's */
	bool integer;  /* written as an integer */
	bool zero;     /* 0 is a value (budget: "the default protocol's"), not a fault */
	bool newer;    /* kept since a later fsagent: absent from an older directory, the given or default value
			  is taken and written there */
};

/*
 * DIR/options.json: written from opts when absent; else read back into
 * opts, a given option that differs refused (-EEXIST), a missing (but a
 * newer one's) or non-positive (but a zero one's 0) one -EBADMSG. Returns 0
 * or -errno (logged, naming the file and key).
 */
int statedir_options(const char *dir, const char *who, struct statedir_option *opts, size_t n);

/*
 * What an interrupted job left at path (results, a probe's directory) set
 * aside as path.interrupted-TIME, kept but no longer read; nothing when
 * path does not exist. Returns 0 or -errno (logged).
 */
int statedir_set_aside(const char *path);
