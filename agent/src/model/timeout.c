// SPDX-License-Identifier: MIT
/*
 * The automatic per-test time limit (see timeout.h).
 */
#include "model/timeout.h"
#include "util/macro.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double timeout_scale(char *const *caps)
{
	static const struct {
		const char *cap;
		double factor;
	} slow[] = {
		{ "lockdep", 3 }, { "kasan", 3 }, { "kcsan", 3 }, { "kmemleak", 2 }, { "ubsan", 1.5 },
	};
	double scale = 1;

	for (size_t i = 0; caps && caps[i]; i++)
		for (size_t k = 0; k < ARRAY_SIZE(slow); k++)
			if (streq(caps[i], slow[k].cap))
				scale *= slow[k].factor;
	return scale < TIMEOUT_SCALE_MAX ? scale : TIMEOUT_SCALE_MAX;
}

double timeout_parse_fstests_duration(const char *s)
{
	char *end;
	double v;

	if (!s || !*s || !strchr("0123456789", *s))
		return -1;
	v = strtod(s, &end);
	if (end == s || !isfinite(v))
		return -1;
	if (!*end)
		return v;
	if (end[1])
		return -1;
	switch (*end) {
	case 'm': return v * 60;
	case 'h': return v * 3600;
	case 'd': return v * 86400;
	case 'w': return v * 604800;
	default: return -1;
	}
}

unsigned timeout_auto(double history, double scale, const json_t *fstests)
{
	double t = history >= 0 && isfinite(history) ? fmax(TIMEOUT_FLOOR, TIMEOUT_MULTIPLE * history) : TIMEOUT_UNSEEN;
	double factor = timeout_parse_fstests_duration(json_string_value(json_object_get(fstests, "TIME_FACTOR")));
	double soak = timeout_parse_fstests_duration(json_string_value(json_object_get(fstests, "SOAK_DURATION")));

	t *= scale > 1 && isfinite(scale) ? scale : 1;
	if (factor > 1)
		t *= factor;
	if (soak > 0)
		t += soak;
	/* a week at most: a bound, never a wrap */
	return t < 604800 ? (unsigned)ceil(t) : 604800;
}
