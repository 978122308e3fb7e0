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
#include "model/plan.h"
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
	struct run_member *ms; /* the queue's configs at its iterations (run_member.origin, .k) */
	size_t n;
	struct run_member *origins; /* the configs */
	int *serving; /* by runner: the config its test device was last made for, over the queue's iterations */
};

/* The tests a parallel queue has in flight, each config's in its iteration at once: a crash's suspects. */
static void in_flight(void *data, const struct test_result *const *tests)
{
	struct queue_ctx *qc = data;

	int r;

	for (size_t i = 0; i < qc->n; i++) {
		const char *names[2 * PLAN_JOBS_MAX + 1];
		size_t k = 0;

		if (!qc->ms[i].active)
			continue;
		for (const struct test_result *const *t = tests; *t && k < ARRAY_SIZE(names) - 1; t++)
			if ((*t)->config_index == i)
				names[k++] = (*t)->name;
		names[k] = NULL;
		bundle_set_in_flight(qc->ms[i].iteration, (char *const *)names);
	}
	/* every config's at once: one write */
	r = bundle_write(qc->c->b);
	if (r < 0)
		log_warn("record the tests in flight in '%s' failed: %s", qc->c->b->dir, strerror(-r));
}

static void member_error(struct run_ctx *c, struct run_member *m, int r, const char *err)
{
	run_config_error(c, m, r, err);
	m->origin->failed = true;
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
			if (r == 0 && m->pool->n)
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
	if (m->pool->n)
		return arrange_for_run(m->order, sel, m->iteration, &m->head, &m->parallel);
	m->head = 0;
	m->parallel = strv_length(m->order);
	return 0;
}

static double expect_of(struct run_ctx *c, const struct run_member *m, const char *test)
{
	return history_of(&c->hist, m->cfg->name, test);
}

/* A test of the queue being gathered: its name, config (lane), expectation and place as it came. */
struct entry {
	const char *name;
	unsigned ci;
	double expect; /* seconds, < 0 never timed */
	size_t seq;
};

/* a before b in a queue over several configs: longer first, a test never timed first of all, else as they came */
static int cmp_longer(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	const double x = a->expect < 0 ? 1e9 : a->expect, y = b->expect < 0 ? 1e9 : b->expect;

	if (x != y)
		return x < y ? 1 : -1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
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
	struct entry *en;
	double *expect;

	for (size_t i = 0; i < qc->n; i++)
		if (qc->ms[i].active) {
			n += strv_length(qc->ms[i].order);
			active++;
		}
	tests = calloc(n ? n : 1, sizeof(*tests));
	expect = calloc(n ? n : 1, sizeof(*expect));
	en = calloc(n ? n : 1, sizeof(*en));
	if (!tests || !expect || !en) {
		free(tests);
		free(expect);
		free(en);
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

			for (size_t j = lo; m->active && j < hi; j++, k++)
				en[k] = (struct entry){ m->order[j], (unsigned)i, expect_of(qc->c, m, m->order[j]), k };
		}
		if (part == 1 && active > 1)
			qsort(en + from, k - from, sizeof(*en), cmp_longer);
		if (part == 0)
			pq->head = k;
		else if (part == 1)
			pq->parallel = k - from;
	}
	for (size_t j = 0; j < n; j++) {
		snprintf(tests[j].name, sizeof(tests[j].name), "%s", en[j].name);
		tests[j].config_index = en[j].ci;
		expect[j] = en[j].expect;
	}
	free(en);
	*ret = tests;
	*ret_expect = expect;
	*ret_n = n;
	return 0;
}

/* Each config's runner options and its place in a queue, for parallel_run. Returns 0 or -ENOMEM. */
static int queue_configs(struct queue_ctx *qc, struct runner_opts **ret_ro, struct parallel_config **ret_pc)
{
	struct run_ctx *c = qc->c;
	struct runner_opts *ro = calloc(qc->n, sizeof(*ro));
	struct parallel_config *pc = calloc(qc->n, sizeof(*pc));

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
		pc[i] = (struct parallel_config){ m->label, (unsigned)(m->origin - qc->origins), &ro[i], m->pool };
	}
	*ret_ro = ro;
	*ret_pc = pc;
	return 0;
}

/* Run the gathered tests: over the runners, or one at a time through the one config's check. */
static int run_tests(struct queue_ctx *qc, const struct runner_opts *ro, const struct parallel_config *pc,
		     struct test_result *tests, size_t n, const double *expect, struct parallel_queue *pq)
{
	pq->expect = expect;
	pq->in_flight = in_flight;
	pq->data = qc;
	pq->serving = qc->serving;
	if (!n)
		return 0;
	if (qc->ms[0].pool->n)
		return parallel_run(pc, qc->n, tests, n, pq);
	return runner_run(&ro[0], tests, n); /* one config, one test at a time */
}

/* The label of test (config ci's) as config cj's records name it. */
static void pair_label(const struct queue_ctx *qc, size_t ci, const char *test, size_t cj, char *buf, size_t size)
{
	if (ci == cj)
		snprintf(buf, size, "%s", test);
	else
		snprintf(buf, size, "%s:%s", qc->ms[ci].cfg->name, test);
}

/* Mark (or, with set false, unmark) the iterations of a pair's tests as running it: a crash is the pair's. */
static void mark_pair(struct queue_ctx *qc, const struct test_result *two, bool set)
{
	for (int s = 0; s < 2; s++) {
		const struct run_member *m = &qc->ms[two[s].config_index];
		json_t *names = json_array();
		char lab[256];

		for (int t = 0; t < 2; t++) {
			pair_label(qc, two[t].config_index, two[t].name, two[s].config_index, lab, sizeof(lab));
			json_array_append_new(names, json_string(lab));
		}
		if (set)
			json_object_set_new(m->iteration, "pairing", names);
		else {
			json_object_del(m->iteration, "pairing");
			json_decref(names);
		}
	}
	bundle_write(qc->c->b);
}

/*
 * A crash's suspects that each ran alone in this boot without crashing:
 * two at a time, every pair, on runners 1 and 2, their results not
 * recorded (each has its own, alone). The iterations name the pair running
 * ("pairing"): a crash now is the pair's (boot/crash.c). Returns 0 or the
 * queue's error.
 */
static int try_pairs(struct queue_ctx *qc, const struct runner_opts *ro, const struct parallel_config *pc)
{
	struct runner_opts *quiet = calloc(qc->n, sizeof(*quiet));
	struct parallel_config *qpc = calloc(qc->n, sizeof(*qpc));
	struct test_result *sus = NULL;
	size_t n = 0, tried = 0;
	int r = quiet && qpc ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < qc->n; i++) {
		json_t *list = json_object_get(qc->ms[i].iteration, "suspects"), *v;
		size_t k;

		quiet[i] = ro[i];
		quiet[i].on_result = NULL; /* each has its record: these runs only look for the crash */
		qpc[i] = pc[i];
		qpc[i].base = &quiet[i];
		if (!qc->ms[i].active || !json_is_array(list))
			continue;
		if (qc->ms[i].head != json_array_size(list) || qc->ms[i].pool->n < 2)
			goto out; /* not every suspect ran alone here (one crashed), or no two runners */
		json_array_foreach(list, k, v) {
			struct test_result *nv = realloc(sus, (n + 1) * sizeof(*sus));

			if (!nv) {
				r = -ENOMEM;
				goto out;
			}
			sus = nv;
			memset(&sus[n], 0, sizeof(*sus));
			snprintf(sus[n].name, sizeof(sus[n].name), "%s", json_string_value(v) ?: "");
			sus[n++].config_index = (unsigned)i;
		}
	}
	if (r < 0 || n < 2)
		goto out;
	log_warn("the crash came with none of its %zu suspects alone: two at a time, %zu pair%s", n, n * (n - 1) / 2,
		 n == 2 ? "" : "s");
	for (size_t a = 0; r == 0 && a < n; a++)
		for (size_t b = a + 1; r == 0 && b < n; b++) {
			struct test_result two[2] = { sus[a], sus[b] };
			struct parallel_queue pq = { .parallel = 2, .batch_max = 1, .serving = qc->serving };

			log_info("crash suspects %s and %s together (pair %zu of %zu)", two[0].name, two[1].name,
				 ++tried, n * (n - 1) / 2);
			mark_pair(qc, two, true);
			r = parallel_run(qpc, qc->n, two, 2, &pq);
			mark_pair(qc, two, false);
			test_result_release(&two[0]);
			test_result_release(&two[1]);
		}
out:
	free(sus);
	free(quiet);
	free(qpc);
	return r;
}

/* m's iteration ended (or stopped): its suspects settled, its end recorded, a soak's clean one folded. */
static void end(struct run_ctx *c, struct run_member *m, size_t suspects)
{
	if (m->pool->n)
		arrange_suspects_done(m->iteration, m->head, suspects);
	bundle_iteration_end(m->iteration, c->stopped_by ? "stopped" : "done");
	/* a soak keeps counts for clean iterations, records for failing ones */
	if (run_soak_active(c->o->plan) && bundle_fold_iteration(c->b, m->config, m->iteration) < 0)
		log_warn("fold iteration %u of '%s' into the aggregate failed",
			 (unsigned)json_integer_value(json_object_get(m->iteration, "index")), m->cfg->name);
}

/* How many iterations one queue spans: enough that each holds twice the runners' worth of tests. */
static unsigned span(const struct run_member *ms, size_t n, unsigned jobs)
{
	size_t tests = 0;

	for (size_t i = 0; i < n; i++)
		tests += ms[i].cs->n_run;
	if (!ms[0].pool->n || !tests || tests >= 2 * (size_t)jobs)
		return 1;
	return (unsigned)((2 * (size_t)jobs + tests - 1) / tests);
}

int iterations_run(struct run_ctx *c, struct run_member *ms, size_t n)
{
	const unsigned w = span(ms, n, c->o->plan->jobs);
	struct run_member *lanes = calloc(n * w, sizeof(*lanes));
	struct queue_ctx qc = { .c = c, .ms = lanes, .origins = ms };
	unsigned iters = 0;
	int r = lanes ? 0 : -ENOMEM;

	for (size_t i = 0; i < n; i++) {
		const unsigned k = plan_iterations_for(c->o->plan, ms[i].cfg->name);

		iters = k > iters ? k : iters;
		if (ms[i].cfg->section)
			snprintf(ms[i].result_dir, sizeof(ms[i].result_dir), "%s/%s", ms[i].cfg->result_base,
				 ms[i].cfg->section);
		else
			snprintf(ms[i].result_dir, sizeof(ms[i].result_dir), "%s", ms[i].cfg->result_base);
	}
	if (w > 1)
		log_info("%u iterations at a time in one queue: %u runners, and an iteration holds fewer than twice "
			 "that many tests",
			 w, ms[0].pool->n);
	for (unsigned k0 = 0; k0 < iters && r >= 0 && r != RUNNER_UNKILLABLE && !c->stopped_by; k0 += w) {
		struct parallel_queue pq = { 0 };
		struct runner_opts *ro = NULL;
		struct parallel_config *pc = NULL;
		struct test_result *tests = NULL;
		double *expect = NULL;
		size_t nt = 0, suspects = 0;

		/* each config at each iteration of the window: a lane of the queue, its iteration's record its own */
		qc.n = 0;
		for (size_t i = 0; i < n; i++)
			for (unsigned k = k0; k < k0 + w && k < iters; k++) {
				struct run_member *l = &lanes[qc.n++];
				char err[512] = "";
				int e;

				*l = ms[i];
				l->origin = &ms[i];
				l->k = k;
				if (w > 1)
					snprintf(l->label, sizeof(l->label), "%s#%u", ms[i].cfg->name, c->base + k);
				else
					snprintf(l->label, sizeof(l->label), "%s", ms[i].cfg->name);
				l->active = !ms[i].failed && k < plan_iterations_for(c->o->plan, ms[i].cfg->name);
				if (l->active && (e = begin(c, l, k, err, sizeof(err))) < 0)
					member_error(c, l, e, err);
				suspects += l->active ? l->head : 0;
			}
		bundle_write(c->b);
		r = gather(&qc, &tests, &expect, &nt, &pq);
		if (r == 0)
			r = queue_configs(&qc, &ro, &pc);
		if (r == 0 && !qc.serving && ms[0].pool->n) {
			/* the runners' test devices as the pools made them, then as each queue leaves them */
			qc.serving = calloc(ms[0].pool->n, sizeof(*qc.serving));
			r = qc.serving ? 0 : -ENOMEM;
			for (unsigned j = 0; qc.serving && j < ms[0].pool->n; j++)
				qc.serving[j] = parallel_made_for(pc, qc.n, j);
		}
		if (r == 0)
			r = run_tests(&qc, ro, pc, tests, nt, expect, &pq);
		/* a crash none of its suspects made alone: pairs of them, before the iteration ends */
		if (r == 0 && suspects > 1)
			r = try_pairs(&qc, ro, pc);
		free(ro);
		free(pc);
		for (size_t j = 0; j < nt; j++)
			test_result_release(&tests[j]);
		free(tests);
		free(expect);
		for (size_t i = 0; i < qc.n; i++) {
			if (lanes[i].active && r == 0)
				end(c, &lanes[i], suspects);
			strv_free(lanes[i].order);
			lanes[i].order = NULL;
		}
		if (r == 0)
			bundle_write(c->b);
	}
	free(qc.serving);
	free(lanes);
	return r;
}
