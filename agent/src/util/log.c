// SPDX-License-Identifier: MIT
/*
 * Line-at-a-time logger. Each message is formatted into one buffer and
 * written with a single write(2), so lines from the agent never interleave
 * with each other on the serial console.
 */
#include "log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

static int log_fd = STDERR_FILENO;
static enum log_level log_max = LOG_LVL_INFO;
static bool log_uptime; /* the guest's console: lines stamped like the kernel's; a host's terminal: not */

void log_setup(int fd, enum log_level max_level)
{
	log_fd = fd;
	log_max = max_level;
	log_uptime = true;
}

enum log_level log_get_max_level(void)
{
	return log_max;
}

void log_printable(char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			s[i] = '?';
	}
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	static const char *const prefix[LOG_LVL_MAX] = { "error: ", "warning: ", "", "debug: " };
	char line[1024];
	struct timespec ts;
	va_list ap;
	int n, e = errno;

	if (lvl > log_max)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = log_uptime ? snprintf(line, sizeof(line), "[%5ld.%03ld] fsagent: %s", (long)ts.tv_sec, ts.tv_nsec / 1000000,
				  prefix[lvl])
		       : snprintf(line, sizeof(line), "fsagent: %s", prefix[lvl]);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	/* one line, whatever the message carried (guest text among it) */
	for (int i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			line[i] = line[i] == '\t' ? ' ' : '?';
	line[n++] = '\n';
	if (write(log_fd, line, (size_t)n) < 0) {
		/* nowhere left to report it */
	}
	errno = e;
}
