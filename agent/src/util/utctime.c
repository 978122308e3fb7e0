// SPDX-License-Identifier: MIT
/*
 * UTC times (see utctime.h).
 */
#include "util/utctime.h"

#include <errno.h>
#include <time.h>

void utctime_format(long long t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		buf[0] = '\0';
}

int utctime_parse(const char *s, long long *ret)
{
	struct tm tm = { 0 };
	const char *end;

	if (!s)
		return -EINVAL;
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return -EINVAL;
	*ret = (long long)timegm(&tm);
	return 0;
}

double utctime_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
