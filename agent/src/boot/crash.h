/* SPDX-License-Identifier: MIT */
/*
 * A run resumed after the machine went down: the test that was in flight
 * is recorded as a crash, with the last lines the crashed kernel left in
 * pstore (read once, then cleared, so a later crash does not inherit them)
 * and what they report.
 */
#pragma once

#include "model/bundle.h"

/*
 * When the crashed kernel's log, whole since its boot, holds no check
 * marker, no test had started: nothing is recorded, why says so (with
 * the kernel's first report) and 1 is returned; else 0, and:
 * the running iteration's first test not yet recorded, as a crash (or the
 * one after it, when the crashed kernel's log names it as check's last
 * start: the first's result went down with the machine, and it runs
 * again); nothing between iterations. pstore is read under the sysroot's
 * /sys/fs/pstore. A parallel run's iteration says which tests were in
 * flight: one of them without a result is the crash's; several become the
 * iteration's "suspects", which the run takes first, each alone
 * (run/arrange.h), so that the one that crashes again is named.
 */
int crash_record(struct bundle *b, char *why, size_t ws);
