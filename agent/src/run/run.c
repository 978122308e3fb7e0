// SPDX-License-Identifier: MIT
/*
 * Plan execution over configs and iterations (see run.h).
 */
#include "run/run.h"
#include "model/console.h"
#include "model/result.h"
#include "model/shard.h"
#include "model/timeout.h"
#include "run/gcov.h"
#include "run/history.h"
#include "run/arrange.h"
#include "run/parallel.h"
#include "run/pool.h"
#include "model/order.h"
#include "run/runner.h"
#include "run/select.h"
#include "run/shard_keep.h"
#include "util/utctime.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

struct run_ctx {
	const struct run_opts *o;
	const struct run_config *cfg;
	struct bundle *b;
	json_t *config, *iteration;
	char result_dir[PATH_MAX];
	unsigned bad;
	unsigned base;	   /* the first iteration index of this round */
	long long soak_t0; /* when the run started, for soak.duration */
	const char *stopped_by;
	/* progress through this round, for the "[k/N]" console lines hosts follow */
	size_t done, total;
	struct gcov *gcov;	      /* per-test coverage, or NULL */
	double timeout_scale;	      /* the kernel's slowdown, for timeout = auto */
	struct history hist;	      /* the tests' durations: the plan's file and this run's */
	const struct config_sel *cur; /* the config running */
	struct runner_pool pool;      /* its parallel runners (plan key jobs), or none */
};

static bool soak_active(const struct plan *p)
{
	return p->soak_duration || p->soak_deadline || p->soak_stop_file;
}

/* Why a soak must stop now, or NULL. */
static const char *soak_stop(const struct run_ctx *c)
{
	const struct plan *p = c->o->plan;
	long long now = (long long)time(NULL);

	if (p->soak_stop_file && c->o->results) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", c->o->results, p->soak_stop_file);
		if (access(path, F_OK) == 0)
			return "stop file";
	}
	if (p->soak_duration && now - c->soak_t0 >= (long long)p->soak_duration)
		return "duration";
	if (p->soak_deadline && now >= p->soak_deadline)
		return "deadline";
	return NULL;
}

void run_new_id(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;
	char ts[32];

	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(buf, size, "%s-%04x", ts, (unsigned)(order_new_seed() & 0xffff));
}

static unsigned timeout_for(void *data, const char *test)
{
	struct run_ctx *c = data;
	long fixed = plan_timeout_for(c->o->plan, test);

	return fixed >= 0
		       ? (unsigned)fixed
		       : timeout_auto(history_of(&c->hist, c->cfg->name, test), c->timeout_scale, c->o->plan->fstests);
}

static void before_check(void *data, const char *test)
{
	struct run_ctx *c = data;
	int r = gcov_reset(c->gcov);

	if (r < 0)
		log_warn("coverage: reset before %s failed: %s", test, strerror(-r));
}

/* The test's gcov data into the bundle, before its record names it. */
static void save_coverage(struct run_ctx *c, struct test_result *t)
{
	char abs[PATH_MAX], rel[PATH_MAX];
	int r = bundle_coverage_dir(c->b, c->config, c->iteration, t->name, abs, sizeof(abs), rel, sizeof(rel));

	if (r >= 0)
		r = gcov_save(c->gcov, abs, &t->coverage_files);
	if (r < 0) {
		log_warn("coverage: saving %s's gcov data failed: %s", t->name, strerror(-r));
		return;
	}
	t->has_coverage = true;
}

static int on_result(void *data, struct test_result *t)
{
	struct run_ctx *c = data;
	int r;

	if (c->gcov && t->status != TS_EXPUNGED && t->status != TS_NOTRUN)
		save_coverage(c, t);
	if (test_status_failed(t->status))
		c->bad++;
	/* for the limits of its later runs (iterations, reruns, soak rounds) */
	history_learn(&c->hist, c->cfg->name, t);
	c->done++;
	if (c->o->after_test && c->o->after_test(c->o->data, c->cfg, t->name, t->server, sizeof(t->server)) > 0)
		log_warn("config '%s': during %s: %s", c->cfg->name, t->name, t->server);
	r = bundle_record_test(c->b, c->config, c->iteration, t,
			       t->runner && t->runner <= c->pool.n ? c->pool.slots[t->runner - 1].result_dir
								   : c->result_dir);
	if (r < 0)
		log_err("record %s in bundle '%s' failed: %s", t->name, c->b->dir, strerror(-r));
	/* the progress line fsagent console follows (model/console.h), once the bundle has the test:
	 * a host that stops the VM on seeing it keeps that run */
	{
		char line[CONSOLE_LINE_MAX];

		console_format_progress(line, sizeof(line), c->done, c->total, c->cfg->name, t->name, t->status,
					t->duration, history_left_after(&c->hist, c->cur ? &c->cur->hc : NULL, t),
					t->reason);
		log_info("%s", line);
	}
	/* recorded: its excerpt and kernel log need not stay in memory for the batch */
	test_result_release(t);
	/* a soak stops between tests once its time is up or the stop file appears */
	if (soak_active(c->o->plan) && (c->stopped_by = soak_stop(c)))
		return 1;
	return 0;
}

static void select_config(const struct run_opts *o, const struct run_config *cfg, struct config_sel *cs)
{
	struct expunge_ctx ectx = o->ctx;

	ectx.fs = cfg->fstype;
	ectx.config = cfg->name;
	cs->r = select_tests(o->fstests, cfg->fstype, o->plan, o->expunges, &ectx, &cs->sel, cs->err, sizeof(cs->err));
	for (size_t i = 0; cs->r >= 0 && i < cs->sel.n; i++)
		cs->n_run += cs->sel.v[i].state == SEL_RUN;
}

/* The runs of a config's selected tests over a round: each runs its iterations (iterations.<config>/<test>). */
static size_t config_runs(const struct plan *p, const char *config, const struct config_sel *cs)
{
	size_t n = 0;

	for (size_t i = 0; cs->r >= 0 && i < cs->sel.n; i++)
		if (cs->sel.v[i].state == SEL_RUN)
			n += plan_iterations_of(p, config, cs->sel.v[i].name);
	return n;
}

/* This round's tests, and those a resumed run already has in it. */
static void count_round(struct run_ctx *c, const struct config_sel *cs)
{
	const struct run_opts *o = c->o;

	double hist = 0;

	c->total = c->done = 0;
	for (size_t i = 0; i < o->n_configs; i++) {
		json_t *config = bundle_add_config(c->b, o->configs[i].name);

		if (!streq(json_string_value(json_object_get(config, "status")) ?: "run", "run"))
			continue; /* recorded as not run before a crash */
		const unsigned iters = plan_iterations_for(o->plan, o->configs[i].name);

		c->total += config_runs(o->plan, o->configs[i].name, &cs[i]);
		/* an estimate only when the durations file knows every config */
		hist = cs[i].hc.total < 0 || hist < 0 ? -1 : hist + cs[i].hc.total * iters;
		for (unsigned k = 0; k < iters; k++) {
			json_t *it = bundle_find_iteration(config, c->base + k);
			char **left = NULL;

			if (it && json_is_true(json_object_get(it, "folded")))
				c->done += cs[i].n_run; /* a clean soak iteration: no order kept */
			else if (it && bundle_remaining(c->b, config, it, &left) == 0) {
				c->done += json_array_size(json_object_get(it, "order")) - strv_length(left);
				strv_free(left);
			}
		}
	}
	history_round(&c->hist, hist, c->done, c->total);
}

static int run_config_iterations(struct run_ctx *c, const struct config_sel *cs, char *err, size_t es);

/* The tests a parallel iteration has in flight, in bundle.json at once: a crash's suspects. */
static void in_flight(void *data, char *const *names)
{
	struct run_ctx *c = data;
	int r = bundle_set_in_flight(c->b, c->iteration, names);

	if (r < 0)
		log_warn("record the tests in flight in '%s' failed: %s", c->b->dir, strerror(-r));
}

static int run_one_config(struct run_ctx *c, const struct config_sel *cs, char *err, size_t es)
{
	int r = cs->r < 0 ? 0
			  : pool_setup(&c->pool, c->o->plan->jobs, c->o->pool, c->o->parallel_why, c->cfg->name,
				       c->cfg->host_options, c->cfg->section, &cs->sel, c->config, err, es);

	if (r >= 0) {
		r = run_config_iterations(c, cs, err, es);
		pool_release(&c->pool);
	}
	return r;
}

static int run_config_iterations(struct run_ctx *c, const struct config_sel *cs, char *err, size_t es)
{
	const struct run_opts *o = c->o;
	const struct plan *p = o->plan;
	const struct selection *sel = &cs->sel;
	int r = cs->r;

	if (r < 0) {
		snprintf(err, es, "%s", cs->err);
		return r;
	}
	if (c->cfg->section)
		snprintf(c->result_dir, sizeof(c->result_dir), "%s/%s", c->cfg->result_base, c->cfg->section);
	else
		snprintf(c->result_dir, sizeof(c->result_dir), "%s", c->cfg->result_base);

	for (unsigned k = 0;
	     k < plan_iterations_for(p, c->cfg->name) && r >= 0 && r != RUNNER_UNKILLABLE && !c->stopped_by; k++) {
		const unsigned it = c->base + k;
		char **order = NULL, seedbuf[32] = "";
		struct test_result *tests;
		double *expect;
		size_t n = 0;
		struct parallel_queue pq = { .in_flight = in_flight, .data = c };
		struct runner_opts ro = {
			.fstests = o->fstests,
			.host_options = c->cfg->host_options,
			.section = c->cfg->section,
			.overlay = c->cfg->overlay,
			.kmsg = o->kmsg,
			.sysrq = o->sysrq,
			.rerun_failures = p->rerun_failures,
			.timeout_for = timeout_for,
			.on_result = on_result,
			.data = c,
			/* coverage is per test: a check of its own, counters reset before it */
			.one_per_check = c->gcov != NULL,
			.before_check = c->gcov ? before_check : NULL,
		};

		c->iteration = bundle_find_iteration(c->config, it);
		if (c->iteration) {
			/* resuming: the recorded order, minus what already has a result */
			r = bundle_remaining(c->b, c->config, c->iteration, &order);
			if (r < 0) {
				snprintf(err, es, "read the journal of iteration %u: %s", it, strerror(-r));
				return r;
			}
		} else {
			/* a test with fewer iterations of its own sits out the later ones */
			for (size_t i = 0; i < sel->n; i++)
				if (sel->v[i].state == SEL_RUN &&
				    k < plan_iterations_of(p, c->cfg->name, sel->v[i].name) &&
				    strv_push(&order, sel->v[i].name) < 0) {
					strv_free(order);
					return -ENOMEM;
				}
			if (p->order == ORDER_RANDOM) {
				uint64_t s = order_derive_seed(p->seed, it, c->cfg->name);

				snprintf(seedbuf, sizeof(seedbuf), "%" PRIu64, s);
				order_shuffle(order, strv_length(order), s);
			}
			if (p->jobs > 1) {
				uint64_t s = order_derive_seed(p->seed, it, c->cfg->name);

				r = arrange_longest_first(order, &c->hist, c->cfg->name, s);
				if (r == 0 && c->pool.n)
					r = arrange_queue(order, sel, NULL, &pq.head, &pq.parallel);
				if (r < 0) {
					strv_free(order);
					return r;
				}
				if (!seedbuf[0])
					snprintf(seedbuf, sizeof(seedbuf), "%" PRIu64, s);
			}
			c->iteration = bundle_add_iteration(c->b, c->config, it, seedbuf[0] ? seedbuf : NULL, order);
			if (!c->iteration) {
				snprintf(err, es, "create the journal of iteration %u in '%s' failed", it, c->b->dir);
				strv_free(order);
				return -EIO;
			}
			for (size_t i = 0; i < sel->n; i++)
				if (sel->v[i].state == SEL_EXPUNGED || sel->v[i].state == SEL_UNKNOWN) {
					bundle_record_skipped(c->b, c->config, c->iteration, sel->v[i].name,
							      sel->v[i].state == SEL_EXPUNGED ? "expunged" : "error",
							      sel->v[i].reason, sel->v[i].source);
					c->bad += sel->v[i].state == SEL_UNKNOWN;
				}
		}
		/* beside others: a crash's suspects first, the tests that cannot share the machine last */
		if (c->pool.n && (r = arrange_for_run(order, sel, c->iteration, &pq.head, &pq.parallel)) < 0) {
			strv_free(order);
			return r;
		}
		bundle_write(c->b);
		n = strv_length(order);
		tests = calloc(n ? n : 1, sizeof(*tests));
		if (!tests) {
			strv_free(order);
			return -ENOMEM;
		}
		/* what each is expected to take, for the parallel queue's batches */
		expect = c->pool.n ? calloc(n ? n : 1, sizeof(*expect)) : NULL;
		for (size_t i = 0; i < n; i++) {
			snprintf(tests[i].name, sizeof(tests[i].name), "%s", order[i]);
			if (expect)
				expect[i] = history_of(&c->hist, c->cfg->name, order[i]);
		}
		pq.expect = expect;
		r = !n ? 0 : c->pool.n ? parallel_run(&ro, &c->pool, tests, n, &pq) : runner_run(&ro, tests, n);
		free(expect);
		if (r == 0 && c->pool.n)
			arrange_suspects_done(c->iteration, pq.head);
		for (size_t i = 0; i < n; i++)
			test_result_release(&tests[i]);
		free(tests);
		strv_free(order);
		if (r == 0) {
			bundle_iteration_end(c->iteration, c->stopped_by ? "stopped" : "done");
			/* a soak keeps counts for clean iterations, records for failing ones */
			if (soak_active(p) && bundle_fold_iteration(c->b, c->config, c->iteration) < 0)
				log_warn("fold iteration %u of '%s' into the aggregate failed", it, c->cfg->name);
			bundle_write(c->b);
		}
	}
	return r;
}

/* A resumed run goes on in the round of its last recorded iteration. */
static unsigned resume_base(struct bundle *b, unsigned iterations)
{
	json_t *c, *it;
	size_t i, k;
	json_int_t max = -1;

	json_array_foreach(json_object_get(b->doc, "configs"), i, c)
		json_array_foreach(json_object_get(c, "iterations"), k, it)
			if (json_integer_value(json_object_get(it, "index")) > max)
				max = json_integer_value(json_object_get(it, "index"));
	return max < 0 ? 0 : (unsigned)(max / iterations) * iterations;
}

static long long started_at(struct bundle *b)
{
	long long t;

	if (utctime_parse(json_string_value(json_object_get(b->doc, "started")), &t) < 0)
		return (long long)time(NULL);
	return t;
}

/*
 * Whether the results disk can take a config's results: the records a full
 * disk held back are written, and RUN_MIN_FREE bytes are free. Fills why.
 */
static bool results_disk_ok(struct bundle *b, char *why, size_t size)
{
	struct statvfs sv;
	unsigned long long free_bytes;

	/* records held back get their chance (the last config's end wrote bundle.json already) */
	if (bundle_records_lost(b))
		bundle_write(b);
	if (bundle_records_lost(b)) {
		snprintf(why, size, "the results disk is full: %zu test records could not be written",
			 bundle_records_lost(b));
		return false;
	}
	if (statvfs(b->dir, &sv) < 0)
		return true; /* nothing known: the writes will tell */
	free_bytes = (unsigned long long)sv.f_bavail * sv.f_frsize;
	if (free_bytes < RUN_MIN_FREE) {
		snprintf(why, size,
			 "the results disk is full: %llu KiB free, a config needs %u KiB to record its results",
			 free_bytes / 1024, RUN_MIN_FREE / 1024);
		return false;
	}
	return true;
}

int run_execute(const struct run_opts *o, struct bundle *b, unsigned *ret_bad)
{
	struct run_ctx c = { .o = o, .b = b, .timeout_scale = timeout_scale(o->ctx.caps) };
	unsigned rounds = 0;
	int r = 0;

	struct config_sel *cs = calloc(o->n_configs ? o->n_configs : 1, sizeof(*cs));

	if (!cs || history_init(&c.hist, o->durations) < 0) {
		free(cs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < o->n_configs; i++)
		select_config(o, &o->configs[i], &cs[i]);
	if (o->plan->coverage && o->plan->coverage[0]) {
		char err[512];

		r = o->plan->jobs > 1 ? -EINVAL : 0;
		if (r < 0)
			snprintf(err, sizeof(err),
				 "plan key 'coverage': a test's counters are its own only one test at a "
				 "time; jobs = %u asks for more",
				 o->plan->jobs);
		else
			r = gcov_open(o->gcov_root ? o->gcov_root : "/sys/kernel/debug/gcov", o->plan->coverage,
				      &c.gcov, err, sizeof(err));
		if (r < 0) {
			log_err("%s", err);
			bundle_set(b, "error", json_string(err));
			goto out;
		}
	}
	if (o->plan->shards > 1 && (r = shard_keep(o, cs, b)) < 0)
		goto out;
	/* the tests this VM runs, by the durations file, for the progress lines' estimate */
	for (size_t i = 0; i < o->n_configs; i++)
		if (cs[i].r >= 0)
			history_config(&c.hist, o->configs[i].name, &cs[i].sel, &cs[i].hc);
		else
			cs[i].hc.total = -1;
	/* a round spans the most iterations any config runs (iterations.<config>) */
	c.base = resume_base(b, plan_iterations_max(o->plan));
	c.soak_t0 = started_at(b);
	for (;;) {
		count_round(&c, cs);
		log_info(CONSOLE_PLAN "%zu tests to run (%zu configs x %u iterations)%s%s", c.total, o->n_configs,
			 o->plan->iterations, c.done ? ", some done before" : "",
			 json_object_size(o->plan->config_iterations) ? ", some configs weighted" : "");
		for (size_t i = 0; i < o->n_configs && r != RUNNER_UNKILLABLE && !c.stopped_by; i++) {
			char err[512] = "";

			c.cfg = &o->configs[i];
			c.cur = &cs[i];
			c.config = bundle_add_config(b, c.cfg->name);
			if (bundle_config_done(c.config, c.base + plan_iterations_for(o->plan, c.cfg->name)))
				continue; /* resumed: finished or recorded before the crash */
			/* no tests whose results cannot be kept */
			if (!results_disk_ok(b, err, sizeof(err))) {
				log_err("config '%s' not run: %s", c.cfg->name, err);
				bundle_set(b, "error", json_string(err));
				for (size_t k = i; k < o->n_configs; k++)
					bundle_config_status(bundle_add_config(b, o->configs[k].name), "error", err);
				c.bad++;
				c.stopped_by = "results disk full";
				bundle_write(b);
				break;
			}
			if (o->prepare) {
				struct timespec t0, t1;
				int p;

				clock_gettime(CLOCK_MONOTONIC, &t0);
				p = o->prepare(o->data, c.cfg, err, sizeof(err));
				clock_gettime(CLOCK_MONOTONIC, &t1);
				if (p == 0) {
					log_info("config '%s' prepared in %ld ms%s%s", c.cfg->name,
						 (long)((t1.tv_sec - t0.tv_sec) * 1000 +
							(t1.tv_nsec - t0.tv_nsec) / 1000000),
						 err[0] ? ": " : "", err);
					/* what serves it (a driver, a server), for the record */
					if (err[0])
						json_object_set_new(c.config, "setup", json_string(err));
				}
				if (p != 0) {
					/* a config the machine cannot serve is not a failure */
					log_info("config '%s' %s: %s", c.cfg->name, p > 0 ? "not run" : "failed", err);
					bundle_config_status(c.config, p > 0 ? "notrun" : "error", err);
					c.total -= config_runs(o->plan, c.cfg->name, &cs[i]);
					history_drop(&c.hist,
						     cs[i].hc.total * plan_iterations_for(o->plan, c.cfg->name));
					c.bad += p < 0;
					bundle_write(b);
					continue;
				}
			}
			r = run_one_config(&c, &cs[i], err, sizeof(err));
			if (r < 0) {
				log_err("config '%s': %s", c.cfg->name, err[0] ? err : strerror(-r));
				bundle_config_status(c.config, "error", err[0] ? err : strerror(-r));
				c.bad++;
				r = 0;
			}
			bundle_write(b);
		}
		rounds++;
		if (r == RUNNER_UNKILLABLE || !soak_active(o->plan) || c.stopped_by || (c.stopped_by = soak_stop(&c)))
			break;
		log_info("soak: round %u done, starting the next", rounds);
		c.base += plan_iterations_max(o->plan);
	}
	if (soak_active(o->plan))
		bundle_set(b, "soak", json_pack("{s:i, s:s?}", "rounds", (int)rounds, "stopped_by", c.stopped_by));
	*ret_bad = c.bad;
out:
	for (size_t i = 0; i < o->n_configs; i++)
		selection_release(&cs[i].sel);
	free(cs);
	gcov_free(c.gcov);
	history_release(&c.hist);
	return r;
}
