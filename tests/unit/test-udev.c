// SPDX-License-Identifier: MIT
/* udev: the monitor message parser and the replay of block devices' events. */
#include "unit.h"
#include "boot/udev.h"
#include "util/sysroot.h"

#include <arpa/inet.h>
#include <errno.h>

/*
 * A message as udevd broadcasts it: systemd's monitor_netlink_header (an
 * 8-byte prefix, then magic in network order, header size, properties'
 * offset and length, four filter hashes), then KEY=VALUE\0...
 */
static size_t make_message(char *buf, size_t size, const char *prefix, unsigned magic, const char *props,
			   size_t props_len)
{
	unsigned f[8] = { htonl(magic), 40, 40, (unsigned)props_len, 0, 0, 0, 0 };

	memset(buf, 0, size);
	memcpy(buf, prefix, strnlen(prefix, 8));
	memcpy(buf + 8, f, sizeof(f));
	memcpy(buf + 40, props, props_len);
	return 40 + props_len;
}

static void test_event_uuid(void **state)
{
	static const char props[] = "ACTION=add\0DEVPATH=/devices/virtual/block/vdb\0SUBSYSTEM=block\0"
				    "SYNTH_UUID=0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9\0SEQNUM=700";
	static const char no_uuid[] = "ACTION=change\0DEVPATH=/devices/virtual/block/vdb\0SEQNUM=701";
	char buf[512];
	size_t n;

	(void)state;
	n = make_message(buf, sizeof(buf), "libudev", 0xfeedcafe, props, sizeof(props));
	assert_string_equal(udev_event_uuid(buf, n), "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9");
	/* no SYNTH_UUID: an event nobody replayed */
	n = make_message(buf, sizeof(buf), "libudev", 0xfeedcafe, no_uuid, sizeof(no_uuid));
	assert_null(udev_event_uuid(buf, n));
	/* the kernel's own format, a wrong magic, a short read */
	n = make_message(buf, sizeof(buf), "add@/dev", 0xfeedcafe, props, sizeof(props));
	assert_null(udev_event_uuid(buf, n));
	n = make_message(buf, sizeof(buf), "libudev", 0xcafefeed, props, sizeof(props));
	assert_null(udev_event_uuid(buf, n));
	assert_null(udev_event_uuid(buf, 20));
	/* properties running past the message, or an unterminated last one */
	n = make_message(buf, sizeof(buf), "libudev", 0xfeedcafe, props, sizeof(props));
	assert_null(udev_event_uuid(buf, n - 10));
	n = make_message(buf, sizeof(buf), "libudev", 0xfeedcafe, props, sizeof(props) - 1);
	assert_string_equal(udev_event_uuid(buf, n), "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9");
	n = make_message(buf, sizeof(buf), "libudev", 0xfeedcafe, "SYNTH_UUID=abc", 14);
	assert_null(udev_event_uuid(buf, n));
}

static void read_file(const char *rel, char *buf, size_t size)
{
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s%s", unit_dir, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static bool is_uuid4(const char *s)
{
	if (strlen(s) != 36 || s[14] != '4' || !strchr("89ab", s[19]))
		return false;
	for (int i = 0; i < 36; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-' : !strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

static void test_trigger_block(void **state)
{
	char cmd[256], text[128], uuids[4][37];
	size_t n = 99;

	(void)state;
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/class/block/vda %s/sys/class/block/vda1 %s/sys/class/block/vdb",
		 unit_dir, unit_dir, unit_dir);
	assert_int_equal(system(cmd), 0);
	unit_write_file("sys/class/block/vda/uevent", "w", "");
	unit_write_file("sys/class/block/vda1/uevent", "w", "");
	/* vdb went away meanwhile: no uevent file, skipped */
	assert_int_equal(sysroot_set(unit_dir), 0);
	assert_int_equal(udev_trigger_block(uuids, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_true(is_uuid4(uuids[0]));
	assert_true(is_uuid4(uuids[1]));
	assert_string_not_equal(uuids[0], uuids[1]);
	/* each device got "add <its uuid>" */
	read_file("/sys/class/block/vda/uevent", text, sizeof(text));
	assert_true(strncmp(text, "add ", 4) == 0);
	assert_true(streq(text + 4, uuids[0]) || streq(text + 4, uuids[1]));
	read_file("/sys/class/block/vda1/uevent", text, sizeof(text));
	assert_true(streq(text + 4, uuids[0]) || streq(text + 4, uuids[1]));
	/* no more than max */
	assert_int_equal(udev_trigger_block(uuids, 1, &n), 0);
	assert_int_equal(n, 1);
	/* no sysfs at all */
	assert_int_equal(sysroot_set("/nonexistent"), 0);
	assert_int_equal(udev_trigger_block(uuids, 4, &n), -ENOENT);
	assert_int_equal(n, 0);
	sysroot_set(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_uuid),
		cmocka_unit_test_setup_teardown(test_trigger_block, unit_mkdtemp, unit_rmdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
