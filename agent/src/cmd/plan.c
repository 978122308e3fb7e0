// SPDX-License-Identifier: MIT
/*
 * fsagent plan: a run plan checked and resolved; with --catalog, what its
 * configs need of the machine (the launcher attaches the devices from it).
 */
#include "boot/catalog.h"
#include "cmd/cmd.h"
#include "model/plan.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * {"configs": [...expanded], "disks": b, "log": b, "rt": b, "logwrites": b,
 * "pool": b, "dax": b, "zoned": b}: whether any of the plan's configs wants
 * test and scratch disks (tmpfs does not), and the extra devices. Errors
 * (an unknown config, a bad catalog file) are logged, naming them.
 */
static int needs_of(const struct plan *p, const char *catalog, json_t **ret)
{
	char **names = NULL;
	char err[512];
	unsigned devs = 0;
	bool disks = false;
	json_t *configs;
	int r = catalog_expand(catalog, p->configs, &names, err, sizeof(err));

	if (r < 0) {
		log_err("%s", err);
		return r;
	}
	configs = json_array();
	for (size_t i = 0; names[i]; i++) {
		struct fs_config c;

		r = catalog_load(catalog, names[i], &c, err, sizeof(err));
		if (r < 0) {
			log_err("%s", err);
			json_decref(configs);
			strv_free(names);
			return r;
		}
		devs |= c.devices;
		disks |= !(c.devices & CAT_DEV_NONE);
		fs_config_release(&c);
		json_array_append_new(configs, json_string(names[i]));
	}
	strv_free(names);
	*ret = json_pack("{s:o, s:b, s:b, s:b, s:b, s:b, s:b, s:b}", "configs", configs, "disks", disks, "log",
			 devs & CAT_DEV_LOG, "rt", devs & CAT_DEV_RT, "logwrites", devs & CAT_DEV_LOGWRITES, "pool",
			 devs & CAT_DEV_POOL, "dax", devs & CAT_DEV_DAX, "zoned", devs & CAT_DEV_ZONED);
	return *ret ? 0 : -ENOMEM;
}

int cmd_plan(int argc, char **argv)
{
	_cleanup_free_ char *buf = NULL;
	json_auto_t *j = NULL;
	const char *catalog = NULL;
	char err[512];
	struct plan plan;
	int r;

	if (argc == 4 && streq(argv[1], "--catalog")) {
		catalog = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || streq(argv[1], "--help") || streq(argv[1], "-h")) {
		printf("usage: fsagent plan [--catalog DIR] PLAN_FILE\n"
		       "Check a run plan and print it resolved, as JSON; a bad one gets one line\n"
		       "naming file, line and key, and exit status 2. With --catalog, \"needs\" says\n"
		       "which configs it runs (xfs/all expanded) and the extra devices they want.\n");
		return argc == 2 ? 0 : 2;
	}
	r = fileio_read_full(argv[1], &buf, NULL);
	if (r < 0) {
		log_err("read plan '%s' failed: %s", argv[1], strerror(-r));
		return 2;
	}
	if (plan_init(&plan) < 0)
		return 3;
	r = plan_apply_file(&plan, argv[1], buf, err, sizeof(err));
	if (r < 0)
		log_err("%s", err);
	else if (!(j = plan_to_json(&plan)))
		r = -ENOMEM;
	if (r == 0 && catalog) {
		json_t *needs = NULL;

		r = needs_of(&plan, catalog, &needs);
		if (r == 0)
			json_object_set_new(j, "needs", needs);
	}
	if (r == 0)
		r = json_dumpf(j, stdout, JSON_INDENT(2)) < 0 || putchar('\n') == EOF ? -EIO : 0;
	plan_release(&plan);
	return r == -ENOMEM || r == -EIO ? 3 : r < 0 ? 2 : 0;
}
