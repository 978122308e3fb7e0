/* SPDX-License-Identifier: MIT */
/*
 * The kernel log: a reader of /dev/kmsg that counts records lost to ring
 * buffer overruns (EPIPE, seq gaps), a pure parser of one record, a
 * classifier that names what a report means for a filesystem test, and the
 * "run fstests <test> at <date>" markers check writes before each test.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct kmsg_record {
	int level;    /* syslog level 0..7 */
	int facility; /* 0 kernel, 1 user (check's markers) */
	unsigned long long seq;
	unsigned long long ts_usec;
	const char *msg; /* points into the buffer parsed; not NUL-terminated */
	size_t msg_len;
};

/*
 * Parse one /dev/kmsg record "PRI,SEQ,TS,FLAGS[,...];MESSAGE\n[ KEY=VALUE\n]*"
 * held in buf (one read(2)). Returns 0 or -EBADMSG.
 */
int kmsg_parse_record(const char *buf, size_t len, struct kmsg_record *ret);

enum kmsg_finding {
	KMSG_NONE,
	KMSG_WARNING,	  /* WARNING: ... */
	KMSG_BUG,	  /* kernel BUG at, BUG: ... */
	KMSG_OOPS,	  /* Oops:, BUG: unable to handle ..., NULL pointer dereference */
	KMSG_GPF,	  /* general protection fault */
	KMSG_LOCKDEP,	  /* a lockdep report */
	KMSG_LOCKDEP_OFF, /* lockdep turned itself off: later tests run without it */
	KMSG_KASAN,
	KMSG_KFENCE,
	KMSG_UBSAN,
	KMSG_KCSAN,
	KMSG_HUNG_TASK, /* INFO: task ... blocked for more than N seconds */
	KMSG_SOFT_LOCKUP,
	KMSG_HARD_LOCKUP,
	KMSG_RCU_STALL,
	KMSG_OOM,
	KMSG_PANIC,
	KMSG_TAINT, /* the kernel's taint flags changed during the test (not a record) */
	KMSG_FINDING_MAX
};

/* What msg (one record's text) reports, or KMSG_NONE. */
enum kmsg_finding kmsg_classify(const char *msg, size_t len);

const char *kmsg_finding_to_string(enum kmsg_finding f);

/*
 * Classify each line of a kernel log kept as text (pstore's dmesg records,
 * a console: "<6>[   29.268674] Kernel panic - ..."; the level and stamp
 * are skipped) into findings[], and copy the first report that fails a test
 * into first (when it is still empty), as the live reader does.
 */
void kmsg_classify_log(const char *text, size_t len, unsigned findings[KMSG_FINDING_MAX], char *first,
		       size_t first_size);

/* Whether a test during which f was reported has failed (all but LOCKDEP_OFF). */
bool kmsg_finding_fails_test(enum kmsg_finding f);

/*
 * If msg is check's marker "run fstests <test> at <date>", copy <test> to
 * buf and return 0; otherwise -ENOENT.
 */
int kmsg_marker_test(const char *msg, size_t len, char *buf, size_t size);

/*
 * The test of the last check marker in a kernel log kept as text (as
 * kmsg_classify_log reads it) copied to buf: the test that had started last
 * when that log ended. Returns 0, -ENOENT (no marker) or -ENAMETOOLONG.
 */
int kmsg_log_last_marker(const char *text, size_t len, char *buf, size_t size);

/*
 * Whether a kernel log kept as text holds the kernel's first line ("Linux
 * version ..."): nothing of that boot has been overwritten since, so a
 * marker missing from it was never written.
 */
bool kmsg_log_from_boot(const char *text, size_t len);

struct kmsg_reader {
	int fd;
	unsigned long long next_seq; /* the seq we expect next, 0 before the first */
	unsigned long long lost;     /* records overwritten before we read them */
	char buf[8192];
};

/* Open /dev/kmsg (through the sysroot) non-blocking. Returns 0 or -errno. */
int kmsg_open(struct kmsg_reader *r);

/* Start at the end of the buffer: only records written from now on. */
int kmsg_seek_end(struct kmsg_reader *r);

/*
 * Read the next record into *ret (valid until the next call). Returns 0,
 * -EAGAIN when there is nothing to read, or -errno.
 */
int kmsg_read(struct kmsg_reader *r, struct kmsg_record *ret);

void kmsg_close(struct kmsg_reader *r);
