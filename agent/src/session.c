// SPDX-License-Identifier: MIT
/*
 * The boot-time run session (see session.h).
 */
#include "session.h"
#include "bundle.h"
#include "catalog.h"
#include "expunge.h"
#include "mkfs.h"
#include "mount.h"
#include "order.h"
#include "plan.h"
#include "run.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

struct session {
	const struct boot_config *cfg;
	struct inventory *inv;
	const struct plan *plan;
	const char *catalog;
	char host_options[PATH_MAX];
	struct fs_config *fsc; /* per run_config */
	struct run_config *rc;
	size_t n;
};

/* Apply one plan source if it exists; a bad one fills err. */
static int apply_plan_file(struct plan *p, const char *path, const char *source, char *err, size_t es)
{
	_cleanup_free_ char *buf = NULL;
	int r = fileio_read_full(path, &buf, NULL);

	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		snprintf(err, es, "%s: %s", source, strerror(-r));
		return r;
	}
	return plan_apply_file(p, source, buf, err, es);
}

static int load_plan(struct plan *p, const struct boot_config *cfg, const char *results, char *err, size_t es)
{
	char path[PATH_MAX];
	int r;

	r = apply_plan_file(p, SESSION_DEFAULTS, "image:" SESSION_DEFAULTS, err, es);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/plan.conf", results);
	r = apply_plan_file(p, path, "results:/plan.conf", err, es);
	if (r < 0)
		return r;
	for (size_t i = 0; i < cfg->n_plan; i++) {
		char key[256];

		/* report the key as it was written on the command line */
		snprintf(key, sizeof(key), "%s", cfg->plan_keys[i]);
		r = plan_set(p, "kernel command line", 0, key, cfg->plan_values[i], err, es);
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_expunges(const struct plan *p, const char *results, struct expunge_list *l, char *err, size_t es)
{
	for (char **f = p->expunge_files; f && *f; f++) {
		_cleanup_free_ char *buf = NULL;
		char path[PATH_MAX];
		int r;

		snprintf(path, sizeof(path), "%s/%s", results, *f);
		r = fileio_read_full(path, &buf, NULL);
		if (r < 0) {
			snprintf(err, es, "expunge file '%s': %s", *f, strerror(-r));
			return r;
		}
		r = expunge_parse(l, *f, buf, err, es);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Format the test device, check it mounts, and write the config's section. */
static int prepare(void *data, const struct run_config *rc, char *why, size_t size)
{
	struct session *s = data;
	struct fs_config *c = NULL;
	const struct role_slot *test;
	char **caps;
	const char *unmet;
	FILE *f;
	int r;

	for (size_t i = 0; i < s->n; i++)
		if (&s->rc[i] == rc)
			c = &s->fsc[i];
	if (!c)
		return -EINVAL;
	caps = inventory_cap_names(s->inv);
	unmet = catalog_unmet(c, &s->inv->roles, caps,
			      json_object_get(json_object_get(s->inv->doc, "kconfig"), "options"), why, size);
	strv_free(caps);
	if (unmet)
		return 1;
	test = roles_get(&s->inv->roles, ROLE_TEST);
	{
		_cleanup_free_ char *opts = NULL;

		if (asprintf(&opts, "%s %s", c->mkfs ? c->mkfs : "",
			     s->plan->mkfs_options ? s->plan->mkfs_options : "") < 0)
			return -ENOMEM;
		r = mkfs_format(c->fstype, opts, test->dev->devnode, why, size);
		if (r < 0)
			return r;
	}
	fileio_mkdir_p("/mnt/scratch");
	r = mount_device(test->dev->devnode, "/mnt/test", c->fstype, NULL);
	if (r < 0) {
		snprintf(why, size, "mount '%s' (%s) on /mnt/test failed: %s", test->dev->devnode, c->fstype,
			 strerror(-r));
		return r;
	}
	/* check mounts TEST_DEV itself, with TEST_FS_MOUNT_OPTS */
	mount_umount("/mnt/test");
	f = fopen(s->host_options, "ae");
	if (!f) {
		snprintf(why, size, "open '%s' failed: %s", s->host_options, strerror(errno));
		return -errno;
	}
	r = catalog_write_section(c, s->plan, &s->inv->roles, rc->result_base, f, why, size);
	fclose(f);
	return r;
}

int session_run(const struct boot_config *cfg, struct inventory *inv, const char *results, char *summary,
		size_t ss)
{
	struct expunge_list expunges = { 0 };
	struct session s = { .cfg = cfg, .inv = inv, .catalog = cfg->catalog ? cfg->catalog : SESSION_CATALOG };
	const char *fstests = cfg->fstests ? cfg->fstests : SESSION_FSTESTS;
	char err[512] = "", run_id[64], rbase[PATH_MAX], **names = NULL, **sections = NULL;
	struct bundle b = { 0 };
	struct plan plan;
	unsigned bad = 0;
	int r, pr;

	r = plan_init(&plan);
	if (r < 0)
		return r;
	pr = load_plan(&plan, cfg, results, err, sizeof(err));
	if (pr == 0 && !plan.configs[0]) {
		plan_release(&plan);
		snprintf(summary, ss, "no configs in the plan: nothing run");
		return 0;
	}
	if (pr == 0 && plan.order == ORDER_RANDOM && !plan.seed_set) {
		plan.seed = order_new_seed();
		plan.seed_set = true;
	}
	run_new_id(run_id, sizeof(run_id));
	r = bundle_create(&b, results, run_id, plan_to_json(&plan), json_incref(json_object_get(inv->doc, "kernel")));
	if (r < 0) {
		snprintf(summary, ss, "create bundle in '%s' failed: %s", results, strerror(-r));
		plan_release(&plan);
		return r;
	}
	json_decref(json_object_get(b.doc, "plan"));
	json_decref(json_object_get(b.doc, "kernel"));
	bundle_set(&b, "caps", json_incref(inv->doc));
	/* never a run on a misread plan: record the error and stop */
	if (pr < 0 || load_expunges(&plan, results, &expunges, err, sizeof(err)) < 0 ||
	    catalog_expand(s.catalog, plan.configs, &names, err, sizeof(err)) < 0) {
		bundle_set(&b, "error", json_string(err));
		bundle_finish(&b, "error");
		snprintf(summary, ss, "%s", err);
		r = -EINVAL;
		goto out;
	}
	s.plan = &plan;
	s.n = strv_length(names);
	s.fsc = calloc(s.n ? s.n : 1, sizeof(*s.fsc));
	s.rc = calloc(s.n ? s.n : 1, sizeof(*s.rc));
	if (!s.fsc || !s.rc) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s.n; i++) {
		char sec[80];

		if (catalog_load(s.catalog, names[i], &s.fsc[i], err, sizeof(err)) < 0) {
			bundle_set(&b, "error", json_string(err));
			bundle_finish(&b, "error");
			snprintf(summary, ss, "%s", err);
			r = -EINVAL;
			goto out;
		}
		catalog_section_name(&s.fsc[i], sec, sizeof(sec));
		strv_push(&sections, sec);
	}
	snprintf(rbase, sizeof(rbase), "%s/fstests", b.dir);
	snprintf(s.host_options, sizeof(s.host_options), "/run/fsagent/fstests.config");
	fileio_mkdir_p("/run/fsagent");
	{
		static const char head[] = "# written by fsagent, one section per config\n";

		fileio_write_atomic(s.host_options, head, strlen(head));
	}
	for (size_t i = 0; i < s.n; i++)
		s.rc[i] = (struct run_config){ s.fsc[i].name, s.fsc[i].fstype, s.host_options, sections[i], rbase };
	{
		char **caps = inventory_cap_names(inv);
		struct run_opts ro = { .fstests = fstests, .sysrq = true, .plan = &plan, .expunges = &expunges,
				       .configs = s.rc, .n_configs = s.n, .prepare = prepare, .data = &s };

		ro.ctx.kernel = inv->caps.version;
		ro.ctx.arch = json_string_value(json_object_get(json_object_get(inv->doc, "machine"), "arch"));
		ro.ctx.caps = caps;
		r = run_execute(&ro, &b, &bad);
		strv_free(caps);
	}
	/* keep the fstests config fsagent wrote beside the bundle */
	{
		char dst[PATH_MAX + 32];

		snprintf(dst, sizeof(dst), "%s/fstests.config", b.dir);
		bundle_copy_file(s.host_options, dst);
	}
	bundle_finish(&b, r < 0 ? "error" : r == RUNNER_UNKILLABLE ? "stopped" : "complete");
	{
		json_t *counts = json_object_get(b.doc, "counts"), *v;
		const char *k;
		int n = snprintf(summary, ss, "bundle runs/%s:", run_id);

		json_object_foreach(counts, k, v)
			n += snprintf(summary + n, n < (int)ss ? ss - (size_t)n : 0, " %s %lld", k,
				      (long long)json_integer_value(v));
	}
	if (r == 0)
		r = bad ? SESSION_FAILED : 0;
out:
	for (size_t i = 0; s.fsc && i < s.n; i++)
		fs_config_release(&s.fsc[i]);
	free(s.fsc);
	free(s.rc);
	strv_free(names);
	strv_free(sections);
	expunge_list_release(&expunges);
	bundle_release(&b);
	plan_release(&plan);
	return r;
}
