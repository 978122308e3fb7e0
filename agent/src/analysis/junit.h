/* SPDX-License-Identifier: MIT */
/*
 * JUnit XML in the shape fstests' check writes with -R xunit (common/report,
 * doc/xunit.xsd), so that what reads check's result.xml reads fsagent's:
 * <testsuite name="xfstests"> with check's attributes (tests, failures,
 * skipped, time, hostname, start_timestamp, timestamp, report_timestamp),
 * its <properties> sorted and without empty values, and per test a
 * <testcase classname="xfstests.SECTION">: nothing for a pass,
 * <skipped message=REASON/>, <failure message=REASON type="TestFail"/> with
 * the diff in <system-err> and the first kernel report in <kernel-log>.
 *
 * What check lacks, in its conventions or xfstests-bld's: a timeout, a crash
 * and an error are <error type="timeout|crash|error">, as xfstests-bld's
 * record_test_error writes them; reruns are check -L's, one <testcase> per
 * run with the same name (the bundle keeps a rerun's counts, not each run:
 * the first is the recorded failure, then the other failures, then the
 * passes, each rerun with time 0); the config is property TESTCFG
 * ("xfs/4k"), as xfstests-bld's update_properties_xunit sets it, the run
 * TESTRUNID, fstests' version FSTESTVER. Iterations a soak folded into its
 * aggregate have no records and are left out.
 *
 * sections: fstests_config_parse()'s {section: {VAR: value}} of the run, or
 * NULL; a config's variables become properties as check's would.
 */
#pragma once

#include <jansson.h>
#include <stdio.h>

/*
 * One document for CI systems: <testsuites> holding a check-shaped
 * <testsuite> per config and iteration, with the package and id
 * attributes xunit.xsd asks of an aggregated document.
 */
void junit_suites(json_t *bundle, json_t *sections, FILE *out);

/*
 * Config ci's runs, all iterations, as one <testsuite> document: the
 * results.xml xfstests-bld keeps per config (its merge_xunit appends each
 * check run's test cases), which its gen_results_summary and get_stats.py
 * read. Returns 0, or -ENOENT when the bundle has no config ci.
 */
int junit_config_suite(json_t *bundle, json_t *sections, size_t ci, FILE *out);
