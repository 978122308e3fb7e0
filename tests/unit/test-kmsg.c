// SPDX-License-Identifier: MIT
/* kmsg: record parsing, classification of real kernel reports, markers, loss counting. */
#include "unit.h"
#include "model/kmsg.h"
#include "model/kmsg_device.h"
#include "util/macro.h"
#include "util/fileio.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#define KMSG_FIXTURE FIXTURE_DIR "/kmsg/testvm.kmsg"

static enum kmsg_finding classify(const char *s)
{
	return kmsg_classify(s, strlen(s));
}

static void test_parse(void **state)
{
	const char *r = "4,392,5717800,-;WARNING: CPU: 1 PID: 1 at x.c:85 f+0xe/0x20\n SUBSYSTEM=x\n";
	struct kmsg_record rec;

	(void)state;
	assert_int_equal(kmsg_parse_record(r, strlen(r), &rec), 0);
	assert_int_equal(rec.level, 4);
	assert_int_equal(rec.facility, 0);
	assert_int_equal(rec.seq, 392);
	assert_int_equal(rec.ts_usec, 5717800);
	assert_int_equal(rec.msg_len, strlen("WARNING: CPU: 1 PID: 1 at x.c:85 f+0xe/0x20"));
	r = "12,387,5710261,-,caller=T1;run fstests selftest/001 at 2026-12-03 10:00:00";
	assert_int_equal(kmsg_parse_record(r, strlen(r), &rec), 0);
	assert_int_equal(rec.facility, 1);
	assert_int_equal(rec.level, 4);
	assert_int_equal(kmsg_parse_record("garbage", 7, &rec), -EBADMSG);
	assert_int_equal(kmsg_parse_record("4,x,1,-;m", 9, &rec), -EBADMSG);
	assert_int_equal(kmsg_parse_record("4,1,1;m", 7, &rec), -EBADMSG);
}

/* Classify every record of a real capture, by the test whose marker precedes it. */
static void test_real_capture(void **state)
{
	char *buf = NULL, test[64] = "";
	unsigned seen[16][KMSG_FINDING_MAX] = { 0 };
	const char *names[] = { "selftest/001", "selftest/901", "selftest/902",
				"selftest/903", "selftest/909", "selftest/905" };
	int cur = -1, records = 0;

	(void)state;
	assert_int_equal(fileio_read_full(KMSG_FIXTURE, &buf, NULL), 0);
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		struct kmsg_record rec;

		if (line[0] == ' ')
			continue; /* a record's KEY=VALUE continuation */
		assert_int_equal(kmsg_parse_record(line, strlen(line), &rec), 0);
		records++;
		if (kmsg_marker_test(rec.msg, rec.msg_len, test, sizeof(test)) == 0) {
			cur = -1;
			for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
				if (strcmp(names[i], test) == 0)
					cur = i;
			continue;
		}
		if (cur >= 0)
			seen[cur][kmsg_classify(rec.msg, rec.msg_len)]++;
	}
	free(buf);
	assert_true(records > 1000);
	/* the quiet test: nothing at all */
	for (int f = 1; f < KMSG_FINDING_MAX; f++)
		assert_int_equal(seen[0][f], 0);
	assert_true(seen[1][KMSG_WARNING] == 1);
	assert_true(seen[2][KMSG_BUG] >= 1);
	assert_int_equal(seen[2][KMSG_WARNING], 0);
	assert_true(seen[3][KMSG_OOPS] >= 1);
	assert_true(seen[4][KMSG_OOM] >= 1);
	assert_true(seen[5][KMSG_SOFT_LOCKUP] >= 1);
	assert_true(seen[5][KMSG_RCU_STALL] >= 1);
}

static void test_kernel_formats(void **state)
{
	(void)state;
	/* from kernel/hung_task.c, kernel/locking/lockdep.c, mm/kasan, lib/ubsan.c, ... */
	assert_int_equal(classify("INFO: task fsstress:1234 blocked for more than 122 seconds."), KMSG_HUNG_TASK);
	assert_int_equal(classify("WARNING: possible circular locking dependency detected"), KMSG_LOCKDEP);
	assert_int_equal(classify("WARNING: possible recursive locking detected"), KMSG_LOCKDEP);
	assert_int_equal(classify("WARNING: inconsistent lock state"), KMSG_LOCKDEP);
	assert_int_equal(classify("WARNING: suspicious RCU usage"), KMSG_LOCKDEP);
	assert_int_equal(classify("turning off the locking correctness validator."), KMSG_LOCKDEP_OFF);
	assert_int_equal(classify("BUG: MAX_LOCKDEP_CHAIN_HLOCKS too low!"), KMSG_LOCKDEP_OFF);
	assert_int_equal(classify("BUG: KASAN: use-after-free in xfs_buf_rele+0x4a/0x3c0"), KMSG_KASAN);
	assert_int_equal(classify("BUG: KFENCE: out-of-bounds read in test_oob+0x1/0x2"), KMSG_KFENCE);
	assert_int_equal(classify("BUG: KCSAN: data-race in ext4_mark_iloc_dirty / ext4_do_update_inode"), KMSG_KCSAN);
	assert_int_equal(classify("UBSAN: shift-out-of-bounds in fs/xfs/libxfs/xfs_bmap.c:123:4"), KMSG_UBSAN);
	assert_int_equal(classify("general protection fault, probably for non-canonical address 0xdead: 0000 [#1] SMP"),
			 KMSG_GPF);
	assert_int_equal(classify("NMI watchdog: Watchdog detected hard LOCKUP on cpu 1"), KMSG_HARD_LOCKUP);
	assert_int_equal(classify("rcu: INFO: rcu_sched detected stalls on CPUs/tasks:"), KMSG_RCU_STALL);
	assert_int_equal(classify("Kernel panic - not syncing: sysrq triggered crash"), KMSG_PANIC);
	assert_int_equal(classify("BUG: sleeping function called from invalid context at mm/slab.h:1"), KMSG_BUG);
	assert_int_equal(
		classify("BUG kmalloc-64 (Not tainted): Objects remaining in kmalloc-64 on __kmem_cache_shutdown()"),
		KMSG_BUG);
	/* fstests' filters and near misses */
	assert_int_equal(classify("WARNING: Reset corrupted AGFL on AG 0. 1 blocks leaked."), KMSG_NONE);
	assert_int_equal(classify("XFS (vdb): Mounting V5 Filesystem"), KMSG_NONE);
	assert_int_equal(classify("DEBUG_BUG: not a report"), KMSG_NONE);
	assert_int_equal(classify("run fstests generic/001 at 2026-12-03 10:00:00"), KMSG_NONE);
	assert_true(kmsg_finding_fails_test(KMSG_HUNG_TASK));
	assert_false(kmsg_finding_fails_test(KMSG_LOCKDEP_OFF));
	assert_false(kmsg_finding_fails_test(KMSG_NONE));
	assert_string_equal(kmsg_finding_to_string(KMSG_RCU_STALL), "rcu-stall");
}

static void test_marker(void **state)
{
	char t[32];
	const char *m = "run fstests generic/475 at 2026-12-03 10:00:00";

	(void)state;
	assert_int_equal(kmsg_marker_test(m, strlen(m), t, sizeof(t)), 0);
	assert_string_equal(t, "generic/475");
	m = "run fstests  at x";
	assert_int_equal(kmsg_marker_test(m, strlen(m), t, sizeof(t)), -ENOENT);
	m = "run fstests generic/475";
	assert_int_equal(kmsg_marker_test(m, strlen(m), t, sizeof(t)), -ENOENT);
	m = "run xfstest generic/475 at x";
	assert_int_equal(kmsg_marker_test(m, strlen(m), t, sizeof(t)), -ENOENT);
}

/* The last marker of a kept log: the test that had started last (pstore's dmesg record, as the VM case's) */
static void test_last_marker(void **state)
{
	static const char log[] = "--- pstore dmesg-ramoops-0\n"
				  "Panic#1 Part1\n"
				  "<6>[   11.891621] run fstests selftest/032 at 2026-12-07 22:13:35\n"
				  "<5>[   12.001000] XFS (loop1): Mounting V5 Filesystem\n"
				  "<6>[   13.125172] run fstests selftest/013 at 2026-12-07 22:13:36\n"
				  "<6>[   13.201523] sysrq: Trigger a crash\n"
				  "<0>[   13.201990] Kernel panic - not syncing: sysrq triggered crash\n"
				  "[   13.3] run fstests generic/001\n"; /* torn: no " at " */
	char t[32];

	(void)state;
	assert_int_equal(kmsg_log_last_marker(log, strlen(log), t, sizeof(t)), 0);
	assert_string_equal(t, "selftest/013");
	assert_int_equal(kmsg_log_last_marker(log, 60, t, sizeof(t)), -ENOENT); /* before any marker */
	assert_int_equal(kmsg_log_last_marker(log, strlen(log), t, 8), -ENAMETOOLONG);
}

/* A SEQPACKET socket keeps record boundaries like /dev/kmsg does. */
static void test_lost_records(void **state)
{
	struct kmsg_reader r = { .fd = -1 };
	struct kmsg_record rec;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	r.fd = sv[0];
	assert_int_equal(write(sv[1], "6,10,1,-;a\n", 11), 11);
	assert_int_equal(write(sv[1], "6,11,2,-;b\n", 11), 11);
	assert_int_equal(write(sv[1], "not a record", 12), 12);
	assert_int_equal(write(sv[1], "6,15,3,-;c\n", 11), 11);
	close(sv[1]);
	assert_int_equal(kmsg_read(&r, &rec), 0);
	assert_int_equal(rec.seq, 10);
	assert_int_equal(kmsg_read(&r, &rec), 0);
	assert_int_equal(rec.seq, 11);
	assert_int_equal(kmsg_read(&r, &rec), 0);
	assert_int_equal(rec.seq, 15);
	assert_int_equal(r.lost, 3);
	assert_int_equal(kmsg_read(&r, &rec), -EAGAIN);
	kmsg_close(&r);
}

/* A crashed boot's log as pstore keeps it: the panic is classified as the live reader would. */
static void test_classify_pstore(void **state)
{
	static const char log[] = "--- pstore dmesg-ramoops-0\n"
				  "Panic#1 Part1\n"
				  "<6>[   29.200000] run fstests selftest/011 at 2026-12-03 13:15:50\n"
				  "<6>[   29.267100] sysrq: Trigger a crash\n"
				  "<0>[   29.268674] Kernel panic - not syncing: sysrq triggered crash\n"
				  "<4>[   29.269312]  sysrq_handle_crash+0x16/0x20\n"
				  "[   29.3] WARNING: CPU: 0 PID: 1 at fs/xfs/xfs_buf.c:1 xfs_buf_rele+0x1\n"
				  "Kernel panic - not syncing: the same, unstamped";
	unsigned findings[KMSG_FINDING_MAX] = { 0 };
	char first[256] = "";

	(void)state;
	kmsg_classify_log(log, strlen(log), findings, first, sizeof(first));
	assert_int_equal(findings[KMSG_PANIC], 2);
	assert_int_equal(findings[KMSG_WARNING], 1);
	assert_string_equal(first, "Kernel panic - not syncing: sysrq triggered crash");
	/* a report already found stays the first */
	kmsg_classify_log("<4>[ 1.0] WARNING: CPU: 1 PID: 2 at x", 37, findings, first, sizeof(first));
	assert_string_equal(first, "Kernel panic - not syncing: sysrq triggered crash");
	assert_int_equal(findings[KMSG_WARNING], 2);
	/* nothing to find, and no overrun on a cut line */
	memset(findings, 0, sizeof(findings));
	first[0] = '\0';
	kmsg_classify_log("<6", 2, findings, first, sizeof(first));
	kmsg_classify_log("[   1.0", 7, findings, first, sizeof(first));
	assert_string_equal(first, "");
}

/* Devices named by the filesystems' and the block layer's real message forms, and near misses. */
static void test_device(void **state)
{
	static const struct {
		const char *msg, *dev;
	} cases[] = {
		{ "XFS (vdc): Mounting V5 Filesystem 1b2c", "vdc" },
		{ "XFS (loop3): Ending clean mount", "loop3" },
		{ "EXT4-fs (loop12): mounted filesystem with ordered data mode", "loop12" },
		{ "EXT4-fs error (device loop3): ext4_lookup:1855: inode #2: comm ls", "loop3" },
		{ "EXT4-fs warning (device vdb): ext4_multi_mount_protect:328: MMP interval", "vdb" },
		{ "BTRFS info (device loop0): using crc32c (crc32c-generic) checksum algorithm", "loop0" },
		{ "BTRFS error (device dm-2 state EA): Transaction aborted (error -28)", "dm-2" },
		{ "F2FS-fs (loop1) : Mounted with checkpoint version = 3", "loop1" },
		{ "I/O error, dev loop3, sector 8 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio class 2", "loop3" },
		{ "blk_update_request: I/O error, dev vdc, sector 2048", "vdc" },
		{ "Buffer I/O error on dev dm-2, logical block 0, async page read", "dm-2" },
		/* no device: shared by every test in flight */
		{ "WARNING: CPU: 1 PID: 4242 at fs/xfs/xfs_message.c:104 assfail+0x2c/0x40", NULL },
		{ "XFS: Assertion failed: 0, file: fs/xfs/xfs_bmap.c, line: 12", NULL },
		{ "INFO: task xfs_io:1234 blocked for more than 120 seconds.", NULL },
		{ "Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS", NULL },
		{ "SGI XFS with ACLs, security attributes, realtime, scrub, debug enabled", NULL },
		{ "XFS (", NULL },
		{ "XFS (Loop3): upper case is no device name", NULL },
		{ "run fstests generic/001 at 2026-12-07 10:00:00", NULL },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int r = kmsg_device(cases[i].msg, strlen(cases[i].msg), buf, sizeof(buf));

		if (cases[i].dev) {
			assert_int_equal(r, 0);
			assert_string_equal(buf, cases[i].dev);
		} else {
			assert_int_equal(r, -ENOENT);
		}
	}
	/* not past the length given, which has no NUL */
	assert_int_equal(kmsg_device("XFS (vdc): x", 9, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "vdc");
	assert_int_equal(kmsg_device("XFS (vdc): x", 8, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(kmsg_device("XFS (loop12345): x", 18, buf, 4), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),		cmocka_unit_test(test_real_capture),
		cmocka_unit_test(test_kernel_formats),	cmocka_unit_test(test_marker),
		cmocka_unit_test(test_last_marker),	cmocka_unit_test(test_lost_records),
		cmocka_unit_test(test_classify_pstore), cmocka_unit_test(test_device),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
