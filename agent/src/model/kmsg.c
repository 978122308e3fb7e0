// SPDX-License-Identifier: MIT
/*
 * /dev/kmsg reading, record parsing and report classification (see kmsg.h).
 * The patterns follow fstests' _check_dmesg and the kernel's own message
 * formats, plus the reports fstests does not catch (hung tasks, lockups,
 * RCU stalls).
 */
#include "model/kmsg.h"
#include "util/macro.h"
#include "util/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool parse_ull(const char **p, const char *end, unsigned long long *ret)
{
	unsigned long long v = 0;
	const char *s = *p;

	if (s >= end || *s < '0' || *s > '9')
		return false;
	while (s < end && *s >= '0' && *s <= '9')
		v = v * 10 + (unsigned long long)(*s++ - '0');
	*ret = v;
	*p = s;
	return true;
}

int kmsg_parse_record(const char *buf, size_t len, struct kmsg_record *ret)
{
	const char *p = buf, *end = buf + len, *semi, *nl;
	unsigned long long pri, seq, ts;

	semi = memchr(buf, ';', len);
	if (!semi)
		return -EBADMSG;
	if (!parse_ull(&p, semi, &pri) || p >= semi || *p++ != ',' || !parse_ull(&p, semi, &seq) || p >= semi ||
	    *p++ != ',' || !parse_ull(&p, semi, &ts) || p >= semi || *p != ',')
		return -EBADMSG;
	nl = memchr(semi + 1, '\n', (size_t)(end - semi - 1));
	ret->level = (int)(pri & 7);
	ret->facility = (int)(pri >> 3);
	ret->seq = seq;
	ret->ts_usec = ts;
	ret->msg = semi + 1;
	ret->msg_len = (size_t)((nl ? nl : end) - ret->msg);
	return 0;
}

/* memmem over the record text */
static bool has(const char *msg, size_t len, const char *needle)
{
	if (!msg || !len)
		return false;
	return memmem(msg, len, needle, strlen(needle)) != NULL;
}

static bool begins(const char *msg, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(msg, prefix, n) == 0;
}

/* fstests' \bBUG: — "BUG:" not preceded by a word character */
static bool has_bug_word(const char *msg, size_t len)
{
	for (const char *p = msg; (p = memmem(p, len - (size_t)(p - msg), "BUG:", 4)); p++) {
		if (p == msg)
			return true;
		if (!(p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') || (p[-1] >= 'a' && p[-1] <= 'z') ||
		      (p[-1] >= 'A' && p[-1] <= 'Z')))
			return true;
		if ((size_t)(p - msg) + 4 >= len)
			break;
	}
	return false;
}

static const char *const lockdep_reports[] = {
	"possible circular locking dependency detected",
	"possible recursive locking detected",
	"inconsistent lock state",
	"possible irq lock inversion dependency detected",
	"suspicious RCU usage",
	"bad unlock balance detected",
	"held lock freed",
	"lock held when returning to user space",
	"lock held at task exit time",
	"Nested lock was not taken",
	"bad contention detected",
	"chain_key collision",
};

/* A kept log line's message: after its "<6>" level and "[   29.268674] " stamp, when it has them. */
static const char *log_message(const char *p, const char *e)
{
	if (p < e && *p == '<') {
		const char *gt = memchr(p, '>', (size_t)(e - p));

		if (gt && gt - p <= 4)
			p = gt + 1;
	}
	if (p < e && *p == '[') {
		const char *rb = memchr(p, ']', (size_t)(e - p));

		if (rb && rb - p <= 20)
			p = rb + 1 < e && rb[1] == ' ' ? rb + 2 : rb + 1;
	}
	return p;
}

void kmsg_classify_log(const char *text, size_t len, unsigned findings[KMSG_FINDING_MAX], char *first,
		       size_t first_size)
{
	const char *end = text + len;

	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *m = log_message(p, e);
		enum kmsg_finding f;

		f = kmsg_classify(m, (size_t)(e - m));
		if (f != KMSG_NONE) {
			findings[f]++;
			if (kmsg_finding_fails_test(f) && first && first_size && !first[0])
				snprintf(first, first_size, "%.*s", (int)(e - m), m);
		}
		p = nl ? nl + 1 : end;
	}
}

enum kmsg_finding kmsg_classify(const char *m, size_t n)
{
	if (has(m, n, "Kernel panic - not syncing"))
		return KMSG_PANIC;
	if (has(m, n, "BUG: KASAN:"))
		return KMSG_KASAN;
	if (has(m, n, "BUG: KFENCE:"))
		return KMSG_KFENCE;
	if (has(m, n, "BUG: KCSAN:"))
		return KMSG_KCSAN;
	if (begins(m, n, "UBSAN:") || has(m, n, " UBSAN: "))
		return KMSG_UBSAN;
	if (has(m, n, "BUG: soft lockup"))
		return KMSG_SOFT_LOCKUP;
	if (has(m, n, "Watchdog detected hard LOCKUP"))
		return KMSG_HARD_LOCKUP;
	if (begins(m, n, "INFO: task ") && has(m, n, "blocked for more than"))
		return KMSG_HUNG_TASK;
	if ((begins(m, n, "rcu: INFO: ") || begins(m, n, "INFO: rcu")) &&
	    (has(m, n, "stall") || has(m, n, "detected stalls")))
		return KMSG_RCU_STALL;
	for (size_t i = 0; i < ARRAY_SIZE(lockdep_reports); i++)
		if (has(m, n, lockdep_reports[i]))
			return KMSG_LOCKDEP;
	/* lockdep's table limits end in it switching itself off; fstests filters them */
	if (has(m, n, "turning off the locking correctness validator") ||
	    (has(m, n, "BUG: MAX_") && has(m, n, "too low")))
		return KMSG_LOCKDEP_OFF;
	if (has(m, n, "general protection fault"))
		return KMSG_GPF;
	if (begins(m, n, "Oops:") || has(m, n, "BUG: unable to handle") ||
	    has(m, n, "BUG: kernel NULL pointer dereference"))
		return KMSG_OOPS;
	if (has(m, n, "kernel BUG at") || has_bug_word(m, n) || (begins(m, n, "BUG ") && has(m, n, "remaining")))
		return KMSG_BUG;
	/* fstests ignores this one: xfs repairs the AGFL and says so */
	if (has(m, n, "WARNING:") && !has(m, n, "WARNING: Reset corrupted AGFL"))
		return KMSG_WARNING;
	if (has(m, n, "invoked oom-killer") || begins(m, n, "oom-kill:") ||
	    begins(m, n, "Out of memory: Killed process"))
		return KMSG_OOM;
	return KMSG_NONE;
}

const char *kmsg_finding_to_string(enum kmsg_finding f)
{
	static const char *const names[KMSG_FINDING_MAX] = {
		[KMSG_NONE] = "none",
		[KMSG_WARNING] = "warning",
		[KMSG_BUG] = "bug",
		[KMSG_OOPS] = "oops",
		[KMSG_GPF] = "general-protection-fault",
		[KMSG_LOCKDEP] = "lockdep",
		[KMSG_LOCKDEP_OFF] = "lockdep-off",
		[KMSG_KASAN] = "kasan",
		[KMSG_KFENCE] = "kfence",
		[KMSG_UBSAN] = "ubsan",
		[KMSG_KCSAN] = "kcsan",
		[KMSG_HUNG_TASK] = "hung-task",
		[KMSG_SOFT_LOCKUP] = "soft-lockup",
		[KMSG_HARD_LOCKUP] = "hard-lockup",
		[KMSG_RCU_STALL] = "rcu-stall",
		[KMSG_OOM] = "oom-kill",
		[KMSG_PANIC] = "panic",
		[KMSG_TAINT] = "taint",
	};
	return f < KMSG_FINDING_MAX ? names[f] : "?";
}

bool kmsg_finding_fails_test(enum kmsg_finding f)
{
	return f != KMSG_NONE && f != KMSG_LOCKDEP_OFF && f < KMSG_FINDING_MAX;
}

int kmsg_marker_test(const char *msg, size_t len, char *buf, size_t size)
{
	const char *p, *end = msg + len, *sp;
	size_t n;

	if (!begins(msg, len, "run fstests "))
		return -ENOENT;
	p = msg + strlen("run fstests ");
	sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp || sp == p || (size_t)(end - sp) < 4 || memcmp(sp, " at ", 4) != 0)
		return -ENOENT;
	n = (size_t)(sp - p);
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

int kmsg_log_last_marker(const char *text, size_t len, char *buf, size_t size)
{
	const char *end = text + len;
	int r = -ENOENT;

	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *m = log_message(p, e);
		char test[256];

		if (kmsg_marker_test(m, (size_t)(e - m), test, sizeof(test)) == 0) {
			if ((size_t)snprintf(buf, size, "%s", test) >= size)
				return -ENAMETOOLONG;
			r = 0;
		}
		p = nl ? nl + 1 : end;
	}
	return r;
}

bool kmsg_log_from_boot(const char *text, size_t len)
{
	const char *end = text + len;

	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *m = log_message(p, e);

		if (begins(m, (size_t)(e - m), "Linux version "))
			return true;
		p = nl ? nl + 1 : end;
	}
	return false;
}

int kmsg_open(struct kmsg_reader *r)
{
	char path[PATH_MAX];
	int rr = sysroot_path(path, sizeof(path), "/dev/kmsg");

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (rr < 0)
		return rr;
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return r->fd < 0 ? -errno : 0;
}

int kmsg_seek_end(struct kmsg_reader *r)
{
	if (lseek(r->fd, 0, SEEK_END) < 0)
		return -errno;
	r->next_seq = 0;
	return 0;
}

int kmsg_read(struct kmsg_reader *r, struct kmsg_record *ret)
{
	for (;;) {
		ssize_t n = read(r->fd, r->buf, sizeof(r->buf) - 1);

		if (n < 0) {
			/*
			 * EPIPE: the record we were at was overwritten; the next read
			 * continues at the oldest one left, and the seq gap counts the loss.
			 */
			if (errno == EPIPE || errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EAGAIN;
		r->buf[n] = '\0';
		if (kmsg_parse_record(r->buf, (size_t)n, ret) < 0)
			continue; /* not a record: skip it, never stop reading */
		if (r->next_seq && ret->seq > r->next_seq)
			r->lost += ret->seq - r->next_seq;
		r->next_seq = ret->seq + 1;
		return 0;
	}
}

void kmsg_close(struct kmsg_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
