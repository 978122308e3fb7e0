// SPDX-License-Identifier: MIT
/*
 * Head and tail of a stream kept, the middle cut and named (see logcap.h).
 */
#include "util/logcap.h"
#include "util/fileio.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The last progress line echoed, and when: what a quiet job's heartbeat repeats. */
struct last_progress {
	char text[512];
	double at;
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *logcap_progress(const char *line, size_t len)
{
	const char *p = line, *end = line + len, *q;

	/* a kernel-style stamp, then fsagent's name: "[  725.904] fsagent: " */
	if (p < end && *p == '[' && (q = memchr(p, ']', (size_t)(end - p))) && q + 1 < end && q[1] == ' ' &&
	    strspn(p + 1, " 0123456789.") == (size_t)(q - p - 1))
		p = q + 2;
	if ((size_t)(end - p) >= 9 && !memcmp(p, "fsagent: ", 9))
		p += 9;
	/* "[K/N] " */
	q = p;
	if (q >= end || *q++ != '[')
		return NULL;
	if (q >= end || *q < '0' || *q > '9')
		return NULL;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	if (q >= end || *q++ != '/' || q >= end || *q < '0' || *q > '9')
		return NULL;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	return q + 1 < end && q[0] == ']' && q[1] == ' ' ? p : NULL;
}

/* The UTC time and a space when echo wants it, else "". */
static const char *stamp(const struct logcap_echo *echo, char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;

	if (!echo->utc || !gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ ", &tm))
		return "";
	return buf;
}

/* A line of output: echoed when it is progress (the line without its newline), and kept as the last. */
static void echo_line(const struct logcap_echo *echo, struct last_progress *last, const char *line, size_t len)
{
	const char *p;
	char out[680], when[32];
	int n;

	while (len && line[len - 1] == '\r')
		len--;
	p = logcap_progress(line, len);
	if (!p)
		return;
	n = snprintf(out, sizeof(out), "%s%s%.*s\n", stamp(echo, when, sizeof(when)), echo->prefix,
		     (int)(line + len - p), p);
	if (n > 0 && (size_t)n < sizeof(out))
		(void)!write(echo->fd, out, (size_t)n);
	snprintf(last->text, sizeof(last->text), "%.*s", (int)(line + len - p), p);
	last->at = now_seconds();
}

/* The job has said nothing for echo->quiet seconds: that it still runs, and since what. */
static void heartbeat(const struct logcap_echo *echo, const struct last_progress *last, double start)
{
	char out[800], when[32];
	double since = now_seconds() - (last->text[0] ? last->at : start);
	unsigned min = (unsigned)(since / 60);
	int n;

	if (last->text[0])
		n = snprintf(out, sizeof(out), "%s%sstill running, %u min %02u s since %s\n",
			     stamp(echo, when, sizeof(when)), echo->prefix, min, (unsigned)since % 60, last->text);
	else
		n = snprintf(out, sizeof(out), "%s%sstill running, %u min %02u s in\n", stamp(echo, when, sizeof(when)),
			     echo->prefix, min, (unsigned)since % 60);
	if (n > 0 && (size_t)n < sizeof(out))
		(void)!write(echo->fd, out, (size_t)n);
}

/* Data of the output through the echo's line buffer. */
static void echo_data(const struct logcap_echo *echo, struct last_progress *last, char *line, size_t *llen,
		      const char *buf, size_t n)
{
	size_t off = 0;

	while (off < n) {
		const char *nl = memchr(buf + off, '\n', n - off);
		size_t end = nl ? (size_t)(nl - buf) : n, take = end - off;

		/* a line longer than the buffer is no progress line: *llen past the buffer marks it */
		if (*llen + take < 512)
			memcpy(line + *llen, buf + off, take);
		*llen += take;
		if (nl) {
			if (*llen < 512)
				echo_line(echo, last, line, *llen);
			*llen = 0;
			off = end + 1;
		} else {
			off = n;
		}
	}
}

long long logcap_pump(int in, int out, size_t head, size_t tail, const struct logcap_echo *echo)
{
	char line[512];
	size_t llen = 0;
	char buf[65536], *ring = NULL;
	size_t rpos = 0, rlen = 0; /* the ring's next write and how much it holds */
	long long cut = 0;
	int r = 0;
	struct last_progress last = { "", 0 };
	double began = now_seconds(), beat = began;

	for (;;) {
		ssize_t n;
		size_t k, off;

		/*
		 * no progress line for echo->quiet seconds since the last one or the last heartbeat: a
		 * heartbeat, whether the job is silent or prints what is no progress (a build's lines)
		 */
		if (echo && echo->quiet) {
			double since = now_seconds() - (last.at > beat ? last.at : beat);
			struct pollfd pfd = { .fd = in, .events = POLLIN };
			int pr;

			if (since >= echo->quiet) {
				heartbeat(echo, &last, began);
				beat = now_seconds();
				continue;
			}
			pr = poll(&pfd, 1, (int)((echo->quiet - since) * 1000) + 1);
			if (pr <= 0 && (pr == 0 || errno == EINTR))
				continue;
		}
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		if (echo)
			echo_data(echo, &last, line, &llen, buf, (size_t)n);
		k = (size_t)n < head ? (size_t)n : head;
		if (k && (r = fileio_write_all(out, buf, k)) < 0)
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
		int w = fileio_write_all(out, said, (size_t)len);

		r = r < 0 ? r : w;
	}
	if (rlen) {
		size_t start = (rpos + tail - rlen) % tail, first = tail - start < rlen ? tail - start : rlen;
		int w = fileio_write_all(out, ring + start, first);

		if (w == 0 && rlen > first)
			w = fileio_write_all(out, ring, rlen - first);
		r = r < 0 ? r : w;
	}
	free(ring);
	return r < 0 ? r : cut;
}
