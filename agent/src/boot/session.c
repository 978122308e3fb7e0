// SPDX-License-Identifier: MIT
/*
 * The boot-time run session (see session.h).
 */
#include "boot/session.h"
#include "boot/session_internal.h"
#include "boot/runners.h"
#include "boot/crash.h"
#include "model/bundle.h"
#include "model/console.h"
#include "model/kmsg.h"
#include "model/result.h"
#include "boot/catalog.h"
#include "boot/loopback.h"
#include "machine/mkfs.h"
#include "machine/mount.h"
#include "model/plan.h"
#include "model/plan_resolve.h"
#include "boot/results.h"
#include "run/run.h"
#include "run/runner.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

/* session_run passes RUNNER_UNKILLABLE on: its own outcomes must not be taken for it */
_Static_assert(SESSION_FAILED != RUNNER_UNKILLABLE && SESSION_NOTHING_RAN != RUNNER_UNKILLABLE,
	       "session outcomes collide with RUNNER_UNKILLABLE");

#define CRASH_LOOP_BOOTS 3 /* boots in a row without a new result before a run stops */

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

int session_load_plan(struct plan *p, const struct boot_config *cfg, const char *results, char *err, size_t es)
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

/*
 * The boots of a run, for crash-loop detection: written once a boot has
 * started testing ("testing": true) and again when it stops, also for a
 * deliberate reboot. Which test was in flight when a boot ended while
 * testing needs no record: it is the first of the running iteration's
 * order without a result in its journal.
 */
static void progress_write(struct progress *pg, bool testing)
{
	json_auto_t *j = json_pack("{s:s, s:I, s:i, s:i, s:I, s:b}", "run_id", pg->run_id, "boot_started",
				   (json_int_t)time(NULL), "boots", pg->boots, "stalled_boots", pg->stalled, "recorded",
				   (json_int_t)pg->recorded, "testing", testing);
	int r = j ? results_write_json(pg->dir, "progress.json", j) : -ENOMEM;

	if (r < 0)
		log_err("write '%s/progress.json' failed: %s", pg->dir, strerror(-r));
}

/*
 * c's section into its own file, the one check gets, and appended to the
 * file of every config's. Its own: the real check loads a config file's
 * FIRST section before -s picks one (common/config:892) and mounts that
 * section's TEST_DEV as its FSTYP (check:365), so a file of several sections
 * fails every config whose filesystem differs from the first's, and carries
 * the first's USE_EXTERNAL and log devices into the others of its type.
 */
static int write_sections(struct session *s, const struct fs_config *c, const struct run_config *rc, char *why,
			  size_t size)
{
	_cleanup_free_ char *text = NULL, *own = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int r;

	if (!f)
		return -ENOMEM;
	r = catalog_write_section(c, s->plan, &s->inv->roles, rc->result_base, f, why, size);
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	if (asprintf(&own, "# written by fsagent: config %s alone (check reads a file's first section first)\n%s",
		     c->name, text) < 0)
		return -ENOMEM;
	r = fileio_write_atomic(rc->host_options, own, strlen(own));
	if (r < 0) {
		snprintf(why, size, "write '%s' failed: %s", rc->host_options, strerror(-r));
		return r;
	}
	f = fopen(s->host_options, "ae");
	if (!f) {
		snprintf(why, size, "open '%s' failed: %s", s->host_options, strerror(errno));
		return -errno;
	}
	fputs(text, f);
	fclose(f);
	return 0;
}

/*
 * Which driver serves an ext2 or ext3 format (why gets it, for the record):
 * ext3's own driver left Linux in 4.3, the ext4 driver serves it since;
 * ext2's own serves ext2 where it is built (CONFIG_EXT2_FS), else the ext4
 * driver does (CONFIG_EXT4_USE_FOR_EXT2).
 */
static void ext_driver(const struct session *s, const struct fs_config *c, char *why, size_t size)
{
	const json_t *opts = json_object_get(json_object_get(s->inv->doc, "kconfig"), "options");
	const char *ext2 = json_string_value(json_object_get(opts, "EXT2_FS"));
	const bool own = streq(c->fstype, "ext2") && ext2 && !streq(ext2, "n");

	why[0] = '\0';
	if (streq(c->fstype, "ext2") || streq(c->fstype, "ext3"))
		snprintf(why, size, "the %s format on the %s driver", c->fstype, own ? "ext2" : "ext4");
}

/* Format the test device, check it mounts, and write the config's section. */
int session_prepare(void *data, const struct run_config *rc, char *why, size_t size)
{
	struct session *s = data;
	struct fs_config *c = NULL;
	const struct role_slot *test;
	char **caps;
	const char *unmet;
	int r;

	for (size_t i = 0; i < s->n; i++)
		if (&s->rc[i] == rc)
			c = &s->fsc[i];
	if (!c)
		return -EINVAL;
	caps = inventory_cap_names(s->inv);
	{
		const struct catalog_machine m = {
			.roles = &s->inv->roles,
			.caps = caps,
			.kconfig_options = json_object_get(json_object_get(s->inv->doc, "kconfig"), "options"),
			.kernel = s->inv->caps.version_ok ? &s->inv->caps.version : NULL,
		};

		unmet = catalog_unmet(c, &m, why, size);
	}
	strv_free(caps);
	if (unmet)
		return 1;
	why[0] = '\0'; /* from here: on success, what serves the config, if anything */
	test = roles_get(&s->inv->roles, catalog_test_role(c));
	/* the last config's server lets go of the devices first */
	loopback_stop(s->server);
	s->server = NULL;
	/* what check left mounted when it stopped early (a _fatal) would make mkfs refuse */
	mount_umount("/mnt/test");
	mount_umount("/mnt/scratch");
	fileio_mkdir_p("/mnt/scratch");
	if (c->devices & CAT_DEV_NONE) {
		/* nothing to format: check mounts TEST_DEV's name as FSTYP itself */
		fileio_mkdir_p("/mnt/test");
		return write_sections(s, c, rc, why, size);
	}
	{
		_cleanup_free_ char *opts = NULL;

		if (asprintf(&opts, "%s %s", c->mkfs ? c->mkfs : "",
			     s->plan->mkfs_options ? s->plan->mkfs_options : "") < 0)
			return -ENOMEM;
		if (c->export_fstype[0]) {
			char logdir[PATH_MAX + 80], section[80];

			/* the daemons' logs kept in the bundle; one that cannot start: the config is not run */
			catalog_section_name(c, section, sizeof(section));
			snprintf(logdir, sizeof(logdir), "%s/servers/%s", s->pg.dir, section);
			fileio_mkdir_p("/mnt/test");
			const char *sdev = roles_get(&s->inv->roles, catalog_scratch_role(c))->dev->devnode;

			r = loopback_start(c, opts, test->dev->devnode, sdev, logdir, &s->server, why, size);
			if (r < 0)
				return 1;
			r = write_sections(s, c, rc, why, size);
			if (r == 0)
				snprintf(why, size, "the guest's %s server, exporting %s on %s and %s",
					 streq(c->fstype, "nfs") ? "NFS" : "SMB (Samba)", c->export_fstype,
					 test->dev->devnode, sdev);
			return r;
		}
		r = mkfs_format(c->fstype, opts, test->dev->devnode, why, size);
		/* overlay: check formats neither device, both must hold the base fs (README.overlay) */
		if (r == 0 && c->overlay)
			r = mkfs_format(c->fstype, opts,
					roles_get(&s->inv->roles, catalog_scratch_role(c))->dev->devnode, why, size);
		if (r < 0)
			return r;
	}
	r = mount_device(test->dev->devnode, "/mnt/test", c->fstype, NULL);
	if (r < 0) {
		snprintf(why, size, "mount '%s' (%s) on /mnt/test failed: %s", test->dev->devnode, c->fstype,
			 strerror(-r));
		return r;
	}
	/* check mounts TEST_DEV itself, with TEST_FS_MOUNT_OPTS */
	mount_umount("/mnt/test");
	r = write_sections(s, c, rc, why, size);
	if (r == 0)
		ext_driver(s, c, why, size);
	return r;
}

/* Between tests: the loopback server's daemons that died, started again. */
static int after_test(void *data, const struct run_config *rc, const char *test, char *note, size_t size)
{
	struct session *s = data;
	int r;

	(void)rc;
	(void)test;
	r = loopback_check(s->server, note, size);
	return r != 0;
}

/*
 * Resume the run the results disk names in current-run, or begin one: the
 * bundle open in *b, s->run_id set. Returns 0, 1 when the resumed run keeps
 * crashing (its bundle stopped, summary saying so), or -errno.
 */
static int open_run(struct session *s, struct plan *plan, struct bundle *b, char *summary, size_t ss)
{
	_cleanup_free_ char *resume_id = NULL;
	json_auto_t *progress = NULL;
	char ppath[PATH_MAX + 32], err[1024], crash_why[512] = "";
	json_t *seed;
	int r;

	if (fileio_read_line(s->cur, &resume_id) < 0 || !resume_id[0] || bundle_open(b, s->results, resume_id) < 0) {
		run_new_id(s->run_id, sizeof(s->run_id));
		r = bundle_create(b, s->results, s->run_id, plan_to_json(plan),
				  json_incref(json_object_get(s->inv->doc, "kernel")));
		if (r < 0) {
			snprintf(summary, ss, "create bundle in '%s' failed: %s", s->results, strerror(-r));
			return r;
		}
		bundle_set(b, "caps", json_incref(s->inv->doc));
		bundle_set(b, "userspace", json_incref(json_object_get(s->inv->doc, "userspace")));
		s->pg.boots = 1;
		return 0;
	}
	snprintf(s->run_id, sizeof(s->run_id), "%s", resume_id);
	snprintf(ppath, sizeof(ppath), "%s/progress.json", b->dir);
	progress = json_load_file(ppath, 0, NULL);
	/* the orders not yet drawn come from the run's own seed */
	seed = json_object_get(json_object_get(b->doc, "plan"), "seed");
	if (json_is_string(seed)) {
		plan->seed = strtoull(json_string_value(seed), NULL, 10);
		plan->seed_set = true;
	}
	s->pg.boots = (int)json_integer_value(json_object_get(progress, "boots")) + 1;
	s->pg.stalled = (int)json_integer_value(json_object_get(progress, "stalled_boots"));
	if (!json_is_false(json_object_get(progress, "testing")))
		crash_record(b, crash_why, sizeof(crash_why));
	s->pg.recorded = bundle_count_recorded(b);
	if ((json_int_t)s->pg.recorded <= json_integer_value(json_object_get(progress, "recorded")))
		s->pg.stalled++;
	else
		s->pg.stalled = 0;
	log_info("resuming run %s (boot %d)", s->run_id, s->pg.boots);
	bundle_set(b, "state", json_string("running"));
	bundle_set(b, "boots", json_integer(s->pg.boots));
	bundle_write(b);
	if (s->pg.stalled < CRASH_LOOP_BOOTS)
		return 0;
	snprintf(err, sizeof(err), "run keeps crashing: %d boots in a row without a new result%s%s", s->pg.stalled,
		 crash_why[0] ? "; " : "", crash_why);
	bundle_set(b, "error", json_string(err));
	bundle_finish(b, "stopped");
	unlink(s->cur);
	snprintf(summary, ss, "%s (bundle runs/%s)", err, s->run_id);
	return 1;
}

/* The plan's configs from the catalog, each with its run_config and fstests section. Returns 0 or -errno. */
int session_load_configs(struct session *s, char ***sections, char *err, size_t es)
{
	char **names = NULL;
	int r = catalog_expand(s->catalog, s->plan->configs, &names, err, es);
	size_t n = strv_length(names);

	if (r < 0)
		return r;
	s->fsc = calloc(n ? n : 1, sizeof(*s->fsc));
	s->rc = calloc(n ? n : 1, sizeof(*s->rc));
	if (!s->fsc || !s->rc) {
		snprintf(err, es, "out of memory");
		strv_free(names);
		return -ENOMEM;
	}
	snprintf(s->rbase, sizeof(s->rbase), "%s/fstests", s->pg.dir);
	for (s->n = 0; s->n < n; s->n++) {
		char sec[80];

		r = catalog_load(s->catalog, names[s->n], &s->fsc[s->n], err, es);
		if (r < 0) {
			fs_config_release(&s->fsc[s->n]);
			break;
		}
		catalog_section_name(&s->fsc[s->n], sec, sizeof(sec));
		strv_push(sections, sec);
	}
	strv_free(names);
	if (r < 0)
		return r;
	s->config_files = strv_split("", ",");
	for (size_t i = 0; s->config_files && i < s->n; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/fstests.%s.config", FSAGENT_RUN_DIR, (*sections)[i]);
		if (strv_push(&s->config_files, path) < 0)
			break;
	}
	if (strv_length(s->config_files) != s->n) {
		snprintf(err, es, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n; i++)
		s->rc[i] = (struct run_config){ .name = s->fsc[i].name,
						/* an overlay config runs overlay's tests under overlay's rules */
						.fstype = s->fsc[i].overlay ? "overlay" : s->fsc[i].fstype,
						.host_options = s->config_files[i],
						.section = (*sections)[i],
						.result_base = s->rbase,
						.overlay = s->fsc[i].overlay };
	return 0;
}

/* "bundle runs/<id>: pass N fail N ...", and what went wrong with the run. */
static void write_summary(const struct session *s, const struct bundle *b, char *summary, size_t ss)
{
	json_t *counts = json_object_get(b->doc, "counts"), *v;
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	const char *k;

	if (!f) {
		snprintf(summary, ss, "bundle runs/%s", s->run_id);
		return;
	}
	fprintf(f, "bundle runs/%s:", s->run_id);
	json_object_foreach(counts, k, v)
		fprintf(f, " %s %lld", k, (long long)json_integer_value(v));
	if (!json_object_size(counts))
		fputs(" no test", f);
	if (bundle_records_lost(b))
		fprintf(f, "; RESULTS LOST: %zu test records not written, the results disk is full",
			bundle_records_lost(b));
	else if (json_is_string(json_object_get(b->doc, "error")))
		fprintf(f, "; %s", json_string_value(json_object_get(b->doc, "error")));
	fclose(f);
	snprintf(summary, ss, "%s", text ? text : "");
}

/* Run the plan's tests into b; the run's state and progress written at the end. */
static int execute(struct session *s, struct bundle *b, const struct plan_files *files, void (*settle)(void))
{
	char **caps;
	struct run_opts ro = { .fstests = s->cfg->fstests ? s->cfg->fstests : SESSION_FSTESTS,
			       .results = s->results,
			       .sysrq = true,
			       .plan = s->plan,
			       .expunges = &files->expunges,
			       .durations = files->durations,
			       .configs = s->rc,
			       .n_configs = s->n,
			       .prepare = session_prepare,
			       .after_test = after_test,
			       .data = s };
	char dst[PATH_MAX + 32], pool[PATH_MAX], pwhy[512];
	unsigned bad = 0;
	int r;

	/* the plan is read and the bundle begun: the devices must be settled from here */
	if (settle)
		settle();
	caps = inventory_cap_names(s->inv);
	ro.ctx.kernel = s->inv->caps.version;
	ro.ctx.arch = json_string_value(json_object_get(json_object_get(s->inv->doc, "machine"), "arch"));
	ro.ctx.caps = caps;
	if (runners_prepare(s->plan, &s->inv->roles, pool, sizeof(pool), pwhy, sizeof(pwhy)) > 0)
		ro.pool = pool;
	else if (pwhy[0])
		ro.parallel_why = pwhy;
	r = run_execute(&ro, b, &bad);
	strv_free(caps);
	/* the last config's server stopped and its exports unmounted before poweroff unmounts the rest */
	loopback_stop(s->server);
	s->server = NULL;
	/* keep the fstests config fsagent wrote beside the bundle */
	snprintf(dst, sizeof(dst), "%s/fstests.config", b->dir);
	bundle_copy_file(s->host_options, dst);
	s->pg.recorded = bundle_count_recorded(b);
	bundle_set(b, "kmsg_lost",
		   json_integer((json_int_t)(runner_kmsg_lost() +
					     json_integer_value(json_object_get(b->doc, "kmsg_lost")))));
	if (r == RUNNER_UNKILLABLE) {
		/* nothing in flight: the next boot goes on after the stuck test */
		bundle_set(b, "state", json_string("running"));
		bundle_write(b);
		progress_write(&s->pg, false);
		return r;
	}
	bundle_finish(b, r < 0 ? "error" : "complete");
	progress_write(&s->pg, false);
	unlink(s->cur);
	return r;
}

/* What session_load_configs gave the session, and the section names. */
void session_release(struct session *s, char **sections)
{
	for (size_t i = 0; s->fsc && i < s->n; i++)
		fs_config_release(&s->fsc[i]);
	free(s->fsc);
	free(s->rc);
	strv_free(s->config_files);
	strv_free(sections);
}

int session_run(const struct boot_config *cfg, struct inventory *inv, const char *results, void (*settle)(void),
		char *summary, size_t ss)
{
	static const char head[] = "# written by fsagent, one section per config\n";
	struct session s = {
		.cfg = cfg, .inv = inv, .results = results, .catalog = cfg->catalog ? cfg->catalog : SESSION_CATALOG
	};
	struct plan_files files = { 0 };
	char err[512] = "", **sections = NULL;
	struct bundle b = { 0 };
	struct plan plan;
	int r, pr;

	snprintf(s.cur, sizeof(s.cur), "%s/current-run", results);
	r = plan_init(&plan);
	if (r < 0)
		return r;
	pr = session_load_plan(&plan, cfg, results, err, sizeof(err));
	if (pr == 0 && !plan.configs[0]) {
		plan_release(&plan);
		/* no configs: this boot was for the inventory alone */
		summary[0] = '\0';
		return 0;
	}
	/* the seed is drawn before the bundle begins: the bundle records it */
	if (pr == 0)
		pr = plan_resolve(&plan, results, &files, err, sizeof(err));
	/* a run in progress on the results disk is resumed, not started again */
	r = open_run(&s, &plan, &b, summary, ss);
	if (r != 0) {
		r = r > 0 ? -EIO : r;
		goto out;
	}
	s.pg.results = results;
	s.pg.run_id = s.run_id;
	snprintf(s.pg.dir, sizeof(s.pg.dir), "%s", b.dir);
	s.plan = &plan;
	snprintf(s.host_options, sizeof(s.host_options), "%s/fstests.config", FSAGENT_RUN_DIR);
	/* never a run on a misread plan: record the error and stop */
	if (pr < 0 || session_load_configs(&s, &sections, err, sizeof(err)) < 0) {
		bundle_set(&b, "error", json_string(err));
		bundle_finish(&b, "error");
		snprintf(summary, ss, "%s", err);
		r = -EINVAL;
		goto out;
	}
	fileio_mkdir_p(FSAGENT_RUN_DIR);
	fileio_write_atomic(s.host_options, head, strlen(head));
	bundle_write(&b);
	progress_write(&s.pg, true);
	fileio_write_atomic(s.cur, s.run_id, strlen(s.run_id));
	r = execute(&s, &b, &files, settle);
	write_summary(&s, &b, summary, ss);
	if (r == 0)
		switch (bundle_outcome_of(&b)) {
		case BUNDLE_FAILED: r = SESSION_FAILED; break;
		case BUNDLE_NOTHING_RAN: r = SESSION_NOTHING_RAN; break;
		case BUNDLE_PASSED: r = 0; break;
		}
out:
	session_release(&s, sections);
	plan_files_release(&files);
	bundle_release(&b);
	plan_release(&plan);
	return r;
}
