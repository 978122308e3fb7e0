/* SPDX-License-Identifier: MIT */
/*
 * Shared by the bundle's writer (bundle.c, bundle_journal.c), reader
 * (bundle_read.c) and scanner (bundle_scan.c, bundle_crashes.c); no other module includes it. The layout of a
 * bundle directory and the rules every reader applies to what a guest wrote.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Each config c of a bundle document and each iteration it of it (i, k: their indexes). */
#define bundle_foreach_iteration(doc, i, c, k, it)                \
	json_array_foreach(json_object_get(doc, "configs"), i, c) \
		json_array_foreach(json_object_get(c, "iterations"), k, it)

/* What the readers say of a record that breaks a rule (bundle_read's record_ok, bundle_scan's scan_line). */
#define BUNDLE_WHY_NAME "key 'name': not a test name like 'generic/001'"
#define BUNDLE_WHY_STATUS "key 'status': not one of pass, fail, notrun, expunged, timeout, crash, error"

/* Whether s is a status a record may have (model/result.h's names). */
bool bundle_status_known(const char *s);

/* "xfs/4k" -> "xfs_4k" (a config's directory name). Returns 0 or -EINVAL. */
int bundle_config_slug(const char *config, char *buf, size_t size);
/* tests/<slug>/<index>.jsonl of an iteration. Returns 0 or -errno. */
int bundle_journal_rel(char *buf, size_t size, const char *config, json_t *iteration);
const char *bundle_config_name(json_t *config);
bool bundle_iteration_folded(json_t *iteration);

/* Add delta to iteration's count of status. */
void bundle_count_status(json_t *iteration, const char *status, json_int_t delta);
/* An iteration's counts taken again from its records. */
void bundle_recount(json_t *iteration, json_t *tests);
/* The document's counts: the sum of its iterations'. */
void bundle_sum_counts(json_t *doc);

/*
 * A journal's records in order of first appearance, a later record of a
 * test replacing the earlier one, each checked by the readers' rules. A
 * last line without its newline was torn by a crash and is not a record;
 * *ret_end (may be NULL) gets the length of the whole lines. Any other bad
 * line is an error naming shown:line. Returns 0, -ENOMEM or -EBADMSG.
 */
int bundle_parse_journal(const char *text, size_t len, const char *shown, json_t **ret, size_t *ret_end, char *err,
			 size_t es);
/* The records of an iteration's journal under dir; a missing journal has none. */
int bundle_read_journal(const char *dir, json_t *config, json_t *iteration, json_t **ret, char *err, size_t es);

/* A file of a bundle: beneath dir, no symlink followed, regular, at most max bytes. */
int bundle_read_beneath(const char *dir, const char *rel, size_t max, char **ret, size_t *ret_len);

/* The shape every reader relies on; err names the key. Returns 0 or -EBADMSG. */
int bundle_check_doc(json_t *doc, char *err, size_t es);
/*
 * A bundle's document, checked: path is bundle.json or its directory; dir
 * gets the bundle's directory. Returns 0, -ENAMETOOLONG, -ENOMEM or -EBADMSG
 * with err naming the file.
 */
int bundle_load_checked(const char *path, json_t **ret, char *dir, size_t dsize, char *err, size_t es);

struct bundle;
/* The writer's journals (bundle_journal.c). */
/* Open iteration's journal for appending (a line a crash tore cut off first). Returns 0 or -errno. */
int bundle_journal_open(struct bundle *b, json_t *config, json_t *iteration);
void bundle_journal_close(struct bundle *b);
/*
 * Append rec to iteration's journal (durable on return with sync), after
 * the records a full disk held back. A record that cannot be written is
 * kept for the next try (bundle_records_lost() counts it). Returns 0 or -errno.
 */
int bundle_journal_append(struct bundle *b, json_t *config, json_t *iteration, json_t *rec, bool sync);
/* Write the records held back, in order. Returns 0 or the first failure. */
int bundle_flush_pending(struct bundle *b);
/* Hold BUNDLE_RESERVE bytes in <dir>/.reserve; give them up for the last bundle.json. */
void bundle_reserve_take(struct bundle *b);
void bundle_reserve_give(struct bundle *b);

/*
 * Walk a bundle (path: bundle.json or its directory), checked: begin (may be
 * NULL) once with the document and the bundle's directory, then iteration
 * for each iteration that has a journal of its own (folded ones have none).
 * The first error stops the walk. *ret_doc (may be NULL) gets the document.
 * Returns 0 or the first -errno.
 */
struct bundle_walker {
	int (*begin)(void *ctx, json_t *doc, const char *dir, char *err, size_t es);
	int (*iteration)(void *ctx, const char *dir, json_t *config, json_t *it, char *err, size_t es);
};
int bundle_walk(const char *path, const struct bundle_walker *w, void *ctx, json_t **ret_doc, char *err, size_t es);

struct bundle_scan_ops;
/*
 * bundle_scan's crashes no test's record holds (bundle_crashes.c), each to
 * ops->crash: iteration it's crash_pair and crash_unexplained, and every
 * config's crash_before_tests; checked as the guest wrote them (err names
 * file, key, config and iteration). Returns 0 or a negative errno.
 */
int bundle_scan_crash(const char *dir, json_t *c, json_t *it, const struct bundle_scan_ops *ops, void *ctx, char *err,
		      size_t es);
int bundle_scan_crash_before_tests(const char *dir, json_t *doc, const struct bundle_scan_ops *ops, void *ctx,
				   char *err, size_t es);
