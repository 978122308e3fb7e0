// SPDX-License-Identifier: MIT
/*
 * The bundle's journals: one JSON line per test record, appended to
 * tests/<config>/<iteration>.jsonl with fdatasync, torn lines cut, and the
 * records a full results disk held back kept in order for the next try
 * (see struct bundle in bundle.h, and bundle_internal.h).
 */
#include "model/bundle.h"
#include "model/bundle_internal.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/utctime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void bundle_journal_close(struct bundle *b)
{
	/*
	 * what it holds unsynced (expunged records) durable first: bundle_write
	 * syncs the open journal only, and a queue of several configs moves from
	 * one journal to the next before it writes (a panic in the first test
	 * lost xfs/4k's expunged record, ext4/4k's journal open)
	 */
	if (b->jfd >= 0 && fdatasync(b->jfd) < 0)
		log_warn("sync of a journal of %s failed: %s", b->dir, strerror(errno));
	if (b->jfd >= 0)
		close(b->jfd);
	b->jfd = -1;
	b->jit = NULL;
}

/*
 * Open iteration's journal for appending. A line a crash tore is cut off
 * first, so the next record starts a line of its own.
 */
int bundle_journal_open(struct bundle *b, json_t *config, json_t *iteration)
{
	char rel[PATH_MAX], path[PATH_MAX * 2];
	_cleanup_free_ char *text = NULL;
	json_t *tests = NULL;
	size_t len, end;
	char err[256];
	int fd, r;

	if (b->jit == iteration && b->jfd >= 0)
		return 0;
	bundle_journal_close(b);
	r = bundle_journal_rel(rel, sizeof(rel), bundle_config_name(config), iteration);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/%s", b->dir, rel);
	r = fileio_mkdir_parent(path);
	if (r < 0)
		return r;
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	r = fileio_read_full(path, &text, &len);
	if (r == 0)
		r = bundle_parse_journal(text, len, rel, &tests, &end, err, sizeof(err));
	json_decref(tests);
	if (r == 0 && end < len && ftruncate(fd, (off_t)end) < 0)
		r = -errno;
	if (r < 0) {
		close(fd);
		return r;
	}
	b->jfd = fd;
	b->jit = iteration;
	return 0;
}

/* Hold BUNDLE_RESERVE bytes on the results disk for the checkpoints of a full disk. */
void bundle_reserve_take(struct bundle *b)
{
	char path[PATH_MAX + 16];
	int fd;

	snprintf(path, sizeof(path), "%s/.reserve", b->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	b->reserve = posix_fallocate(fd, 0, BUNDLE_RESERVE) == 0;
	close(fd);
	if (!b->reserve)
		unlink(path);
}

/* Give the reserve up. */
void bundle_reserve_give(struct bundle *b)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/.reserve", b->dir);
	unlink(path);
	b->reserve = false;
}

/*
 * Append one record; with sync it is durable on return. A write or flush
 * that fails is cut back to the last whole line at once, so the next record
 * never lands on half a line.
 */
static int append_one(struct bundle *b, json_t *config, json_t *iteration, json_t *rec, bool sync)
{
	_cleanup_free_ char *text = NULL;
	double t0 = utctime_monotonic() * 1e3, ms;
	off_t end;
	size_t n;
	int r;

	r = bundle_journal_open(b, config, iteration);
	if (r < 0)
		return r;
	text = json_dumps(rec, JSON_COMPACT);
	if (!text)
		return -ENOMEM;
	n = strlen(text);
	text[n++] = '\n'; /* over the NUL: one write per record */
	end = lseek(b->jfd, 0, SEEK_END);
	if (end < 0)
		return -errno;
	r = fileio_write_all(b->jfd, text, n);
	if (r == 0 && sync && fdatasync(b->jfd) < 0)
		r = -errno;
	if (r < 0) {
		if (ftruncate(b->jfd, end) < 0) {
			/* cannot cut: reopen, which cuts a torn last line */
			bundle_journal_close(b);
		}
		return r;
	}
	bundle_count_status(iteration, json_string_value(json_object_get(rec, "status")), 1);
	if (!sync)
		return 0;
	ms = utctime_monotonic() * 1e3 - t0;
	b->writes++;
	b->write_total_ms += ms;
	if (ms > b->write_max_ms)
		b->write_max_ms = ms;
	return 0;
}

/* Write the records a full disk held back, in order. Returns 0 or the first failure. */
int bundle_flush_pending(struct bundle *b)
{
	while (json_array_size(b->pending)) {
		json_t *p = json_array_get(b->pending, 0);
		int r = append_one(b, json_object_get(p, "config"), json_object_get(p, "iteration"),
				   json_object_get(p, "record"), true);

		if (r < 0)
			return r;
		json_array_remove(b->pending, 0);
	}
	return 0;
}

int bundle_journal_append(struct bundle *b, json_t *config, json_t *iteration, json_t *rec, bool sync)
{
	int r = json_array_size(b->pending) ? bundle_flush_pending(b) : 0;

	if (r == 0)
		r = append_one(b, config, iteration, rec, sync);
	if (r < 0 && r != -ENOMEM) {
		/* kept, in order behind the others, for the next try */
		if (!b->pending)
			b->pending = json_array();
		json_array_append_new(b->pending, json_pack("{s:O, s:O, s:O}", "config", config, "iteration", iteration,
							    "record", rec));
	}
	return r;
}

size_t bundle_records_lost(const struct bundle *b)
{
	return json_array_size(b->pending);
}
