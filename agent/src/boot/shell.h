/* SPDX-License-Identifier: MIT */
/*
 * An interactive root shell on the console (fsagent.shell=1): what
 * `kvm-xfstests shell` gives, after the session has prepared a config as a
 * run would. The shell gets the console's own terminal (the last of
 * /sys/class/tty/console/active, e.g. ttyS0) as its controlling terminal,
 * so job control and Ctrl-C work; PID 1 waits for it and the boot then ends
 * as any other (fsagent.action, power off by default).
 */
#pragma once

#include <stddef.h>

/* "/dev/ttyS0": the console's terminal, else "/dev/console". */
void shell_console_tty(char *buf, size_t size);

/*
 * Print banner on the console, run bash (else sh) interactively in dir
 * with the environment plus env (NAME=VALUE, NULL-terminated) until it
 * exits. Returns its exit status or -errno.
 */
int shell_run(const char *dir, const char *const *env, const char *banner);
