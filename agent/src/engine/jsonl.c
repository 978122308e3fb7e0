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

long jsonl_parse(const char *text, size_t len, const char *path,
		 int (*take)(void *ctx, json_t *rec, const char *path, unsigned line), void *ctx)
{
	size_t end, at = 0;
	unsigned no = 0;

	/* the records end at the last newline; what follows it is a write a stop cut off */
	for (end = len; end > 0 && text[end - 1] != '\n'; end--)
		;
	while (at < end) {
		const char *line = text + at, *nul;
		size_t n = (size_t)((const char *)memchr(line, '\n', end - at) - line);
		json_error_t err;
		json_t *rec;
		int r;

		no++;
		at += n + 1;
		if ((nul = memchr(line, '\0', n))) {
			log_err("%s:%u: a NUL byte at column %zu: the record is damaged, refused (nothing was cut)",
				path, no, (size_t)(nul - line) + 1);
			return -EBADMSG;
		}
		rec = json_loadb(line, n, JSON_REJECT_DUPLICATES, &err);
		if (!rec) {
			log_err("%s:%u: not a JSON record (%s, column %d), refused (nothing was cut)", path, no,
				err.text, err.column);
			return -EBADMSG;
		}
		r = take(ctx, rec, path, no);
		json_decref(rec);
		if (r < 0)
			return r;
	}
	if (end < len)
		log_warn("%s:%u: an unfinished last line (a stop while writing it: %zu bytes after the last "
			 "newline), left out",
			 path, no + 1, len - end);
	return (long)end;
}

int jsonl_replay(const char *path, int (*take)(void *ctx, json_t *rec, const char *path, unsigned line), void *ctx)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	long end;
	int r = fileio_read_regular(path, 64 << 20, &text, &len);

	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		log_err("read '%s' failed: %s", path, strerror(-r));
		return r;
	}
	end = jsonl_parse(text, len, path, take, ctx);
	if (end < 0)
		return (int)end;
	if ((size_t)end < len && truncate(path, (off_t)end) < 0) {
		r = -errno;
		log_err("truncate '%s' failed: %m", path);
		return r;
	}
	return 0;
}
