// SPDX-License-Identifier: MIT
/*
 * Whether a patch fixes a failure, from run counts (see fix_proof.h).
 */
#include "analysis/fix_proof.h"
#include "analysis/compare.h"
#include "analysis/qualify.h"

#include <math.h>
#include <stdio.h>

void fix_proof_opts_default(struct fix_proof_opts *o)
{
	*o = (struct fix_proof_opts){ .min_rate = 0.2, .alpha = 0.1, .looks = 10, .max_runs = 200 };
}

const char *fix_verdict_name(enum fix_verdict v)
{
	return v == FIX_FIXES ? "fixes" : v == FIX_DOES_NOT_FIX ? "does not fix" : "undecided";
}

/* P(X <= k) for X ~ Binomial(n, p). */
static double binom_le(unsigned k, unsigned n, double p)
{
	double s = 0;

	if (p <= 0)
		return 1;
	if (p >= 1)
		return k >= n ? 1 : 0;
	for (unsigned x = 0; x <= k && x <= n; x++)
		s += exp(compare_lchoose(n, x) + x * log(p) + (n - x) * log1p(-p));
	return s > 1 ? 1 : s;
}

/* P(X >= k). */
static double binom_ge(unsigned k, unsigned n, double p)
{
	return k == 0 ? 1 : 1 - binom_le(k - 1, n, p);
}

/* The next runs of a side that has n: half as many again, at least 5 (10 to begin), within max. */
static unsigned grow(const struct fix_proof_opts *o, unsigned n)
{
	unsigned g = n == 0 ? 10 : n / 2 < 5 ? 5 : n / 2;

	return n >= o->max_runs ? 0 : g > o->max_runs - n ? o->max_runs - n : g;
}

void fix_proof_judge(const struct fix_proof_opts *o, unsigned fb, unsigned rb, unsigned fk, unsigned rk,
		     struct fix_proof *out)
{
	double a = o->alpha / (o->looks ? o->looks : 1), z = qualify_z(a), lo = 0, hi = 1;

	*out = (struct fix_proof){ .verdict = FIX_UNDECIDED };
	if (rb)
		qualify_wilson(fb, rb, z, &lo, &hi);
	if (fb && rk && binom_le(fk, rk, o->min_rate * lo) < a) {
		out->verdict = FIX_FIXES;
		return;
	}
	if (fb && rk && binom_ge(fk, rk, o->min_rate * hi) < a) {
		out->verdict = FIX_DOES_NOT_FIX;
		return;
	}
	if (!fb && rb >= o->max_runs) {
		snprintf(out->why, sizeof(out->why),
			 "it never failed in %u runs on the failing revision: nothing to fix", rb);
		return;
	}
	out->want_patched = grow(o, rk);
	out->want_head = fb >= 2 && rb >= rk ? 0 : grow(o, rb);
	if (!out->want_head && !out->want_patched)
		snprintf(out->why, sizeof(out->why), "not decided in %u runs a side (at most %u)", rk, o->max_runs);
}
