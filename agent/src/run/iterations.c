// SPDX-License-Identifier: MIT
/*
 * A queue's iterations (see run_internal.h): each config's order, made
 * (seeded, longest first beside others) or resumed from its record; one
 * queue over the configs' tests; each config's iteration recorded.
 */
#include "run/arrange.h"
#include "run/parallel.h"
#include "run/run_internal.h"
#include "run/runner.h"
#include "model/order.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct queue_ctx {
	struct run_ctx *c;
	struct run_member *ms;
	size_t n;
};

/* The tests a parallel queue has in flight, each config's in its iteration at once: a crash's suspects. */
static void in_flight(void *data, const struct test_result *const *tests)
{
	struct queue_ctx *qc = data;

	for (size_t i = 0; i < qc->n; i++) {
		const char *names[65];
		size_t k = 0;
		int r;

		if (!qc->ms[i].active)
			continue;
		for (const struct test_result *const *t = tests; *t && k < ARRAY_SIZE(names) - 1; t++)
			if ((*t)->config_index == i)
				names[k++] = (*t)->name;
		names[k] = NULL;
		r = bundle_set_in_flight(qc->c->b, qc->ms[i].iteration, (char *const *)names);
		if (r < 0)
			log_warn("record the tests in flight in '%s' failed: %s", qc->c->b->dir, strerror(-r));
	}
}

static void member_error(struct run_ctx *c, struct run_member *m, int r, const char *err)
{
	log_err("config '%s': %s", m->cfg->name, err[0] ? err : strerror(-r));
	bundle_config_status(m->config, "error", err[0] ? err : strerror(-r));
	c->bad++;
	m->failed = true;
	m->active = false;
}

/* m's iteration index it: its order made and recorded, or what a resumed one has left; then its parts. */
static int begin(struct run_ctx *c, struct run_member *m, unsigned k, char *err, size_t es)
{
	const struct plan *p = c->o->plan;
	const struct selection *sel = &m->cs->sel;
	const unsigned it = c->base + k;
	char seedbuf[32] = "";
	int r;

	m->order = NULL;
	m->head = m->parallel = 0;
	m->iteration = bundle_find_iteration(m->config, it);
	if (m->iteration) {
		/* resuming: the recorded order, minus what already has a result */
		r = bundle_remaining(c->b, m->config, m->iteration, &m->order);
		if (r < 0) {
			snprintf(err, es, "read the journal of iteration %u: %s", it, strerror(-r));
			return r;
		}
	} else {
		/* a test with fewer iterations of its own sits out the later ones */
		for (size_t i = 0; i < sel->n; i++)
			if (sel->v[i].state == SEL_RUN && k < plan_iterations_of(p, m->cfg->name, sel->v[i].name) &&
			    strv_push(&m->order, sel->v[i].name) < 0)
				return -ENOMEM;
		if (p->order == ORDER_RANDOM) {
			uint64_t s = order_derive_seed(p->seed, it, m->cfg->name);

			snprintf(seedbuf, sizeof(seedbuf), "%" PRIu64, s);
			order_shuffle(m->order, strv_length(m->order), s);
		}
		if (p->jobs > 1) {
			uint64_t s = order_derive_seed(p->seed, it, m->cfg->name);

			r = arrange_longest_first(m->order, &c->hist, m->cfg->name, s);
			if (r == 0 && m->pool.n)
				r = arrange_queue(m->order, sel, NULL, &m->head, &m->parallel);
			if (r < 0)
				return r;
			if (!seedbuf[0])
				snprintf(seedbuf, sizeof(seedbuf), "%" PRIu64, s);
		}
		m->iteration = bundle_add_iteration(c->b, m->config, it, seedbuf[0] ? seedbuf : NULL, m->order);
		if (!m->iteration) {
			snprintf(err, es, "create the journal of iteration %u in '%s' failed", it, c->b->dir);
			return -EIO;
		}
		for (size_t i = 0; i < sel->n; i++)
			if (sel->v[i].state == SEL_EXPUNGED || sel->v[i].state == SEL_UNKNOWN) {
				bundle_record_skipped(c->b, m->config, m->iteration, sel->v[i].name,
						      sel->v[i].state == SEL_EXPUNGED ? "expunged" : "error",
						      sel->v[i].reason, sel->v[i].source);
				c->bad += sel->v[i].state == SEL_UNKNOWN;
			}
	}
	/* beside others: a crash's suspects first, the tests that cannot share the machine last */
	if (m->pool.n)
		return arrange_for_run(m->order, sel, m->iteration, &m->head, &m->parallel);
	m->head = 0;
	m->parallel = strv_length(m->order);
	return 0;
}

static double expect_of(struct run_ctx *c, const struct run_member *m, const char *test)
{
	return history_of(&c->hist, m->cfg->name, test);
}

/* a before b in a queue over several configs: longer first, a test never timed first of all */
static int cmp_longer(const void *pa, const void *pb)
{
	const struct test_result *a = pa, *b = pb;
	const double x = a->started < 0 ? 1e9 : a->started, y = b->started < 0 ? 1e9 : b->started;

	if (x != y)
		return x < y ? 1 : -1;
	return a->runner < b->runner ? -1 : a->runner > b->runner; /* as they came: stable */
}

/*
 * The active members' tests in one array: every config's suspects, then
 * their parallel parts (one config's in its recorded order; several merged
 * longest first, ties in config order), then their serial tails.
 */
static int gather(struct queue_ctx *qc, struct test_result **ret, double **ret_expect, size_t *ret_n,
		  struct parallel_queue *pq)
{
	size_t n = 0, k = 0, active = 0;
	struct test_result *tests;
	double *expect;

	for (size_t i = 0; i < qc->n; i++)
		if (qc->ms[i].active) {
			n += strv_length(qc->ms[i].order);
			active++;
		}
	tests = calloc(n ? n : 1, sizeof(*tests));
	expect = calloc(n ? n : 1, sizeof(*expect));
	if (!tests || !expect) {
		free(tests);
		free(expect);
		return -ENOMEM;
	}
	pq->head = pq->parallel = 0;
	for (int part = 0; part < 3; part++) {
		const size_t from = k;

		for (size_t i = 0; i < qc->n; i++) {
			const struct run_member *m = &qc->ms[i];
			const size_t lo = part == 0 ? 0 : part == 1 ? m->head : m->head + m->parallel;
			const size_t hi = part == 0   ? m->head
					  : part == 1 ? m->head + m->parallel
						      : strv_length(m->order);

			for (size_t j = lo; m->active && j < hi; j++, k++) {
				snprintf(tests[k].name, sizeof(tests[k].name), "%s", m->order[j]);
				tests[k].config_index = (unsigned)i;
				/* the sort's keys, reset after it */
				tests[k].started = expect_of(qc->c, m, m->order[j]);
				tests[k].runner = (unsigned)k;
			}
		}
		if (part == 1 && active > 1)
			qsort(tests + from, k - from, sizeof(*tests), cmp_longer);
		if (part == 0)
			pq->head = k;
		else if (part == 1)
			pq->parallel = k - from;
	}
	for (size_t j = 0; j < n; j++) {
		expect[j] = tests[j].started;
		tests[j].started = 0;
		tests[j].runner = 0;
	}
	*ret = tests;
	*ret_expect = expect;
	*ret_n = n;
	return 0;
}

/* Run the gathered tests: over the runners, or one at a time through the one config's check. */
static int run_tests(struct queue_ctx *qc, struct test_result *tests, size_t n, const double *expect,
		     struct parallel_queue *pq)
{
	struct run_ctx *c = qc->c;
	struct runner_opts *ro = calloc(qc->n, sizeof(*ro));
	struct parallel_config *pc = calloc(qc->n, sizeof(*pc));
	int r;

	if (!ro || !pc) {
		free(ro);
		free(pc);
		return -ENOMEM;
	}
	for (size_t i = 0; i < qc->n; i++) {
		struct run_member *m = &qc->ms[i];

		ro[i] = (struct runner_opts){
			.fstests = c->o->fstests,
			.host_options = m->cfg->host_options,
			.section = m->cfg->section,
			.overlay = m->cfg->overlay,
			.kmsg = c->o->kmsg,
			.sysrq = c->o->sysrq,
			.rerun_failures = c->o->plan->rerun_failures,
			.timeout_for = run_timeout_for,
			.on_result = run_on_result,
			.data = m,
			/* coverage is per test: a check of its own, counters reset before it */
			.one_per_check = c->gcov != NULL,
			.before_check = c->gcov ? run_before_check : NULL,
		};
		pc[i] = (struct parallel_config){ m->cfg->name, &ro[i], &m->pool };
	}
	pq->expect = expect;
	pq->in_flight = in_flight;
	pq->data = qc;
	if (!n)
		r = 0;
	else if (qc->ms[0].pool.n)
		r = parallel_run(pc, qc->n, tests, n, pq);
	else
		r = runner_run(&ro[0], tests, n); /* one config, one test at a time */
	free(ro);
	free(pc);
	return r;
}

/* m's iteration ended (or stopped): its suspects settled, its end recorded, a soak's clean one folded. */
static void end(struct run_ctx *c, struct run_member *m, size_t suspects)
{
	if (m->pool.n)
		arrange_suspects_done(m->iteration, m->head, suspects);
	bundle_iteration_end(m->iteration, c->stopped_by ? "stopped" : "done");
	/* a soak keeps counts for clean iterations, records for failing ones */
	if (run_soak_active(c->o->plan) && bundle_fold_iteration(c->b, m->config, m->iteration) < 0)
		log_warn("fold iteration %u of '%s' into the aggregate failed",
			 (unsigned)json_integer_value(json_object_get(m->iteration, "index")), m->cfg->name);
}

int iterations_run(struct run_ctx *c, struct run_member *ms, size_t n)
{
	struct queue_ctx qc = { c, ms, n };
	unsigned iters = 0;
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		const unsigned k = plan_iterations_for(c->o->plan, ms[i].cfg->name);

		iters = k > iters ? k : iters;
		if (ms[i].cfg->section)
			snprintf(ms[i].result_dir, sizeof(ms[i].result_dir), "%s/%s", ms[i].cfg->result_base,
				 ms[i].cfg->section);
		else
			snprintf(ms[i].result_dir, sizeof(ms[i].result_dir), "%s", ms[i].cfg->result_base);
	}
	for (unsigned k = 0; k < iters && r >= 0 && r != RUNNER_UNKILLABLE && !c->stopped_by; k++) {
		struct parallel_queue pq = { 0 };
		struct test_result *tests = NULL;
		double *expect = NULL;
		size_t nt = 0, suspects = 0;

		for (size_t i = 0; i < n; i++) {
			char err[512] = "";
			int e;

			ms[i].active = !ms[i].failed && k < plan_iterations_for(c->o->plan, ms[i].cfg->name);
			if (ms[i].active && (e = begin(c, &ms[i], k, err, sizeof(err))) < 0)
				member_error(c, &ms[i], e, err);
			suspects += ms[i].active ? ms[i].head : 0;
		}
		bundle_write(c->b);
		r = gather(&qc, &tests, &expect, &nt, &pq);
		if (r == 0)
			r = run_tests(&qc, tests, nt, expect, &pq);
		for (size_t j = 0; j < nt; j++)
			test_result_release(&tests[j]);
		free(tests);
		free(expect);
		for (size_t i = 0; i < n; i++) {
			if (ms[i].active && r == 0)
				end(c, &ms[i], suspects);
			strv_free(ms[i].order);
			ms[i].order = NULL;
		}
		if (r == 0)
			bundle_write(c->b);
	}
	return r;
}
