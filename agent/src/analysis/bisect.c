// SPDX-License-Identifier: MIT
/*
 * The posterior over a line's culprit and the choice of the next probe (see
 * bisect.h).
 */
#include "analysis/bisect.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#define PRIOR_A 0.5	/* Jeffreys' Beta(1/2, 1/2) for both rates, beside... */
#define SPIKE 0.25	/* ... a rate of exactly 0 and one of exactly 1, a quarter each */
#define ENDS_DIFFER 0.9 /* P(p_good < p_bad) from the ends before a search */

struct commit {
	unsigned runs, fails;
	bool skip; /* probed no more: cannot be built or tested, or its last probe gave no result */
};

/*
 * Whether c stands in the culprit's groups as untestable: skipped with no
 * failure. A commit skipped after it failed is known bad (the culprit is it
 * or before it): it is probed no more, but the verdict names it alone.
 */
static bool untestable(const struct commit *c)
{
	return c->skip && !c->fails;
}

struct bisect {
	struct bisect_opts o;
	size_t n;
	struct commit *c;
	double *post;	   /* [0]: nothing changed; [i]: commit i the first bad one */
	uint64_t *pf, *pn; /* prefix sums: fails and runs of commits < j */
	double p_good, p_bad, p_null;
};

void bisect_opts_default(struct bisect_opts *o)
{
	*o = (struct bisect_opts){
		.confidence = 0.99,
		.null_prior = 0.1,
		.batch_power = 0.8,
		.build_cost = 2,
		.end_fails = 2,
		.confirm_fails = 2,
		.max_batch = 64,
		.max_end_runs = 200,
	};
}

int bisect_new(size_t n, const struct bisect_opts *o, struct bisect **ret)
{
	struct bisect *b;

	if (n < 2 || !(o->confidence > 0.5 && o->confidence < 1) || !(o->null_prior >= 0 && o->null_prior < 1) ||
	    !(o->batch_power > 0 && o->batch_power < 1) || !o->end_fails || !o->max_batch || !o->max_end_runs)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->o = *o;
	b->n = n;
	b->c = calloc(n, sizeof(*b->c));
	b->post = calloc(n, sizeof(*b->post));
	b->pf = calloc(n + 1, sizeof(*b->pf));
	b->pn = calloc(n + 1, sizeof(*b->pn));
	if (!b->c || !b->post || !b->pf || !b->pn) {
		bisect_free(b);
		return -ENOMEM;
	}
	*ret = b;
	return 0;
}

void bisect_free(struct bisect *b)
{
	if (!b)
		return;
	free(b->c);
	free(b->post);
	free(b->pf);
	free(b->pn);
	free(b);
}

size_t bisect_size(const struct bisect *b)
{
	return b->n;
}

void bisect_record(struct bisect *b, size_t commit, unsigned runs, unsigned fails)
{
	if (commit >= b->n || fails > runs)
		return;
	b->c[commit].runs += runs;
	b->c[commit].fails += fails;
}

void bisect_skip(struct bisect *b, size_t commit)
{
	if (commit < b->n)
		b->c[commit].skip = true;
}

unsigned bisect_runs(const struct bisect *b, size_t commit)
{
	return commit < b->n ? b->c[commit].runs : 0;
}

unsigned bisect_fails(const struct bisect *b, size_t commit)
{
	return commit < b->n ? b->c[commit].fails : 0;
}

bool bisect_skipped(const struct bisect *b, size_t commit)
{
	return commit < b->n && b->c[commit].skip;
}

double bisect_posterior(const struct bisect *b, size_t i)
{
	return i < b->n ? b->post[i] : 0;
}

void bisect_rates(const struct bisect *b, double *good, double *bad)
{
	*good = b->p_good;
	*bad = b->p_bad;
}

/* log of the Beta-binomial evidence: fails of runs at one unknown rate, Beta(a, a) over it */

static double slab(uint64_t fails, uint64_t runs)
{
	double f = (double)fails, s = (double)(runs - fails);

	return lgamma(PRIOR_A + f) + lgamma(PRIOR_A + s) - lgamma(2 * PRIOR_A + f + s) -
	       (2 * lgamma(PRIOR_A) - lgamma(2 * PRIOR_A));
}

/*
 * log P(fails of runs) under the rates' prior: exactly 0 (a test that never
 * fails: a clean baseline) and exactly 1 (a deterministic regression) with
 * SPIKE each, since both are common, else Jeffreys' Beta(1/2, 1/2).
 */
static double evidence(uint64_t fails, uint64_t runs)
{
	double top = slab(fails, runs) + log1p(-2 * SPIKE), e = 0;

	if (fails == 0)
		e += SPIKE;
	if (fails == runs)
		e += SPIKE;
	/* log(e + exp(top)), without overflow */
	if (e <= 0)
		return top;
	return top > log(e) ? top + log1p(e / exp(top)) : log(e) + log1p(exp(top) / e);
}

static double rate(uint64_t fails, uint64_t runs)
{
	double mean = (PRIOR_A + (double)fails) / (2 * PRIOR_A + (double)runs), p0, p1, ps, z;

	/* the posterior weights of 0, 1 and the slab; the mean of their mixture */
	ps = exp(slab(fails, runs)) * (1 - 2 * SPIKE);
	p0 = fails == 0 ? SPIKE : 0;
	p1 = fails == runs ? SPIKE : 0;
	z = p0 + p1 + ps;
	return (p1 + ps * mean) / z;
}

/*
 * P(p_good < p_bad) from the ends' runs alone, each rate under its Beta
 * posterior: the one integral, on a grid.
 */
#define GRID 512
static double p_lower(uint64_t fg, uint64_t ng, uint64_t fb, uint64_t nb)
{
	double wg[GRID], wb[GRID], sg = 0, sb = 0, below = 0, p = 0;

	for (int i = 0; i < GRID; i++) {
		double x = (i + 0.5) / GRID;

		wg[i] = exp((PRIOR_A + (double)fg - 1) * log(x) + (PRIOR_A + (double)(ng - fg) - 1) * log1p(-x));
		wb[i] = exp((PRIOR_A + (double)fb - 1) * log(x) + (PRIOR_A + (double)(nb - fb) - 1) * log1p(-x));
		sg += wg[i];
		sb += wb[i];
	}
	for (int i = 0; i < GRID; i++) {
		p += wb[i] / sb * (below + 0.5 * wg[i] / sg);
		below += wg[i] / sg;
	}
	return p;
}

/* The posterior of every hypothesis, and the rates it implies. */
static void update(struct bisect *b)
{
	size_t n = b->n;
	uint64_t F, N;
	double top = -INFINITY, sum = 0, g = 0, k = 0, w = 0;

	for (size_t j = 0; j < n; j++) {
		b->pf[j + 1] = b->pf[j] + b->c[j].fails;
		b->pn[j + 1] = b->pn[j] + b->c[j].runs;
	}
	F = b->pf[n];
	N = b->pn[n];
	b->post[0] = b->o.null_prior > 0 ? log(b->o.null_prior) + evidence(F, N) : -INFINITY;
	for (size_t i = 1; i < n; i++)
		b->post[i] = log((1 - b->o.null_prior) / (double)(n - 1)) + evidence(b->pf[i], b->pn[i]) +
			     evidence(F - b->pf[i], N - b->pn[i]);
	for (size_t i = 0; i < n; i++)
		top = fmax(top, b->post[i]);
	for (size_t i = 0; i < n; i++) {
		b->post[i] = exp(b->post[i] - top);
		sum += b->post[i];
	}
	for (size_t i = 0; i < n; i++)
		b->post[i] /= sum;
	/* the rates, each hypothesis's estimate weighted by its posterior */
	for (size_t i = 1; i < n; i++) {
		g += b->post[i] * rate(b->pf[i], b->pn[i]);
		k += b->post[i] * rate(F - b->pf[i], N - b->pn[i]);
		w += b->post[i];
	}
	b->p_null = rate(F, N);
	b->p_good = w > 0 ? g / w : b->p_null;
	b->p_bad = w > 0 ? k / w : b->p_null;
}

/* Runs that fail at least once with probability power at rate p (1..max). */
static unsigned runs_for(double p, double power, unsigned max)
{
	double r;

	if (p >= 1)
		return 1;
	if (p <= 0)
		return max;
	r = ceil(log(1 - power) / log(1 - p) - 1e-9);
	return r < 1 ? 1 : r > max ? max : (unsigned)r;
}

/* Runs of a batch of k that stops at the first failure, at rate p, on average */
static double expected_runs(double p, unsigned k)
{
	return p <= 0 ? k : (1 - pow(1 - p, k)) / p;
}

static double entropy(double p)
{
	if (p <= 0 || p >= 1)
		return 0;
	return -(p * log2(p) + (1 - p) * log2(1 - p));
}

/* The group ending at testable commit j: j and the skipped commits right before it. */
static size_t group_first(const struct bisect *b, size_t j)
{
	while (j > 1 && untestable(&b->c[j - 1]))
		j--;
	return j;
}

/* The testable commit before first (0, the good end, at least). */
static size_t parent_of(const struct bisect *b, size_t first)
{
	size_t p = first - 1;

	while (p > 0 && untestable(&b->c[p]))
		p--;
	return p;
}

/* The most probable group: its testable commit, and its mass in *mass. */
static size_t best_group(const struct bisect *b, double *mass)
{
	size_t best = b->n - 1;
	double acc = 0;

	*mass = -1;
	for (size_t i = 1; i < b->n; i++) {
		acc += b->post[i];
		if (untestable(&b->c[i]) && i + 1 < b->n)
			continue;
		if (acc > *mass) {
			*mass = acc;
			best = i;
		}
		acc = 0;
	}
	return best;
}

static void probe(struct bisect_step *s, const char *phase, size_t commit, unsigned runs, bool stop)
{
	*s = (struct bisect_step){ .action = BISECT_PROBE,
				   .phase = phase,
				   .commit = commit,
				   .runs = runs,
				   .stop_at_fail = stop,
				   .confidence = s->confidence };
}

/*
 * The testable commit whose batch of k runs tells most of the culprit: the
 * mutual information of the batch's outcome (a failure or none) and the
 * hypotheses, each hypothesis predicting with its own rates. Splitting the
 * sums at the probe makes every commit O(1). Returns n when none tells.
 */
static size_t most_telling(const struct bisect *b, unsigned k)
{
	uint64_t F = b->pf[b->n], N = b->pn[b->n];
	double a0 = 1 - pow(1 - b->p_null, k), q0 = b->post[0], best = 1e-9;
	double mix_bad = 0, h_bad = 0, mix_good = 0, h_good = 0, below = 0; /* over i <= j, and i > j */
	size_t at = b->n;

	/* every hypothesis on the good side of commit 0 */
	for (size_t i = 1; i < b->n; i++) {
		double ag = 1 - pow(1 - rate(b->pf[i], b->pn[i]), k);

		mix_good += b->post[i] * ag;
		h_good += b->post[i] * entropy(ag);
	}
	for (size_t j = 0; j < b->n; j++) {
		double mi, qg;

		if (j > 0) {
			double ag = 1 - pow(1 - rate(b->pf[j], b->pn[j]), k),
			       ab = 1 - pow(1 - rate(F - b->pf[j], N - b->pn[j]), k);

			/* hypothesis j moves from "j is good" to "j is bad" */
			below += b->post[j];
			mix_good -= b->post[j] * ag;
			h_good -= b->post[j] * entropy(ag);
			mix_bad += b->post[j] * ab;
			h_bad += b->post[j] * entropy(ab);
		}
		if (b->c[j].skip)
			continue;
		mi = entropy(mix_bad + mix_good + q0 * a0) - h_bad - h_good - q0 * entropy(a0);
		/* per run it costs, a build counted as build_cost runs */
		qg = 1 - q0 - below;
		mi /= below * expected_runs(b->p_bad, k) + (qg > 0 ? qg : 0) * expected_runs(b->p_good, k) +
		      q0 * expected_runs(b->p_null, k) + (b->c[j].runs ? 0 : b->o.build_cost);
		if (mi > best) {
			best = mi;
			at = j;
		}
	}
	return at;
}

int bisect_next(struct bisect *b, struct bisect_step *s)
{
	const struct commit *bad = &b->c[b->n - 1], *good = &b->c[0];
	size_t c, first, parent;
	double mass;
	unsigned k;

	update(b);
	c = best_group(b, &mass);
	*s = (struct bisect_step){ .confidence = mass };
	/* without both ends there is nothing to compare */
	if (b->c[b->n - 1].skip || b->c[0].skip) {
		*s = (struct bisect_step){ .action = BISECT_STUCK,
					   .why = b->c[0].skip ? "the good end cannot be built or tested"
							       : "the bad end cannot be built or tested",
					   .confidence = mass };
		return 0;
	}
	/* the bad end: until it failed end_fails times */
	if (bad->fails < b->o.end_fails) {
		unsigned want;

		if (bad->runs >= b->o.max_end_runs) {
			*s = (struct bisect_step){ .action = BISECT_NO_DIFFERENCE,
						   .why = "the bad end does not fail often enough to tell" };
			return 0;
		}
		want = b->o.end_fails;
		if (bad->runs) {
			want = (unsigned)ceil((b->o.end_fails - bad->fails) / rate(bad->fails, bad->runs));
			want = want > bad->runs ? bad->runs : want; /* at most doubling */
		}
		want = want > b->o.max_end_runs - bad->runs ? b->o.max_end_runs - bad->runs : want;
		probe(s, "bad end", b->n - 1, want ? want : 1, false);
		return 0;
	}
	/* the good end: a batch that would have failed at the bad end's rate, then more while the ends look alike */
	k = runs_for(rate(bad->fails, bad->runs), b->o.batch_power, b->o.max_end_runs);
	if (good->runs < k) {
		probe(s, "good end", 0, k - good->runs, false);
		return 0;
	}
	{
		double lower = p_lower(good->fails, good->runs, bad->fails, bad->runs);

		if (lower < ENDS_DIFFER) {
			if (lower < 0.5 || good->runs >= b->o.max_end_runs) {
				*s = (struct bisect_step){ .action = BISECT_NO_DIFFERENCE,
							   .why = lower < 0.5
									  ? "the good end fails as often as the bad end"
									  : "the ends cannot be told apart",
							   .confidence = mass };
				return 0;
			}
			/* the end with fewer runs, doubled */
			if (bad->runs < good->runs && bad->runs < b->o.max_end_runs)
				probe(s, "bad end", b->n - 1, bad->runs, false);
			else
				probe(s, "good end", 0,
				      good->runs < b->o.max_end_runs - good->runs ? good->runs
										  : b->o.max_end_runs - good->runs,
				      false);
			return 0;
		}
	}
	if (b->post[0] >= b->o.confidence) {
		*s = (struct bisect_step){ .action = BISECT_NO_DIFFERENCE,
					   .why = "no change explains the runs best: the rates do not differ" };
		return 0;
	}
	k = runs_for(b->p_bad, b->o.batch_power, b->o.max_batch);
	if (mass >= b->o.confidence) {
		/* confirm: the culprit fails, its parent passes as often as the rates say */
		first = group_first(b, c);
		parent = parent_of(b, first);
		if (b->c[c].fails < b->o.confirm_fails) {
			unsigned want = (unsigned)ceil((b->o.confirm_fails - b->c[c].fails) / b->p_bad);

			probe(s, "confirm", c, want > b->o.max_batch ? b->o.max_batch : want ?: 1, false);
		} else {
			unsigned need = runs_for(b->p_bad, b->o.confidence, 100000);

			if (b->c[parent].runs >= need)
				goto found;
			probe(s, "confirm", parent,
			      need - b->c[parent].runs > b->o.max_batch ? b->o.max_batch : need - b->c[parent].runs,
			      false);
		}
		/* a commit that ran, then gave no result, is probed no more: the proof cannot be finished */
		if (b->c[s->commit].skip)
			*s = (struct bisect_step){ .action = BISECT_STUCK,
						   .why = "the runs that would confirm it are on a commit whose last "
							  "probe gave no result",
						   .confidence = mass };
		return 0;
	found:
		*s = (struct bisect_step){ .action = BISECT_FOUND, .commit = c, .first = first, .confidence = mass };
		return 0;
	}
	c = most_telling(b, k);
	if (c == b->n) {
		*s = (struct bisect_step){ .action = BISECT_STUCK,
					   .why = "every commit that could tell the culprit apart is skipped",
					   .confidence = mass };
		return 0;
	}
	probe(s, "search", c, k, true);
	return 0;
}
