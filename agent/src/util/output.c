// SPDX-License-Identifier: MIT
/*
 * Printing a result: text made printable, files replaced whole.
 */
#include "util/output.h"
#include "util/log.h"
#include "util/macro.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void print_printable(void (*fn)(json_t *, FILE *), json_t *doc)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	fn(doc, m);
	fclose(m);
	log_printable(text, len);
	fwrite(text, 1, len, stdout);
}

int write_output_by(const char *path, int (*fn)(const void *data, FILE *), const void *data)
{
	char tmp[PATH_MAX];
	FILE *f;
	int bad, r;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "we");
	if (!f) {
		log_err("open '%s' failed: %s", tmp, strerror(errno));
		return -errno;
	}
	r = fn(data, f);
	bad = ferror(f) | (fflush(f) != 0) | (fsync(fileno(f)) != 0);
	if (fclose(f) != 0 || bad || r < 0 || rename(tmp, path) < 0) {
		log_err("write '%s' failed: %s", path, strerror(r < 0 ? -r : errno));
		unlink(tmp);
		return r < 0 ? r : -EIO;
	}
	return 0;
}

struct json_writer {
	json_t *res;
	void (*fn)(json_t *, FILE *);
};

static int write_json(const void *data, FILE *f)
{
	const struct json_writer *w = data;

	w->fn(w->res, f);
	return 0;
}

int write_output(const char *path, json_t *res, void (*fn)(json_t *, FILE *))
{
	struct json_writer w = { res, fn };

	return write_output_by(path, write_json, &w);
}

void dump_json(json_t *res, FILE *f)
{
	json_dumpf(res, f, JSON_INDENT(1));
	fputc('\n', f);
}
