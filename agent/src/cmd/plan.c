// SPDX-License-Identifier: MIT
/*
 * fsagent plan: a run plan checked and resolved.
 */
#include "cmd/cmd.h"
#include "model/plan.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

#include <string.h>
#include <stdio.h>
#include <errno.h>

int cmd_plan(int argc, char **argv)
{
	_cleanup_free_ char *buf = NULL;
	json_auto_t *j = NULL;
	char err[512];
	struct plan plan;
	int r;

	if (argc != 2 || streq(argv[1], "--help") || streq(argv[1], "-h")) {
		printf("usage: fsagent plan PLAN_FILE\n"
		       "Check a run plan and print it resolved, as JSON; a bad one gets one line\n"
		       "naming file, line and key, and exit status 1.\n");
		return argc == 2 ? 0 : 2;
	}
	r = fileio_read_full(argv[1], &buf, NULL);
	if (r < 0) {
		log_err("read plan '%s' failed: %s", argv[1], strerror(-r));
		return 1;
	}
	if (plan_init(&plan) < 0)
		return 1;
	r = plan_apply_file(&plan, argv[1], buf, err, sizeof(err));
	if (r < 0)
		log_err("%s", err);
	else if ((j = plan_to_json(&plan)))
		r = json_dumpf(j, stdout, JSON_INDENT(2)) < 0 || putchar('\n') == EOF ? -EIO : 0;
	plan_release(&plan);
	return r < 0 ? 1 : 0;
}
