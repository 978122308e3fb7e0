// SPDX-License-Identifier: MIT
/*
 * Option values the commands share, each refusal naming the option.
 */
#include "cmd/cmd.h"
#include "util/fileio.h"
#include "util/log.h"

#include <errno.h>
#include <stdlib.h>

int parse_real(const char *opt, const char *s, double lo, double hi, double *ret)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || end == s || !(v > lo && v < hi)) {
		log_err("%s: '%s' is not a number between %g and %g", opt, s, lo, hi);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int parse_count(const char *opt, const char *s, unsigned long long lo, unsigned long long hi, unsigned long long *ret)
{
	if (fileio_parse_u64(s, ret) < 0 || *ret < lo || *ret > hi) {
		log_err("%s: '%s' is not a number from %llu to %llu", opt, s, lo, hi);
		return -EINVAL;
	}
	return 0;
}
