// SPDX-License-Identifier: MIT
/*
 * Bisection strategies simulated on the same seeds (tests/bench/bisect):
 * a line of commits, the culprit drawn uniformly, every run a Bernoulli
 * draw at the rate of the side its commit is on. fsagent's engine
 * (analysis/bisect.h) against plain git bisect with one run a step
 * (xfstests-bld's KCS), the first failure of 5 tries (ktest's
 * BISECT_TRIES=5) and 10 runs a step, any failure bad (syzkaller's
 * count). The rates are never given to a strategy.
 *
 * usage: bisect-sim [--seeds N] [--commits N] [--check] [--scenario K] [--seed S] [--qualified N] [--forward]
 * --check exits 1 when fsagent misses a target of issue 21; --scenario and
 * --seed run one row or one seed. --qualified N: fsagent's ends start with N
 * runs each from a qualification (fsagent bisect --ends-from), not counted,
 * as a bisection after fsagent qualify or a watch begins. For tuning: SIM_TRACE=1 prints every
 * probe, SIM_DEBUG=1 the seeds gone wrong or long and the runs per phase,
 * SIM_OPTS="confidence null_prior batch_power end_fails confirm_fails"
 * overrides the engine's defaults.
 */
#include "analysis/bisect.h"

#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rng {
	uint64_t s;
};

static uint64_t next64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double uniform(struct rng *r)
{
	return (double)(next64(r) >> 11) * 0x1.0p-53;
}

struct world {
	size_t n, culprit; /* commits 0..n-1; culprit in 1..n-1 */
	double p_good, p_bad;
	struct rng rng;
	unsigned long runs;
	unsigned char *built;
	unsigned kernels;
};

static int forward; /* --forward: a fix drawn, the line turned round as fsagent bisect --forward turns it */

/* runs at commit j (stopping at the first failure when stop); returns the failures */
static unsigned run(struct world *w, size_t j, unsigned runs, int stop, unsigned *done)
{
	/*
	 * forward: the real line old (failing at p_bad) .. new (passing at p_good) with the fix at real commit
	 * n - culprit; the strategies see it turned round, commit j being real n-1-j, and the engine's culprit
	 * (the last that fails, turned round) is right when the fix, the one after it, is
	 */
	double p = forward ? (w->n - 1 - j < w->n - w->culprit ? w->p_bad : w->p_good)
			   : (j >= w->culprit ? w->p_bad : w->p_good);
	unsigned f = 0, k;

	if (!w->built[j]) {
		w->built[j] = 1;
		w->kernels++;
	}
	for (k = 0; k < runs; k++) {
		w->runs++;
		if (uniform(&w->rng) < p) {
			f++;
			if (stop) {
				k++;
				break;
			}
		}
	}
	*done = k;
	return f;
}

static double phase_runs[4];
static unsigned qualified; /* --qualified: runs of each end given, not counted */

/* fsagent's engine; returns the culprit named (0: none) */
static size_t fsagent(struct world *w, unsigned long budget)
{
	struct bisect_opts o;
	struct bisect *b;
	struct bisect_step s;
	size_t found = 0;

	bisect_opts_default(&o);
	if (getenv("SIM_OPTS"))
		sscanf(getenv("SIM_OPTS"), "%lf %lf %lf %u %u", &o.confidence, &o.null_prior, &o.batch_power,
		       &o.end_fails, &o.confirm_fails);
	if (bisect_new(w->n, &o, &b) < 0)
		abort();
	if (qualified) {
		unsigned fg = 0, fb = 0;

		for (unsigned k = 0; k < qualified; k++) {
			fg += uniform(&w->rng) < w->p_good;
			fb += uniform(&w->rng) < w->p_bad;
		}
		bisect_record(b, 0, qualified, fg);
		bisect_record(b, w->n - 1, qualified, fb);
	}
	while (w->runs < budget) {
		unsigned done, f;

		if (bisect_next(b, &s) < 0)
			abort();
		if (s.action != BISECT_PROBE) {
			if (s.action == BISECT_FOUND)
				found = s.commit;
			break;
		}
		f = run(w, s.commit, s.runs, s.stop_at_fail, &done);
		phase_runs[s.phase[0] == 'b' ? 0 : s.phase[0] == 'g' ? 1 : s.phase[0] == 's' ? 2 : 3] += done;
		if (getenv("SIM_TRACE"))
			fprintf(stderr, "%-8s %4zu x%-3u %u/%u best %.3f null %.3f\n", s.phase, s.commit, s.runs, f,
				done, s.confidence, bisect_posterior(b, 0));
		bisect_record(b, s.commit, done, f);
	}
	bisect_free(b);
	return found;
}

/* git bisect with tries runs a step: bad at the first failure (all when !stop) */
static size_t classic(struct world *w, unsigned tries, int stop)
{
	size_t lo = 0, hi = w->n - 1;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		unsigned done;

		if (run(w, mid, tries, stop, &done))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

struct tally {
	unsigned right, seeds;
	double runs, kernels;
};

enum { FSAGENT, KCS, KTEST5, TEN, STRATEGIES };
static const char *const names[STRATEGIES] = { "fsagent", "one run a step (KCS)", "first failure of 5 (ktest)",
					       "10 runs a step" };

struct scenario {
	double p_good, p_bad, min_right, max_runs, max_kernels;
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seeds", required_argument, NULL, 's' },
		{ "commits", required_argument, NULL, 'n' },
		{ "check", no_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 'S' },
		{ "scenario", required_argument, NULL, 'k' },
		{ "qualified", required_argument, NULL, 'q' },
		{ "forward", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const struct scenario sc[] = {
		{ 0, 1.0, 0.99, 20, 14 },  { 0, 0.5, 0.99, 60, 25 },   { 0, 0.2, 0.99, 200, 25 },
		{ 0, 0.1, 0.99, 400, 25 }, { 0.05, 0.4, 0.95, 0, 25 },
	};
	unsigned seeds = 1000, commits = 1000;
	unsigned only_seed = 0;
	int c, check = 0, missed = 0, only_k = -1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': seeds = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'n': commits = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'c': check = 1; break;
		case 'S': only_seed = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'k': only_k = atoi(optarg); break;
		case 'q': qualified = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'f': forward = 1; break;
		case 'h':
			printf("usage: bisect-sim [--seeds N] [--commits N] [--check] [--scenario K] [--seed S]\n"
			       "                  [--qualified N]\n"
			       "Bisection strategies simulated on the same seeds (tests/bench/bisect). --scenario K\n"
			       "(0..4: rates 1.0, 0.5, 0.2, 0.1, 0.05->0.4) and --seed S run one row or one seed;\n"
			       "SIM_TRACE=1 prints every probe, SIM_DEBUG=1 the seeds gone wrong and the runs per\n"
			       "phase, SIM_OPTS=\"confidence null_prior batch_power end_fails confirm_fails\"\n"
			       "overrides the engine's defaults. --check exits 1 when fsagent misses a target.\n"
			       "--qualified N: fsagent's ends begin with N runs each from a qualification\n"
			       "(bisect --ends-from), not counted in its runs. --forward: a fix drawn instead of\n"
			       "a culprit, the line turned round as fsagent bisect --forward does.\n");
			return 0;
		default: return 2;
		}
	}
	if (!seeds || commits < 2)
		return 2;
	if (forward)
		printf("forward: %u commits after the failing one, the fix uniform, %u seeds a scenario (rates: after "
		       "the "
		       "fix -> before it); rates estimated, never given\n",
		       commits, seeds);
	else
		printf("%u commits after the good one, culprit uniform, %u seeds a scenario; rates estimated, never "
		       "given\n",
		       commits, seeds);
	if (qualified)
		printf("fsagent after a qualification: each end's %u runs given (--ends-from), not counted\n",
		       qualified);
	putchar('\n');
	printf("%-12s %-28s %8s %10s %9s   %s\n", "rates", "strategy", "right", "mean runs", "kernels", "target");
	for (size_t k = 0; k < sizeof(sc) / sizeof(sc[0]); k++) {
		struct tally t[STRATEGIES] = { 0 };

		if (only_k >= 0 && (size_t)only_k != k)
			continue;

		for (unsigned seed = 1; seed <= seeds; seed++) {
			struct rng pick = { 0x5eed0000ULL + seed * 7919ULL + k };
			size_t culprit = 1 + (size_t)(next64(&pick) % commits);

			if (only_seed && seed != only_seed)
				continue;

			for (int st = 0; st < STRATEGIES; st++) {
				struct world w = { .n = commits + 1,
						   .culprit = culprit,
						   .p_good = sc[k].p_good,
						   .p_bad = sc[k].p_bad,
						   .rng = { next64(&pick) ^ (uint64_t)st } };
				size_t named;

				w.built = calloc(w.n, 1);
				if (!w.built)
					return 1;
				switch (st) {
				case FSAGENT: named = fsagent(&w, 100000); break;
				case KCS: named = classic(&w, 1, 1); break;
				case KTEST5: named = classic(&w, 5, 1); break;
				default: named = classic(&w, 10, 0); break;
				}
				if (getenv("SIM_DEBUG") && st == FSAGENT &&
				    (named != culprit || w.runs > 4 * sc[k].max_runs))
					fprintf(stderr, "seed %u culprit %zu named %zu runs %lu\n", seed, culprit,
						named, w.runs);
				t[st].right += named == culprit;
				t[st].seeds++;
				t[st].runs += (double)w.runs;
				t[st].kernels += w.kernels;
				free(w.built);
			}
		}
		if (getenv("SIM_DEBUG"))
			fprintf(stderr, "phases: bad end %.1f good end %.1f search %.1f confirm %.1f\n",
				phase_runs[0] / seeds, phase_runs[1] / seeds, phase_runs[2] / seeds,
				phase_runs[3] / seeds);
		memset(phase_runs, 0, sizeof(phase_runs));
		for (int st = 0; st < STRATEGIES; st++) {
			double right = (double)t[st].right / t[st].seeds, runs = t[st].runs / t[st].seeds,
			       kern = t[st].kernels / t[st].seeds;
			char target[96] = "";

			if (st == FSAGENT && !qualified) { /* the targets count the ends' runs */
				/* forward (issue 35): how often it is right, its runs and kernels printed */
				int ok = right >= sc[k].min_right &&
					 (forward ||
					  ((!sc[k].max_runs || runs <= sc[k].max_runs) && kern <= sc[k].max_kernels));

				if (forward)
					snprintf(target, sizeof(target), "right >= %.0f%%: %s", 100 * sc[k].min_right,
						 ok ? "met" : "MISSED");
				else if (sc[k].max_runs)
					snprintf(target, sizeof(target),
						 "right >= %.0f%%, runs <= %.0f, kernels <= %.0f: %s",
						 100 * sc[k].min_right, sc[k].max_runs, sc[k].max_kernels,
						 ok ? "met" : "MISSED");
				else
					snprintf(target, sizeof(target), "right >= %.0f%%, kernels <= %.0f: %s",
						 100 * sc[k].min_right, sc[k].max_kernels, ok ? "met" : "MISSED");
				missed += !ok;
			}
			printf("%4.2f -> %-4.2f %-28s %7.1f%% %10.1f %9.1f   %s\n", sc[k].p_good, sc[k].p_bad,
			       names[st], 100 * right, runs, kern, target);
		}
		putchar('\n');
		fflush(stdout);
	}
	printf("fsagent: %s\n", qualified ? "no target judged: the targets count the ends' runs"
				: missed  ? "targets missed"
					  : "every target met");
	return check && missed ? 1 : 0;
}
