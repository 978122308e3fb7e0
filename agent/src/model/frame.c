// SPDX-License-Identifier: MIT
/*
 * Console framing and extraction (see frame.h).
 */
#include "model/frame.h"
#include "util/fileio.h"
#include "util/macro.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

int frame_write(int fd, const char *name, const char *data, size_t len)
{
	char head[160];
	const char *p = data, *end = data + len;
	int r;

	snprintf(head, sizeof(head), "FSAGENT-BEGIN %s len=%zu crc32=%08lx\n", name, len,
		 crc32(0L, (const Bytef *)data, (uInt)len));
	r = fileio_write_all(fd, head, strlen(head));
	while (r == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = NULL;
		int m = asprintf(&line, "FSAGENT|%s|%.*s\n", name, (int)n, p);

		if (m < 0)
			return -ENOMEM;
		r = fileio_write_all(fd, line, (size_t)m);
		free(line);
		p += n + (nl ? 1 : 0);
	}
	if (r == 0) {
		snprintf(head, sizeof(head), "FSAGENT-END %s\n", name);
		r = fileio_write_all(fd, head, strlen(head));
	}
	return r;
}

int frame_extract(const char *log, const char *name, char **ret, size_t *ret_len)
{
	char begin[128], prefix[128], endl[128];
	const char *last = NULL, *p;
	size_t want = 0, len = 0, plen;
	unsigned long crc = 0;
	char *out;
	bool closed = false;

	snprintf(begin, sizeof(begin), "FSAGENT-BEGIN %s len=", name);
	snprintf(prefix, sizeof(prefix), "FSAGENT|%s|", name);
	snprintf(endl, sizeof(endl), "FSAGENT-END %s", name);
	plen = strlen(prefix);
	/* a BEGIN may follow other text on a console line; take the last one */
	for (p = log; (p = strstr(p, begin)); p++)
		last = p;
	if (!last)
		return -ENOENT;
	/* the console is the guest's: a length is digits, and no longer than the log */
	{
		const char *q = last + strlen(begin);
		char *end;
		unsigned long long w;

		if (*q < '0' || *q > '9')
			return -EBADMSG;
		errno = 0;
		w = strtoull(q, &end, 10);
		if (errno || w > strlen(log) || sscanf(end, " crc32=%lx", &crc) != 1)
			return -EBADMSG;
		want = (size_t)w;
	}
	out = malloc(want + 2);
	if (!out)
		return -ENOMEM;
	for (p = strchr(last, '\n'); p && *++p;) {
		const char *eol = strchrnul(p, '\n');
		size_t n = (size_t)(eol - p);

		if (n > 0 && p[n - 1] == '\r')
			n--; /* serial consoles add CRs */
		if (n >= strlen(endl) && strncmp(p, endl, strlen(endl)) == 0) {
			closed = true;
			break;
		}
		if (n >= plen && strncmp(p, prefix, plen) == 0) {
			size_t k = n - plen;

			if (len + k + 1 > want + 1) {
				free(out);
				return -EBADMSG;
			}
			memcpy(out + len, p + plen, k);
			len += k;
			if (len < want)
				out[len++] = '\n';
		}
		p = *eol ? eol : NULL;
		if (!p)
			break;
	}
	if (!closed || len != want || crc32(0L, (const Bytef *)out, (uInt)len) != crc) {
		free(out);
		return -EBADMSG;
	}
	out[len] = '\0';
	*ret = out;
	if (ret_len)
		*ret_len = len;
	return 0;
}
