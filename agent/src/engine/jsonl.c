// SPDX-License-Identifier: MIT
/*
 * A record of JSON lines (see jsonl.h).
 */
#include "engine/jsonl.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int jsonl_append(const char *path, json_t *rec)
{
	_cleanup_free_ char *text = json_dumps(rec, JSON_COMPACT);
	_cleanup_close_ int fd = -1;
	int r;

	if (!text)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || fileio_write_all(fd, text, strlen(text)) < 0 || fileio_write_all(fd, "\n", 1) < 0 ||
	    fsync(fd) < 0) {
		r = -errno;
		log_err("append to '%s' failed: %m", path);
		return r;
	}
	return 0;
}

int jsonl_replay(const char *path, int (*take)(void *ctx, json_t *rec, const char *path, unsigned line), void *ctx)
{
	_cleanup_free_ char *text = NULL;
	char *line, *next;
	unsigned no = 0;
	int r = fileio_read_regular(path, 64 << 20, &text, NULL);

	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		log_err("read '%s' failed: %s", path, strerror(-r));
		return r;
	}
	for (line = text; line && *line; line = next) {
		json_t *rec;

		next = strchr(line, '\n');
		no++;
		if (!next) {
			log_warn("%s:%u: an unfinished last line (a stop while writing it), left out", path, no);
			if (truncate(path, line - text) < 0) {
				r = -errno;
				log_err("truncate '%s' failed: %m", path);
				return r;
			}
			break;
		}
		*next++ = '\0';
		rec = json_loads(line, 0, NULL);
		r = take(ctx, rec, path, no);
		json_decref(rec);
		if (r < 0)
			return r;
	}
	return 0;
}
