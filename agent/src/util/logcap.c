// SPDX-License-Identifier: MIT
/*
 * Head and tail of a stream kept, the middle cut and named (see logcap.h).
 */
#include "util/logcap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

long long logcap_pump(int in, int out, size_t head, size_t tail)
{
	char buf[65536], *ring = NULL;
	size_t rpos = 0, rlen = 0; /* the ring's next write and how much it holds */
	long long cut = 0;
	int r = 0;

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		size_t k, off;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		k = (size_t)n < head ? (size_t)n : head;
		if (k && (r = write_all(out, buf, k)) < 0)
			break;
		head -= k;
		if (k == (size_t)n)
			continue;
		if (!tail) {
			cut += n - (ssize_t)k;
			continue;
		}
		if (!ring && !(ring = malloc(tail))) {
			r = -ENOMEM;
			break;
		}
		/* the rest into the ring; what it overwrites is cut */
		for (off = k; off < (size_t)n;) {
			size_t m = (size_t)n - off, room = tail - rpos;

			if (m > room)
				m = room;
			memcpy(ring + rpos, buf + off, m);
			rpos = (rpos + m) % tail;
			if (rlen + m > tail) {
				cut += (long long)(rlen + m - tail);
				rlen = tail;
			} else {
				rlen += m;
			}
			off += m;
		}
	}
	if (cut) {
		char said[160];
		int len = snprintf(
			said, sizeof(said),
			"\n[fsagent: %lld bytes of output cut here: the log keeps its first and its last bytes]\n",
			cut);
		int w = write_all(out, said, (size_t)len);

		r = r < 0 ? r : w;
	}
	if (rlen) {
		size_t start = (rpos + tail - rlen) % tail, first = tail - start < rlen ? tail - start : rlen;
		int w = write_all(out, ring + start, first);

		if (w == 0 && rlen > first)
			w = write_all(out, ring, rlen - first);
		r = r < 0 ? r : w;
	}
	free(ring);
	return r < 0 ? r : cut;
}
