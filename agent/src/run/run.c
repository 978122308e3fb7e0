// SPDX-License-Identifier: MIT
/*
 * Plan execution over configs and iterations (see run.h).
 */
#include "run/run.h"
#include "run/run_internal.h"
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

bool run_soak_active(const struct plan *p)
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

void run_use(struct run_ctx *c, struct run_member *m)
{
	c->cfg = m->cfg;
	c->config = m->config;
	c->iteration = m->iteration;
	c->result_dir = m->result_dir;
	c->cur = m->cs;
	c->pool = m->pool;
}

void run_config_error(struct run_ctx *c, const struct run_member *m, int r, const char *err)
{
	log_err("config '%s': %s", m->cfg->name, err && err[0] ? err : strerror(-r));
	bundle_config_status(m->config, "error", err && err[0] ? err : strerror(-r));
	c->bad++;
}

unsigned run_timeout_for(void *data, const char *test)
{
	const struct run_member *m = data;
	struct run_ctx *c = m->c;
	long fixed = plan_timeout_for(c->o->plan, test);

	return fixed >= 0
		       ? (unsigned)fixed
		       : timeout_auto(history_of(&c->hist, m->cfg->name, test), c->timeout_scale, c->o->plan->fstests);
}

void run_before_check(void *data, const char *test)
{
	struct run_ctx *c = ((struct run_member *)data)->c;
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

int run_on_result(void *data, struct test_result *t)
{
	struct run_ctx *c = ((struct run_member *)data)->c;
	int r;

	run_use(c, data);
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
			       t->runner && t->runner <= c->pool->n ? c->pool->slots[t->runner - 1].result_dir
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
	if (run_soak_active(c->o->plan) && (c->stopped_by = soak_stop(c)))
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

/* The first pool of the queue's configs with devices, for the next config's runners to share. */
static const struct runner_pool *shared_devices(struct run_member *group, struct run_member *m)
{
	for (struct run_member *g = group; g < m; g++)
		for (unsigned k = 0; k < g->pool->n; k++)
			if (g->pool->slots[k].test_dev[0])
				return g->pool;
	return group < m ? group[0].pool : NULL;
}

/*
 * Ready config i (m) to run: the results disk has room, the machine
 * prepares it (false: not run, recorded), its tests were chosen, its
 * runners made (sharing the devices of the queue's configs before it in
 * group). Returns whether it runs.
 */
static bool start_config(struct run_ctx *c, struct run_member *m, struct run_member *group)
{
	const struct run_opts *o = c->o;
	char err[512] = "";
	int r;

	/* no tests whose results cannot be kept */
	if (!results_disk_ok(c->b, err, sizeof(err))) {
		log_err("config '%s' not run: %s", m->cfg->name, err);
		bundle_set(c->b, "error", json_string(err));
		for (size_t k = (size_t)(m->cfg - o->configs); k < o->n_configs; k++)
			bundle_config_status(bundle_add_config(c->b, o->configs[k].name), "error", err);
		c->bad++;
		c->stopped_by = "results disk full";
		bundle_write(c->b);
		return false;
	}
	if (o->prepare) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		r = o->prepare(o->data, m->cfg, err, sizeof(err));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (r != 0) {
			/* a config the machine cannot serve is not a failure */
			log_info("config '%s' %s: %s", m->cfg->name, r > 0 ? "not run" : "failed", err);
			bundle_config_status(m->config, r > 0 ? "notrun" : "error", err);
			c->total -= config_runs(o->plan, m->cfg->name, m->cs);
			history_drop(&c->hist, m->cs->hc.total * plan_iterations_for(o->plan, m->cfg->name));
			c->bad += r < 0;
			bundle_write(c->b);
			return false;
		}
		log_info("config '%s' prepared in %ld ms%s%s", m->cfg->name,
			 (long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000),
			 err[0] ? ": " : "", err);
		/* what serves it (a driver, a server), for the record */
		if (err[0])
			json_object_set_new(m->config, "setup", json_string(err));
	}
	err[0] = '\0';
	r = m->cs->r;
	if (r < 0)
		snprintf(err, sizeof(err), "%s", m->cs->err);
	else
		r = pool_setup(m->pool, o->plan->jobs, o->pool, o->parallel_why, m->cfg->name, m->cfg->host_options,
			       m->cfg->section, &m->cs->sel, shared_devices(group, m), m->config, err, sizeof(err));
	if (r < 0) {
		run_config_error(c, m, r, err);
		bundle_write(c->b);
		return false;
	}
	return true;
}

/* The iterations of ms[0..n) (one config, or several sharing runners); an error is theirs, recorded. */
static int run_group(struct run_ctx *c, struct run_member *ms, size_t n)
{
	int r = iterations_run(c, ms, n);

	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			run_config_error(c, &ms[i], r, NULL);
		r = 0;
	}
	bundle_write(c->b);
	return r;
}

int run_execute(const struct run_opts *o, struct bundle *b, unsigned *ret_bad)
{
	struct run_ctx c = { .o = o, .b = b, .timeout_scale = timeout_scale(o->ctx.caps) };
	unsigned rounds = 0;
	size_t ng;
	int r = 0;

	struct config_sel *cs = calloc(o->n_configs ? o->n_configs : 1, sizeof(*cs));
	struct run_member *group = calloc(o->n_configs ? o->n_configs : 1, sizeof(*group));
	/* group[i]'s runners; a queue's lanes point at them, the config's own */
	struct runner_pool *pools = calloc(o->n_configs ? o->n_configs : 1, sizeof(*pools));

	if (!cs || !group || !pools || history_init(&c.hist, o->durations) < 0) {
		free(cs);
		free(group);
		free(pools);
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
		/* configs one at a time run in their turn; those with runners share them, in one queue, last */
		ng = 0;
		for (size_t i = 0; i < o->n_configs && r != RUNNER_UNKILLABLE && !c.stopped_by; i++) {
			struct run_member *m = &group[ng];

			pools[ng] = (struct runner_pool){ 0 };
			*m = (struct run_member){ .c = &c, .cfg = &o->configs[i], .cs = &cs[i], .pool = &pools[ng] };
			m->config = bundle_add_config(b, m->cfg->name);
			if (bundle_config_done(m->config, c.base + plan_iterations_for(o->plan, m->cfg->name)))
				continue; /* resumed: finished or recorded before the crash */
			if (!start_config(&c, m, group)) {
				if (c.stopped_by)
					break;
				continue;
			}
			if (m->pool->n) {
				ng++; /* beside the others, after the configs that run one at a time */
				continue;
			}
			r = run_group(&c, m, 1);
		}
		if (ng && r != RUNNER_UNKILLABLE && !c.stopped_by)
			r = run_group(&c, group, ng);
		for (size_t i = ng; i-- > 0;)
			pool_release(group[i].pool);
		rounds++;
		if (r == RUNNER_UNKILLABLE || !run_soak_active(o->plan) || c.stopped_by ||
		    (c.stopped_by = soak_stop(&c)))
			break;
		log_info("soak: round %u done, starting the next", rounds);
		c.base += plan_iterations_max(o->plan);
	}
	if (run_soak_active(o->plan))
		bundle_set(b, "soak", json_pack("{s:i, s:s?}", "rounds", (int)rounds, "stopped_by", c.stopped_by));
	*ret_bad = c.bad;
out:
	for (size_t i = 0; i < o->n_configs; i++)
		selection_release(&cs[i].sel);
	free(cs);
	free(group);
	free(pools);
	gcov_free(c.gcov);
	history_release(&c.hist);
	return r;
}
