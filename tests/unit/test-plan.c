// SPDX-License-Identifier: MIT
/* plan: defaults, plan files, command line words, errors with source/line/key, and order. */
#include "unit.h"
#include "boot/config.h"
#include "model/order.h"
#include "model/plan.h"
#include "util/strv.h"

#include <errno.h>

static void test_defaults(void **state)
{
	struct plan p;

	(void)state;
	assert_int_equal(plan_init(&p), 0);
	assert_int_equal(p.iterations, 1);
	assert_int_equal(p.order, ORDER_FIXED);
	assert_false(p.seed_set);
	assert_int_equal(strv_length(p.groups), 1);
	assert_string_equal(p.groups[0], "auto");
	assert_int_equal(strv_length(p.configs), 0);
	/* timeout = auto by default (model/timeout.h) */
	assert_true(p.timeout_auto);
	assert_int_equal(plan_timeout_for(&p, "generic/001"), -1);
	plan_release(&p);
}

static const char *good_file = "# a plan written by the host\n"
			       "configs = xfs/4k, ext4/1k\n"
			       "groups = quick\n"
			       "exclude_groups = dangerous,stress\n"
			       "tests = generic/001 xfs/0?? btrfs/013-foo\n"
			       "exclude = generic/475   # flaky here\n"
			       "expunge_files = expunge/all.txt\n"
			       "\n"
			       "order = random\n"
			       "seed = 18446744073709551615\n"
			       "iterations = 3\n"
			       "rerun_failures = 2\n"
			       "timeout = 15m\n"
			       "timeout.generic/475 = 2h\n"
			       "mkfs_options = -m reflink=1\n"
			       "mount_options = -o noatime\n"
			       "soak.duration = 2d\n"
			       "soak.deadline = 2026-12-10T00:00:00Z\n"
			       "soak.stop_file = STOP\n";

static void test_file(void **state)
{
	struct plan p;
	char err[256] = "";
	json_t *j;

	(void)state;
	assert_int_equal(plan_init(&p), 0);
	assert_int_equal(plan_apply_file(&p, "results:/plan.conf", good_file, err, sizeof(err)), 0);
	assert_int_equal(strv_length(p.configs), 2);
	assert_string_equal(p.configs[1], "ext4/1k");
	assert_string_equal(p.groups[0], "quick");
	assert_int_equal(strv_length(p.exclude_groups), 2);
	assert_int_equal(strv_length(p.tests), 3);
	assert_string_equal(p.tests[1], "xfs/0??");
	assert_string_equal(p.exclude[0], "generic/475");
	assert_int_equal(p.order, ORDER_RANDOM);
	assert_true(p.seed_set);
	assert_true(p.seed == UINT64_MAX);
	assert_int_equal(p.iterations, 3);
	assert_int_equal(p.rerun_failures, 2);
	assert_int_equal(p.timeout, 900);
	assert_int_equal(plan_timeout_for(&p, "generic/475"), 7200);
	assert_int_equal(plan_timeout_for(&p, "generic/476"), 900);
	assert_false(p.timeout_auto);
	assert_string_equal(p.mkfs_options, "-m reflink=1");
	assert_int_equal(p.soak_duration, 2 * 86400);
	assert_int_equal(p.soak_deadline, 1796860800);
	assert_string_equal(p.soak_stop_file, "STOP");
	j = plan_to_json(&p);
	assert_string_equal(json_string_value(json_object_get(j, "seed")), "18446744073709551615");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "origins"), "timeout")),
			    "results:/plan.conf:13");
	json_decref(j);
	plan_release(&p);
}

static void expect_error(const char *text, const char *needle)
{
	struct plan p;
	char err[256] = "";

	assert_int_equal(plan_init(&p), 0);
	assert_int_equal(plan_apply_file(&p, "plan.conf", text, err, sizeof(err)), -EINVAL);
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
	/* nothing from the bad line took effect */
	assert_int_equal(p.iterations, 1);
	plan_release(&p);
}

static void test_timeout_words(void **state)
{
	struct plan p;
	char err[256];
	json_t *j;

	(void)state;
	assert_int_equal(plan_init(&p), 0);
	assert_int_equal(plan_set(&p, "t", 1, "timeout", "none", err, sizeof(err)), 0);
	assert_false(p.timeout_auto);
	assert_int_equal(plan_timeout_for(&p, "generic/001"), 0);
	assert_int_equal(plan_set(&p, "t", 2, "timeout", "15m", err, sizeof(err)), 0);
	assert_int_equal(plan_timeout_for(&p, "generic/001"), 900);
	assert_int_equal(plan_set(&p, "t", 3, "timeout", "auto", err, sizeof(err)), 0);
	assert_true(p.timeout_auto);
	assert_int_equal(plan_timeout_for(&p, "generic/001"), -1);
	/* a test's own limit stands over auto */
	assert_int_equal(plan_set(&p, "t", 4, "timeout.generic/475", "3h", err, sizeof(err)), 0);
	assert_int_equal(plan_timeout_for(&p, "generic/475"), 10800);
	j = plan_to_json(&p);
	assert_true(json_is_true(json_object_get(j, "timeout_auto")));
	json_decref(j);
	plan_release(&p);
}

/* per-config weights: iterations.<config> */
static void test_config_iterations(void **state)
{
	struct plan p;
	char err[256];

	(void)state;
	assert_int_equal(plan_init(&p), 0);
	assert_int_equal(plan_set(&p, "t", 1, "iterations", "2", err, sizeof(err)), 0);
	assert_int_equal(plan_set(&p, "t", 2, "iterations.xfs/4k", "5", err, sizeof(err)), 0);
	assert_int_equal(plan_iterations_for(&p, "xfs/4k"), 5);
	assert_int_equal(plan_iterations_for(&p, "ext4/4k"), 2);
	assert_int_equal(plan_iterations_max(&p), 5);
	assert_int_equal(plan_set(&p, "t", 3, "iterations.xfs", "5", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t:3: key 'iterations.xfs': 'xfs' is not a config name nor a config's test (want "
				 "iterations.fs/name or iterations.fs/name/dir/NNN)");
	/* one test on one config: at most its config's */
	assert_int_equal(plan_set(&p, "t", 5, "iterations.xfs/4k/generic/001", "3", err, sizeof(err)), 0);
	assert_int_equal(plan_set(&p, "t", 6, "iterations.ext4/4k/generic/001", "9", err, sizeof(err)), 0);
	assert_int_equal(plan_iterations_of(&p, "xfs/4k", "generic/001"), 3);
	assert_int_equal(plan_iterations_of(&p, "xfs/4k", "generic/002"), 5);
	assert_int_equal(plan_iterations_of(&p, "ext4/4k", "generic/001"), 2);
	assert_int_equal(plan_iterations_max(&p), 5);
	assert_int_equal(plan_set(&p, "t", 7, "iterations.xfs/4k/generic", "3", err, sizeof(err)), -EINVAL);
	assert_int_equal(plan_set(&p, "t", 8, "iterations.xfs/4k/generic/001/x", "3", err, sizeof(err)), -EINVAL);
	assert_int_equal(plan_set(&p, "t", 4, "iterations.ext4/1k", "0", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t:4: key 'iterations.ext4/1k': '0' is not a number from 1 to 1000000");
	assert_true(plan_key_is_known("iterations.btrfs/default"));
	plan_release(&p);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("iterations = 2x\n", "plan.conf:1: key 'iterations': '2x' is not a number from 1 to 1000000");
	expect_error("\n\niterations = 0\n", "plan.conf:3: key 'iterations'");
	expect_error("colour = blue\n", "plan.conf:1: key 'colour': unknown key");
	expect_error("just words\n", "plan.conf:1: 'just words' is not 'key = value'");
	expect_error("= 3\n", "plan.conf:1: missing key");
	expect_error("tests = generic/001 001\n", "key 'tests': bad test name (want dir/NNN) '001'");
	expect_error("configs = xfs\n", "key 'configs': bad config name (want fs/name, fs/all or all) 'xfs'");
	expect_error("order = shuffled\n", "key 'order': 'shuffled' is not fixed, random or random=<seed>");
	expect_error("seed = -1\n", "key 'seed'");
	expect_error("timeout = 5 minutes\n",
		     "key 'timeout': '5 minutes' is not a duration (90, 90s, 15m, 2h, 1d), auto or none");
	expect_error("timeout.generic/* = 5m\n", "key 'timeout.generic/*'");
	expect_error("soak.deadline = tomorrow\n", "key 'soak.deadline'");
	expect_error("soak.stop_file = /etc/passwd\n", "must be a relative path");
	expect_error("expunge_files = ../../etc/shadow\n", "bad file name");
	/* %u took 4294967297 for 1 */
	expect_error("shard = 4294967297/2\n", "key 'shard': '4294967297/2' is not K/N");
	expect_error("shard = 1/4294967297\n", "key 'shard'");
	expect_error("shard = -1/2\n", "key 'shard'");
	expect_error("shard = 1/2x\n", "key 'shard'");
	expect_error("shard = /2\n", "key 'shard'");
	expect_error("shard = 3/2\n", "key 'shard'");
}

/* fstests' own knobs: checked by name and kind, kept for each config's section, recorded in the plan */
static void test_fstests_vars(void **state)
{
	struct plan p;
	char err[256] = "";
	json_t *j;

	(void)state;
	assert_int_equal(plan_init(&p), 0);
	assert_int_equal(plan_apply_file(&p, "plan.conf",
					 "fstests.TIME_FACTOR = 2\n"
					 "fstests.SOAK_DURATION = 1.5h\n"
					 "fstests.FSSTRESS_AVOID = -f setattr=0 -p 4\n"
					 "fstests.USE_KMEMLEAK = yes\n"
					 "fstests.TIME_FACTOR = 3\n",
					 err, sizeof(err)),
			 0);
	j = plan_to_json(&p);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "fstests"), "TIME_FACTOR")), "3");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "fstests"), "SOAK_DURATION")), "1.5h");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "origins"), "fstests.TIME_FACTOR")),
			    "plan.conf:5");
	assert_true(plan_key_is_known("fstests.LOAD_FACTOR"));
	json_decref(j);
	plan_release(&p);
	expect_error("fstests.TIME_FACTOR = 0\n", "key 'fstests.TIME_FACTOR': '0' is not a whole number above 0");
	expect_error("fstests.SOAK_DURATION = 2 hours\n", "is not a duration like 90, 1.5h, 2d");
	expect_error("fstests.USE_KMEMLEAK = 1\n", "'1' is not yes or no");
	expect_error("fstests.FSX_AVOID = -N $(reboot)\n", "is not options without quotes");
	expect_error("fstests.TEST_DEV = /dev/sda\n", "TEST_DEV is set by fsagent from the config and its devices");
	expect_error("fstests.SCRATCH_DEV_POOL = /dev/sdb\n", "is set by fsagent");
	expect_error("fstests.TIME_FACTR = 2\n", "'TIME_FACTR' is not an fstests variable fsagent knows");
}

static void test_command_line_over_file(void **state)
{
	struct boot_config c;
	struct plan p;
	char err[256] = "";

	(void)state;
	assert_int_equal(config_parse_cmdline("quiet fsagent.seed=7 fsagent.timeout.generic/475=10m "
					      "fsagent.order=random fsagent.configs=xfs/1k",
					      &c, err, sizeof(err)),
			 0);
	assert_int_equal(c.n_plan, 4);
	assert_int_equal(plan_init(&p), 0);
	assert_int_equal(plan_apply_file(&p, "results:/plan.conf", good_file, err, sizeof(err)), 0);
	for (size_t i = 0; i < c.n_plan; i++)
		assert_int_equal(
			plan_set(&p, "kernel command line", 0, c.plan_keys[i], c.plan_values[i], err, sizeof(err)), 0);
	assert_true(p.seed == 7);
	assert_int_equal(plan_timeout_for(&p, "generic/475"), 600);
	assert_int_equal(strv_length(p.configs), 1);
	assert_string_equal(json_string_value(json_object_get(p.origins, "seed")), "kernel command line");
	/* a bad value from the command line names its source */
	assert_int_equal(plan_set(&p, "kernel command line", 0, "iterations", "many", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "kernel command line: key 'iterations': 'many' is not a number from 1 to 1000000");
	plan_release(&p);
	boot_config_release(&c);
	/* still unknown keys are refused at boot */
	assert_int_equal(config_parse_cmdline("fsagent.iteration=3", &c, err, sizeof(err)), -EINVAL);
}

static void test_durations(void **state)
{
	unsigned long s;

	(void)state;
	assert_int_equal(plan_parse_duration("90", &s), 0);
	assert_int_equal(s, 90);
	assert_int_equal(plan_parse_duration("15m", &s), 0);
	assert_int_equal(s, 900);
	assert_int_equal(plan_parse_duration("1d", &s), 0);
	assert_int_equal(s, 86400);
	assert_int_equal(plan_parse_duration("m", &s), -EINVAL);
	assert_int_equal(plan_parse_duration("1w", &s), -EINVAL);
	assert_int_equal(plan_parse_duration("1hh", &s), -EINVAL);
	assert_int_equal(plan_parse_duration("99999999999999999999", &s), -EINVAL);
}

static char **list(size_t n)
{
	char **v = NULL, name[32];

	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "generic/%03zu", i);
		assert_int_equal(strv_push(&v, name), 0);
	}
	return v;
}

static void test_order(void **state)
{
	char **a = list(200), **b = list(200), **c = list(200);
	size_t moved = 0;

	(void)state;
	order_shuffle(a, 200, 42);
	order_shuffle(b, 200, 42);
	order_shuffle(c, 200, 43);
	for (size_t i = 0; i < 200; i++) {
		assert_string_equal(a[i], b[i]); /* same seed, same order */
		moved += strcmp(a[i], c[i]) != 0;
	}
	assert_true(moved > 150); /* another seed, another order */
	/* a permutation: nothing lost or doubled */
	for (size_t i = 0; i < 200; i++) {
		char name[32];

		snprintf(name, sizeof(name), "generic/%03zu", i);
		assert_true(strv_contains(a, name));
	}
	/* known answer: the order must not change across builds and machines */
	assert_string_equal(a[0], "generic/111");
	assert_string_equal(a[199], "generic/142");
	/* derived seeds differ per iteration and per config, and are stable */
	assert_true(order_derive_seed(42, 0, "xfs/4k") != order_derive_seed(42, 1, "xfs/4k"));
	assert_true(order_derive_seed(42, 0, "xfs/4k") != order_derive_seed(42, 0, "xfs/1k"));
	assert_true(order_derive_seed(42, 3, "xfs/4k") == order_derive_seed(42, 3, "xfs/4k"));
	strv_free(a);
	strv_free(b);
	strv_free(c);
}

static void test_order_uniform(void **state)
{
	/* each of 4 items lands first about 1/4 of the time over many seeds */
	unsigned first[4] = { 0 };

	(void)state;
	for (uint64_t s = 0; s < 8000; s++) {
		char **v = list(4);

		order_shuffle(v, 4, s);
		first[v[0][10] - '0']++;
		strv_free(v);
	}
	for (int i = 0; i < 4; i++)
		assert_true(first[i] > 1800 && first[i] < 2200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),      cmocka_unit_test(test_file),
		cmocka_unit_test(test_timeout_words), cmocka_unit_test(test_config_iterations),
		cmocka_unit_test(test_errors),	      cmocka_unit_test(test_command_line_over_file),
		cmocka_unit_test(test_durations),     cmocka_unit_test(test_order),
		cmocka_unit_test(test_order_uniform), cmocka_unit_test(test_fstests_vars),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
