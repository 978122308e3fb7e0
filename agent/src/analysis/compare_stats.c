// SPDX-License-Identifier: MIT
/*
 * The statistics of a comparison (see compare.h): Fisher's exact test, one
 * sided, and how many runs a side would decide a difference.
 */
#include "analysis/compare.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

double compare_lchoose(uint64_t n, uint64_t k)
{
	return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0);
}

double compare_fisher_greater(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	/* X ~ hypergeometric: N = a+b+c+d, K = a+c failures, n = a+b drawn */
	uint64_t n = a + b, K = a + c, N = a + b + c + d, hi = n < K ? n : K;
	double p = 0, base = compare_lchoose(N, n);

	/* the terms rise to the mode and then fall: stop once they no longer count */
	double mode = ((double)n + 1) * ((double)K + 1) / ((double)N + 2);

	for (uint64_t x = a; x <= hi; x++) {
		double t;

		if (K - x > N - n)
			continue;
		t = exp(compare_lchoose(K, x) + compare_lchoose(N - K, n - x) - base);
		p += t;
		if ((double)x > mode && t < p * 1e-17)
			break;
	}
	return p > 1 ? 1 : p;
}

/* The runs that could pass or fail: a test not run (notrun, expunged) is neither. */
/* Whether n runs a side at rates pb and pk decide it below alpha. */
static bool decides(uint64_t n, double pb, double pk, double alpha)
{
	uint64_t fb = (uint64_t)llround(pb * (double)n), fk = (uint64_t)llround(pk * (double)n);

	/* below alpha by more than rounding: 1/C(6,3) is 0.05 exactly, not below 0.05 */
	double limit = alpha * (1 - 1e-9);

	return pk > pb ? compare_fisher_greater(fk, n - fk, fb, n - fb) < limit
		       : compare_fisher_greater(fb, n - fb, fk, n - fk) < limit;
}

uint64_t compare_runs_to_decide(uint64_t fb, uint64_t rb, uint64_t fk, uint64_t rk, double alpha)
{
	double pb, pk;
	uint64_t lo = 1, hi = 1;

	if (!rb || !rk)
		return 0;
	pb = (double)fb / (double)rb;
	pk = (double)fk / (double)rk;
	if (fabs(pb - pk) < 1e-12)
		return 0;
	/* double until it decides, then the fewest between: rounding makes it near enough monotonic */
	while (!decides(hi, pb, pk, alpha)) {
		lo = hi + 1;
		hi *= 2;
		if (hi > COMPARE_MAX_DECIDE)
			return decides(COMPARE_MAX_DECIDE, pb, pk, alpha) ? COMPARE_MAX_DECIDE : 0;
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (decides(mid, pb, pk, alpha))
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}
