// SPDX-License-Identifier: MIT
/*
 * schedule-sim: fsagent's queue of tests (model/schedule.c) against
 * check-parallel's round-robin split, on durations read from stdin ("SECONDS
 * NAME" a line), for tests/bench/parallel. For each runner count given, one
 * line: the lower bound max(longest, sum / N), the queue's makespan and its
 * ratio to the bound, check-parallel's makespan, and the queue's against it.
 */
#include "model/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct sched_item *it = NULL;
	size_t n = 0, cap = 0, *order;
	char name[256];
	double sec, total = 0;
	unsigned long long seed = 0;

	if (argc < 2 || !strcmp(argv[1], "--help")) {
		printf("usage: schedule-sim [--seed S] RUNNERS... <DURATIONS (\"SECONDS NAME\" lines)\n");
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--seed") && argc > 3) {
		seed = strtoull(argv[2], NULL, 10);
		argv += 2;
		argc -= 2;
	}
	while (scanf("%lf %255s", &sec, name) == 2) {
		if (n == cap) {
			struct sched_item *nv = realloc(it, (cap = cap ? cap * 2 : 1024) * sizeof(*nv));

			if (!nv)
				return 1;
			it = nv;
		}
		it[n].name = strdup(name);
		it[n++].seconds = sec;
		total += sec;
	}
	if (!n || !(order = calloc(n, sizeof(*order))) || sched_order(it, n, seed, order) < 0) {
		fprintf(stderr, "schedule-sim: no durations on stdin\n");
		return 1;
	}
	printf("%zu tests, %.0f s in all, the longest %.0f s\n", n, total, it[order[0]].seconds);
	printf("%8s %12s %12s %10s %16s %12s\n", "runners", "bound (s)", "queue (s)", "/ bound", "round-robin (s)",
	       "queue / rr");
	for (int a = 1; a < argc; a++) {
		unsigned r = (unsigned)strtoul(argv[a], NULL, 10);
		double lb = sched_lower_bound(it, n, r), q = sched_makespan(it, order, n, r, NULL, NULL),
		       rr = sched_round_robin(it, order, n, r);

		if (!r || q < 0 || rr < 0)
			return 1;
		printf("%8u %12.0f %12.0f %10.3f %16.0f %12.3f\n", r, lb, q, q / lb, rr, q / rr);
	}
	return 0;
}
