// SPDX-License-Identifier: MIT
/*
 * The queue over parallel runners (see parallel.h): one thread per runner,
 * a mutex around the queue, the results' bookkeeping and the caller's
 * callbacks.
 */
#include "run/parallel.h"
#include "run/parallel_internal.h"
#include "model/plan.h"
#include "model/schedule.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/utctime.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int run_queue(struct queue *q, unsigned runners, struct test_result *tests, size_t n, const double *expect);

static const struct runner_opts *base_of(const struct queue *q, const struct test_result *t)
{
	return q->cfgs[t->config_index].base;
}

static unsigned timeout_for(void *data, const char *test)
{
	struct worker *w = data;
	const struct runner_opts *base = w->q->cfgs[w->ci].base;
	unsigned t;

	pthread_mutex_lock(&w->q->lock);
	t = base->timeout_for ? base->timeout_for(base->data, test) : 0;
	pthread_mutex_unlock(&w->q->lock);
	return t;
}

/*
 * A failure whose evidence is a kernel report naming no device, seen while
 * other tests ran: any of them may have caused it, so it is not yet the
 * test's own.
 */
static bool shared_failure(const struct test_result *t)
{
	return t->status == TS_FAIL && t->kernel_shared && startswith(t->reason, "kernel ");
}

static int on_result(void *data, struct test_result *t)
{
	struct worker *w = data;
	struct queue *q = w->q;
	const struct runner_opts *base = base_of(q, t);
	int stop = 0;

	pthread_mutex_lock(&q->lock);
	q->end[t - q->tests] = t->started + t->duration;
	if (t->duration > 0 && (t->status == TS_PASS || t->status == TS_FAIL || t->status == TS_NOTRUN))
		q->seen[q->n_seen++] = t->duration;
	if (t->runner && t->runner <= q->runners)
		q->batch_left[t->runner - 1] -= q->est[t - q->tests];
	parallel_trim_beside(q, t, t->started + t->duration);
	/* final: no test starting from now on is beside it (its record may be freed by the callback) */
	for (unsigned o = 0; o < q->runners; o++)
		if (q->in_flight[o] == t - q->tests)
			q->in_flight[o] = -1;
	q->done[t - q->tests] = true;
	parallel_report_in_flight(q);
	if (t->status == TS_TIMEOUT && t->runner)
		q->remake[t->runner - 1] = true;
	if (q->held && base->on_result && shared_failure(t)) {
		q->held[t - q->tests] = true;
		log_info("%s: %s, beside %s: it runs again alone before that is called its own", t->name, t->reason,
			 t->beside && t->beside[0] ? t->beside : "tests that had ended");
	} else if (base->on_result && !q->stop) {
		if (q->confirming)
			log_info("%s, again alone: %s%s%s", t->name, test_status_to_string(t->status),
				 t->reason[0] ? ": " : "", t->reason);
		stop = base->on_result(base->data, t);
	}
	if (stop)
		q->stop = true;
	pthread_mutex_unlock(&q->lock);
	return stop;
}

/* A test starts on its runner: recorded beside those in flight, and in flight itself. */
static void on_start(void *data, struct test_result *t)
{
	struct worker *w = data;
	struct queue *q = w->q;
	const unsigned k = t->runner - 1;

	pthread_mutex_lock(&q->lock);
	t->started = utctime_monotonic() - q->t0;
	if (q->batch_first[k]) {
		/* a check's start-up: mounting, checking the test device, the tree's setup */
		const double s = utctime_monotonic() - q->batch_t0[k];

		q->startup = q->startup > 0 ? (q->startup + s) / 2 : s;
		q->batch_first[k] = false;
	}
	for (unsigned o = 0; o < q->runners; o++)
		if (o != k && q->in_flight[o] >= 0) {
			parallel_add_beside(q, t, &q->tests[q->in_flight[o]]);
			parallel_add_beside(q, &q->tests[q->in_flight[o]], t);
		}
	q->in_flight[k] = t - q->tests;
	pthread_mutex_unlock(&q->lock);
}

/*
 * The tests of config ci among those not taken yet moved to the front of
 * them, each side's order kept. Returns how many are ci's. Under the lock.
 */
static size_t bring_forward(struct queue *q, unsigned ci)
{
	const size_t left = q->n - q->next;
	struct test_result *t = malloc(left * sizeof(*t));
	double *e = q->expect ? malloc(left * sizeof(*e)) : NULL;
	size_t mine = 0, k = 0;

	for (size_t i = q->next; i < q->n; i++)
		mine += q->tests[i].config_index == ci;
	if (mine == left || !t || (q->expect && !e)) {
		free(t);
		free(e);
		return mine == left ? mine : 1; /* no room to move them: the head alone */
	}
	for (int side = 0; side < 2; side++)
		for (size_t i = q->next; i < q->n; i++)
			if ((q->tests[i].config_index == ci) == (side == 0)) {
				t[k] = q->tests[i];
				if (e)
					e[k] = q->expect[i];
				k++;
			}
	memcpy(q->tests + q->next, t, left * sizeof(*t));
	if (e)
		memcpy(q->expect + q->next, e, left * sizeof(*e));
	free(t);
	free(e);
	return mine;
}

/*
 * The next batch for runner k, tests[*first..*first+count), all of the
 * head test's config (*ci) (model/schedule.h: the long tests at the head
 * alone, short ones together). Returns the count, 0 when the queue is done.
 */
static size_t take(struct queue *q, unsigned k, size_t *first, unsigned *ci)
{
	size_t count = 0;

	pthread_mutex_lock(&q->lock);
	if (!q->stop && q->next < q->n) {
		double *e = calloc(q->n - q->next, sizeof(*e)), unknown = q->unknown, min_seconds, busy = 0;
		bool known = q->known;
		size_t mine;

		/* a test never timed: as long as the median of what this queue's tests took so far */
		if (q->n_seen) {
			bool any;

			unknown = sched_median_known(q->seen, q->n_seen, &any);
			known = true;
		}
		/*
		 * a check's start and end cost seconds (tens of them under emulation): a batch of a
		 * minute where durations are known, and of PARALLEL_STARTUP_FACTOR start-ups where
		 * those are longer; where nothing is known, a runner's share (counted in tests)
		 */
		min_seconds = HUGE_VAL;
		if (known)
			min_seconds = q->startup * PARALLEL_STARTUP_FACTOR > PARALLEL_BATCH_SECONDS
					      ? q->startup * PARALLEL_STARTUP_FACTOR
					      : PARALLEL_BATCH_SECONDS;
		/* nothing known to balance the end with: each runner its share of all, those in flight too */
		for (unsigned o = 0; !known && o < q->runners; o++)
			busy += o != k && q->batch_left[o] > 0 ? q->batch_left[o] : 0;
		*ci = q->tests[q->next].config_index;
		mine = q->n_cfgs > 1 ? bring_forward(q, *ci) : q->n - q->next;
		for (size_t i = q->next; e && i < q->n; i++)
			e[i - q->next] = q->expect && q->expect[i] >= 0 ? q->expect[i] : unknown;
		*first = q->next;
		count = e ? sched_batch_busy(e, q->n - q->next, q->runners, min_seconds, busy) : 1;
		count = count < mine ? count : mine;
		if (q->pq->batch_max && count > q->pq->batch_max)
			count = q->pq->batch_max;
		if (q->one_each)
			count = 1;
		q->batch_left[k] = 0;
		for (size_t i = 0; i < count; i++) {
			q->est[q->next + i] = e ? e[i] : unknown;
			q->batch_left[k] += q->est[q->next + i];
		}
		free(e);
		for (size_t i = 0; i < count; i++)
			q->tests[q->next + i].runner = k + 1;
		q->batch_lo[k] = q->next;
		q->batch_hi[k] = q->next + count;
		q->next += count;
		/* written down before its check starts: a test that crashes at once is among them */
		parallel_report_in_flight(q);
	}
	pthread_mutex_unlock(&q->lock);
	return count;
}

/* Runner k's test device made anew with config ci's mkfs; what for says why, for the log. */
static void remake(struct queue *q, unsigned k, unsigned ci, const char *what)
{
	const struct runner_pool *pool = q->cfgs[ci].pool;
	char why[512];
	int r;

	if (!pool->slots[k].test_dev[0])
		return;
	r = pool_remake_test_dev(pool, k, why, sizeof(why));
	if (r < 0)
		log_warn("runner %u: making its test device %s anew %s failed: %s", k + 1, pool->slots[k].test_dev,
			 what, why);
	else
		log_info("runner %u: its test device %s made anew %s", k + 1, pool->slots[k].test_dev, what);
}

/*
 * Before a runner's check: a test killed for its timeout may have left its
 * test device half written, or mounted in a state no check would make: it
 * is made anew, as the pool made it, so that the next test meets what
 * check expects.
 */
static void before_check(void *data, const char *test)
{
	struct worker *w = data;
	struct queue *q = w->q;
	bool again;
	char what[256];

	pthread_mutex_lock(&q->lock);
	again = q->remake[w->k];
	q->remake[w->k] = false;
	pthread_mutex_unlock(&q->lock);
	if (!again)
		return;
	snprintf(what, sizeof(what), "after a timeout, before %s", test);
	remake(q, w->k, w->ci, what);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct queue *q = w->q;
	size_t first, count;

	while ((count = take(q, w->k, &first, &w->ci)) > 0) {
		const struct runner_slot *s = &q->cfgs[w->ci].pool->slots[w->k];
		struct runner_opts ro = *q->cfgs[w->ci].base;
		int r;

		/* a runner serves one config at a time: turning to another, its test device is made for it */
		if (q->serving[w->k] != (int)q->cfgs[w->ci].fs_id) {
			char what[256];

			snprintf(what, sizeof(what), "for %s", q->cfgs[w->ci].name);
			remake(q, w->k, w->ci, what);
			q->serving[w->k] = (int)q->cfgs[w->ci].fs_id;
		}
		ro.host_options = s->host_options;
		ro.env = (const char *const *)s->env;
		ro.devices = (const char *const *)s->devices;
		ro.own_mounts = true;
		ro.parallel = q->runners > 1;
		ro.timeout_for = timeout_for;
		ro.on_result = on_result;
		ro.on_start = on_start;
		ro.before_check = before_check;
		ro.data = w;
		pthread_mutex_lock(&q->lock);
		q->batch_t0[w->k] = utctime_monotonic();
		q->batch_first[w->k] = true;
		pthread_mutex_unlock(&q->lock);
		r = runner_run(&ro, &q->tests[first], count);
		pthread_mutex_lock(&q->lock);
		q->in_flight[w->k] = -1;
		/* its tests' results took them out of what may be running, each written then */
		q->batch_lo[w->k] = q->batch_hi[w->k] = 0;
		if (r != 0) {
			/* a test that will not die holds this runner's devices: no more for anyone */
			if (!q->rc)
				q->rc = r;
			q->stop = true;
		}
		pthread_mutex_unlock(&q->lock);
		if (r != 0)
			break;
	}
	return NULL;
}

/* Whether every test of tests[0..n) has its result: a stopped queue leaves the rest for the run's resumption. */
static bool all_done(const struct test_result *tests, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tests[i].status == TS_PENDING)
			return false;
	return true;
}

/*
 * The tests of tests[0..n) held for a shared kernel report, each again
 * alone on runner 1: a report that comes again is the test's own, one that
 * does not was another's. Their results go back in place. A queue stopped
 * before that records them as they were.
 */
static int confirm_alone(struct queue *q, struct test_result *tests, size_t n, const bool *held)
{
	struct test_result *again;
	size_t k = 0, j = 0;
	int r;

	for (size_t i = 0; i < n; i++)
		k += held[i];
	if (!k)
		return 0;
	if (q->stop || !(again = calloc(k, sizeof(*again)))) {
		for (size_t i = 0; i < n; i++)
			if (held[i] && base_of(q, &tests[i])->on_result)
				base_of(q, &tests[i])->on_result(base_of(q, &tests[i])->data, &tests[i]);
		return q->stop ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (held[i]) {
			struct test_result *a = &again[j++];

			snprintf(a->name, sizeof(a->name), "%s", tests[i].name);
			a->config_index = tests[i].config_index;
			snprintf(a->shared_finding, sizeof(a->shared_finding), "%s; beside %s", tests[i].reason,
				 tests[i].beside && tests[i].beside[0] ? tests[i].beside : "tests that had ended");
			test_result_release(&tests[i]);
		}
	log_info("%zu test%s failed on a kernel report that named no device beside others: each again alone", k,
		 k == 1 ? "" : "s");
	q->confirming = true;
	r = run_queue(q, 1, again, k, NULL);
	q->confirming = false;
	j = 0;
	for (size_t i = 0; i < n; i++)
		if (held[i])
			tests[i] = again[j++]; /* its heap parts with it */
	free(again);
	return r;
}

int parallel_made_for(const struct parallel_config *configs, size_t n_configs, unsigned k)
{
	for (size_t ci = 0; ci < n_configs; ci++)
		if (k < configs[ci].pool->n && configs[ci].pool->slots[k].test_dev_made)
			return (int)configs[ci].fs_id;
	return -1;
}

int parallel_run(const struct parallel_config *configs, size_t n_configs, struct test_result *tests, size_t n,
		 const struct parallel_queue *pq)
{
	const unsigned runners = n_configs ? configs[0].pool->n : 0;
	const size_t head = pq->head < n ? pq->head : n, par = pq->parallel < n - head ? pq->parallel : n - head;
	struct queue q = { .cfgs = configs, .n_cfgs = n_configs, .pq = pq, .t0 = utctime_monotonic() };
	bool *held = NULL;
	int r = 0;

	if (!runners)
		return -EINVAL;
	q.remake = calloc(runners, sizeof(*q.remake));
	q.serving = pq->serving ? pq->serving : calloc(runners, sizeof(*q.serving));
	q.seen = calloc(2 * n + 1, sizeof(*q.seen)); /* each test, and again alone after a shared report */
	q.batch_t0 = calloc(runners, sizeof(*q.batch_t0));
	q.batch_first = calloc(runners, sizeof(*q.batch_first));
	if (!q.remake || !q.serving || !q.seen || !q.batch_t0 || !q.batch_first) {
		r = -ENOMEM;
		goto out;
	}
	/* each runner's test device as its pool made it: for the config whose pool made it */
	for (unsigned k = 0; k < runners && !pq->serving; k++)
		q.serving[k] = parallel_made_for(configs, n_configs, k);
	q.unknown = sched_median_known(pq->expect, n, &q.known);
	if (head) {
		log_info("a crash's suspects first: %zu tests, one at a time", head);
		/* each in a check of its own: a crash then has one test that may have been running */
		q.one_each = true;
		r = run_queue(&q, 1, tests, head, pq->expect);
		q.one_each = false;
	}
	if (r == 0 && all_done(tests, head)) {
		held = runners > 1 ? calloc(par ? par : 1, sizeof(*held)) : NULL;
		if (runners > 1 && !held) {
			r = -ENOMEM;
			goto out;
		}
		q.held = held;
		r = run_queue(&q, runners, tests + head, par, pq->expect ? pq->expect + head : NULL);
		q.held = NULL;
		if (r == 0 && held)
			r = confirm_alone(&q, tests + head, par, held);
		free(held);
	}
	if (r == 0 && head + par < n && all_done(tests, head + par)) {
		log_info("serial tail: %zu test%s that cannot share the machine (group " SELECT_SERIAL_GROUP
			 " or machine-wide), one at a time",
			 n - head - par, n - head - par == 1 ? "" : "s");
		r = run_queue(&q, 1, tests + head + par, n - head - par, pq->expect ? pq->expect + head + par : NULL);
	}
out:
	free(q.remake);
	if (!pq->serving)
		free(q.serving);
	free(q.seen);
	free(q.batch_t0);
	free(q.batch_first);
	return r;
}

/* One phase of the queue: tests[0..n) over the first runners (their expectations: expect, or NULL). */
static int run_queue(struct queue *q, unsigned runners, struct test_result *tests, size_t n, const double *expect)
{
	struct worker *w = calloc(runners, sizeof(*w));
	unsigned started = 0;
	int r = 0;

	q->runners = runners, q->tests = tests, q->n = n, q->next = 0;
	q->in_flight = calloc(runners, sizeof(*q->in_flight));
	q->batch_lo = calloc(runners, sizeof(*q->batch_lo));
	q->batch_hi = calloc(runners, sizeof(*q->batch_hi));
	q->done = calloc(n ? n : 1, sizeof(*q->done));
	q->end = calloc(n ? n : 1, sizeof(*q->end));
	q->est = calloc(n ? n : 1, sizeof(*q->est));
	q->batch_left = calloc(runners, sizeof(*q->batch_left));
	q->expect = expect ? calloc(n ? n : 1, sizeof(*q->expect)) : NULL;
	if (!w || !q->in_flight || !q->batch_lo || !q->batch_hi || !q->done || !q->end || !q->est || !q->batch_left ||
	    (expect && !q->expect) || pthread_mutex_init(&q->lock, NULL) != 0) {
		free(w);
		free(q->in_flight);
		free(q->batch_lo);
		free(q->batch_hi);
		free(q->done);
		free(q->end);
		free(q->est);
		free(q->batch_left);
		free(q->expect);
		return -ENOMEM;
	}
	if (expect)
		memcpy(q->expect, expect, n * sizeof(*q->expect));
	for (unsigned k = 0; k < runners; k++)
		q->in_flight[k] = -1;
	for (unsigned k = 0; k < runners; k++) {
		w[k] = (struct worker){ .q = q, .k = k };
		r = -pthread_create(&w[k].thread, NULL, work, &w[k]);
		if (r < 0) {
			log_err("start runner %u failed: %s", k + 1, strerror(-r));
			pthread_mutex_lock(&q->lock);
			q->stop = true;
			pthread_mutex_unlock(&q->lock);
			break;
		}
		started++;
	}
	for (unsigned k = 0; k < started; k++)
		pthread_join(w[k].thread, NULL);
	pthread_mutex_destroy(&q->lock);
	free(w);
	free(q->in_flight);
	free(q->batch_lo);
	free(q->batch_hi);
	free(q->done);
	free(q->end);
	free(q->est);
	free(q->batch_left);
	free(q->expect);
	q->batch_lo = q->batch_hi = NULL;
	q->done = NULL;
	q->in_flight = NULL;
	q->end = NULL;
	q->est = NULL;
	q->batch_left = NULL;
	q->expect = NULL;
	return r < 0 ? r : q->rc;
}
