// SPDX-License-Identifier: MIT
/* handoff: what the initramfs stage passes the root's PID 1, encoded and decoded strictly. */
#include "unit.h"
#include "boot/handoff.h"

#include <errno.h>

static void test_roundtrip(void **state)
{
	struct handoff h = { .start_ms = 812, .switch_ms = 1460 }, d;
	char buf[300];

	(void)state;
	assert_int_equal(handoff_add_driver(&h, "virtio_pci"), 0);
	assert_int_equal(handoff_add_driver(&h, "virtio_blk"), 0);
	assert_int_equal(handoff_encode(&h, buf, sizeof(buf)), 0);
	/* the value the stages have always exchanged */
	assert_string_equal(buf, "812,1460,virtio_pci+virtio_blk+");
	memset(&d, 0x5a, sizeof(d));
	assert_int_equal(handoff_decode(buf, &d), 0);
	assert_int_equal(d.start_ms, 812);
	assert_int_equal(d.switch_ms, 1460);
	assert_string_equal(d.drivers, "virtio_pci+virtio_blk+");
}

static void test_no_drivers(void **state)
{
	struct handoff h = { .start_ms = 0, .switch_ms = 5 }, d;
	char buf[64];

	(void)state;
	assert_int_equal(handoff_encode(&h, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0,5,");
	assert_int_equal(handoff_decode(buf, &d), 0);
	assert_string_equal(d.drivers, "");
	/* too small a buffer is an error, never a cut value */
	assert_int_equal(handoff_encode(&h, buf, 3), -ENAMETOOLONG);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"812",
		"812,",
		"812,1460",
		"x,1460,",
		"812,y,",
		"-1,5,",
		"812,1460,virtio_pci",
		"812,1460,virtio pci+",
		"812,1460,+",
		"812,1460,../x+",
		"9,5,", /* switched before it started */
		"99999999999999999999999,5,",
		"812 ,1460,",
		"812,1460,a+\n",
	};
	struct handoff d = { .start_ms = 77 };

	(void)state;
	assert_int_equal(handoff_decode(NULL, &d), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (handoff_decode(bad[i], &d) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		/* refused as a whole: nothing half used */
		assert_int_equal(d.start_ms, 77);
	}
}

static void test_drivers_bounded(void **state)
{
	struct handoff h = { 0 };
	char long_list[HANDOFF_DRIVERS_MAX + 40];
	struct handoff d;
	int r = 0, n = 0;

	(void)state;
	assert_int_equal(handoff_add_driver(&h, "bad name"), -EINVAL);
	assert_int_equal(handoff_add_driver(&h, ""), -EINVAL);
	while ((r = handoff_add_driver(&h, "nd_pmem")) == 0)
		n++;
	assert_int_equal(r, -ENOSPC);
	assert_true(strlen(h.drivers) < sizeof(h.drivers));
	assert_int_equal(n, (HANDOFF_DRIVERS_MAX - 1) / 8);
	/* a list longer than the stage can hold is refused */
	memset(long_list, 0, sizeof(long_list));
	strcpy(long_list, "1,2,");
	while (strlen(long_list) + 3 < sizeof(long_list))
		strcat(long_list, "a+");
	assert_int_equal(handoff_decode(long_list, &d), -EINVAL);
}

static void test_udev_fd(void **state)
{
	int fd = -1;

	(void)state;
	assert_int_equal(handoff_decode_fd("7", &fd), 0);
	assert_int_equal(fd, 7);
	fd = -1;
	assert_int_equal(handoff_decode_fd(NULL, &fd), -EINVAL);
	assert_int_equal(handoff_decode_fd("", &fd), -EINVAL);
	assert_int_equal(handoff_decode_fd("2", &fd), -EINVAL); /* never stdin, stdout or stderr */
	assert_int_equal(handoff_decode_fd("-4", &fd), -EINVAL);
	assert_int_equal(handoff_decode_fd("7x", &fd), -EINVAL);
	assert_int_equal(handoff_decode_fd("4294967303", &fd), -EINVAL);
	assert_int_equal(fd, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip), cmocka_unit_test(test_no_drivers),
		cmocka_unit_test(test_malformed), cmocka_unit_test(test_drivers_bounded),
		cmocka_unit_test(test_udev_fd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
