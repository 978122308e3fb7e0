// SPDX-License-Identifier: MIT
/*
 * A parallel queue's company (see parallel_internal.h): the tests each ran
 * beside, and those that may be running, written down for a crash.
 */
#include "run/parallel_internal.h"
#include "model/plan.h"
#include "util/macro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* other as t's record names it: its name, "<config>:<name>" when another config's. */
static void label(const struct queue *q, const struct test_result *t, const struct test_result *other, char *buf,
		  size_t size)
{
	if (other->config_index == t->config_index)
		snprintf(buf, size, "%s", other->name);
	else
		snprintf(buf, size, "%s:%s", q->cfgs[other->config_index].name, other->name);
}

/* other's label appended to t's tests beside it (a blank-separated list on the heap). */
void parallel_add_beside(const struct queue *q, struct test_result *t, const struct test_result *other)
{
	size_t len = t->beside ? strlen(t->beside) : 0;
	char name[sizeof(other->name) + 128], *nb;

	label(q, t, other, name, sizeof(name));
	nb = realloc(t->beside, len + strlen(name) + 2);
	if (!nb)
		return;
	t->beside = nb;
	snprintf(nb + len, strlen(name) + 2, "%s%s", len ? " " : "", name);
}

/*
 * The tests that may be running now, to the caller (a crash's suspects):
 * by runner, the first of its batch without a result, and the one after
 * it, which check starts as soon as that one ends, before fsagent can
 * write down its start. Under the lock.
 */
void parallel_report_in_flight(struct queue *q)
{
	const struct test_result *in[2 * PLAN_JOBS_MAX + 1];
	size_t k = 0;

	if (!q->pq->in_flight)
		return;
	for (unsigned o = 0; o < q->runners; o++) {
		unsigned mine = 0;

		for (size_t i = q->batch_lo[o]; i < q->batch_hi[o] && mine < 2 && k < ARRAY_SIZE(in) - 1; i++)
			if (!q->done[i]) {
				in[k++] = &q->tests[i];
				mine++;
			}
	}
	in[k] = NULL;
	q->pq->in_flight(q->pq->data, in);
}

/* The test t's record names as "lab" (its label from t's side), or -1. */
static ssize_t index_of(const struct queue *q, const struct test_result *t, const char *lab, size_t len)
{
	const char *colon = memchr(lab, ':', len);
	size_t ci = t->config_index;
	const char *name = lab;

	if (colon) {
		for (ci = 0; ci < q->n_cfgs; ci++)
			if (strlen(q->cfgs[ci].name) == (size_t)(colon - lab) &&
			    memcmp(q->cfgs[ci].name, lab, colon - lab) == 0)
				break;
		len -= colon + 1 - lab;
		name = colon + 1;
	}
	for (size_t i = 0; i < q->n; i++)
		if (q->tests[i].config_index == ci && strlen(q->tests[i].name) == len &&
		    memcmp(q->tests[i].name, name, len) == 0)
			return (ssize_t)i;
	return -1;
}

/*
 * Keep of t's tests beside it those that ran while it did: one taken while
 * t's check was wrapping up after its verdict did not. Under the lock.
 */
void parallel_trim_beside(struct queue *q, struct test_result *t, double t_end)
{
	char *w = t->beside, *out = t->beside;

	while (w && *w) {
		size_t len = strcspn(w, " ");
		ssize_t j = index_of(q, t, w, len);
		bool keep = j >= 0 && q->tests[j].started < t_end && (!q->end[j] || q->end[j] > t->started);

		if (keep) {
			if (out != t->beside)
				*out++ = ' ';
			memmove(out, w, len);
			out += len;
		}
		w += len + (w[len] == ' ');
	}
	if (out)
		*out = '\0';
}
