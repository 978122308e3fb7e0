// SPDX-License-Identifier: MIT
/*
 * The automatic per-test time limit (see timeout.h).
 */
#include "model/timeout.h"
#include "model/fstests_vars.h"
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

unsigned timeout_auto(double history, double scale, const json_t *fstests)
{
	double t = history >= 0 && isfinite(history) ? fmax(TIMEOUT_FLOOR, TIMEOUT_MULTIPLE * history) : TIMEOUT_UNSEEN;
	/* TIME_FACTOR is a whole number above 0, SOAK_DURATION a duration: both checked by fstests_var_check */
	const char *tf = json_string_value(json_object_get(fstests, "TIME_FACTOR"));
	double factor = tf ? strtod(tf, NULL) : 1;
	double soak = fstests_duration_seconds(json_string_value(json_object_get(fstests, "SOAK_DURATION")));

	t *= scale > 1 && isfinite(scale) ? scale : 1;
	if (factor > 1)
		t *= factor;
	if (soak > 0)
		t += soak;
	/* a week at most: a bound, never a wrap */
	return t < 604800 ? (unsigned)ceil(t) : 604800;
}
