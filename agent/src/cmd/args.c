// SPDX-License-Identifier: MIT
/*
 * Option values the commands share, each refusal naming the option.
 */
#include "cmd/cmd.h"
#include "analysis/qualify.h"
#include "util/fileio.h"
#include "util/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int parse_qualify_option(const char *name, const char *arg, struct qualify_opts *o, bool given[QUALIFY_KEPT])
{
	unsigned long long n;

	if (!strcmp(name, "alpha"))
		return parse_real("--alpha", arg, 0, 1, &o->alpha) < 0 ? -EINVAL : (given[0] = true, 0);
	if (!strcmp(name, "min-rate"))
		return parse_real("--min-rate", arg, 0, 1, &o->min_rate) < 0 ? -EINVAL : (given[1] = true, 0);
	if (!strcmp(name, "miss"))
		return parse_real("--miss", arg, 0, 1, &o->miss) < 0 ? -EINVAL : (given[2] = true, 0);
	if (!strcmp(name, "rounds")) {
		if (parse_count("--rounds", arg, 1, 100, &n) < 0)
			return -EINVAL;
		o->rounds = (unsigned)n;
		given[3] = true;
		return 0;
	}
	if (!strcmp(name, "baseline-runs")) {
		if (parse_count("--baseline-runs", arg, 1, 10000, &n) < 0)
			return -EINVAL;
		o->baseline_runs = (unsigned)n;
		given[4] = true;
		return 0;
	}
	if (!strcmp(name, "max-runs")) {
		if (parse_count("--max-runs", arg, 3, 100000, &n) < 0)
			return -EINVAL;
		o->max_runs = (unsigned)n;
		given[5] = true;
		return 0;
	}
	return -ENOENT;
}
