// SPDX-License-Identifier: MIT
/*
 * The console shell (see shell.h).
 */
#include "boot/shell.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/proc.h"
#include "util/strv.h"
#include "util/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

void shell_console_tty(char *buf, size_t size)
{
	_cleanup_free_ char *active = NULL;
	const char *name;

	snprintf(buf, size, "/dev/console");
	if (sysroot_read_line(&active, "/sys/class/tty/console/active") < 0)
		return;
	/* the last console named is the one /dev/console writes to */
	name = strrchr(active, ' ');
	name = name ? name + 1 : active;
	if (*name && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == strlen(name))
		snprintf(buf, size, "/dev/%s", name);
}

int shell_run(const char *dir, const char *const *env, const char *banner)
{
	static const char *const bash[] = { "/bin/bash", "--noprofile", "--norc", "-i", NULL }, *const sh[] = {
		"/bin/sh", "-i", NULL
	};
	struct proc p = PROC_INIT;
	char **envv = NULL, tty[64];
	int fd, r;

	shell_console_tty(tty, sizeof(tty));
	fd = open(tty, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		log_err("open '%s' failed: %s", tty, strerror(-r));
		return r;
	}
	for (char **e = environ; *e; e++)
		strv_push(&envv, *e);
	for (const char *const *e = env; e && *e; e++)
		strv_push(&envv, *e);
	if (dprintf(fd, "\r\n%s\r\n", banner) < 0) {
		/* the shell's own prompt follows all the same */
	}
	p.argv = access(bash[0], X_OK) == 0 ? bash : sh;
	p.env = (const char *const *)envv;
	p.stdin_fd = p.stdout_fd = p.stderr_fd = fd;
	p.cwd = dir;
	p.ctty = strcmp(tty, "/dev/console") != 0;
	r = proc_start(&p);
	close(fd);
	if (r < 0) {
		log_err("start '%s' on %s failed: %s", p.argv[0], tty, strerror(-r));
		strv_free(envv);
		return r;
	}
	r = proc_wait(&p, -1);
	proc_release(&p);
	strv_free(envv);
	/* what the shell left behind and PID 1 adopted */
	proc_reap_exited();
	return r < 0 ? r : p.status;
}
