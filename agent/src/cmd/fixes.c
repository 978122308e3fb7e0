// SPDX-License-Identifier: MIT
/*
 * fsagent fixes: the upstream commits that fix a stable tree's culprit.
 */
#include "cmd/cmd.h"
#include "analysis/fixes_output.h"
#include "engine/fixes.h"
#include "engine/fixes_apply.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/output.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

int cmd_fixes(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "culprit", required_argument, NULL, 'c' },
		{ "head", required_argument, NULL, 'H' },
		{ "upstream", required_argument, NULL, 'u' },
		{ "range", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "apply", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct fixes_query q = { 0 };
	const char *json_out = NULL, *apply_dir = NULL;
	json_auto_t *res = NULL;
	char err[1024] = "";
	int c, r;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't': q.stable = optarg; break;
		case 'c': q.culprit = optarg; break;
		case 'H': q.head = optarg; break;
		case 'u': q.upstream = optarg; break;
		case 'r': q.range = optarg; break;
		case 'j': json_out = optarg; break;
		case 'a': apply_dir = optarg; break;
		case 'h':
			printf("usage: fsagent fixes --tree STABLE --culprit REV --upstream TREE [--range RANGE]\n"
			       "                     [--head REV] [--apply DIR] [--json FILE]\n"
			       "The upstream commits that fix a stable tree's culprit: its upstream id (its\n"
			       "message's 'commit <id> upstream.', '[ Upstream commit <id> ]' or '(cherry picked\n"
			       "from commit <id>)' line, or the commit itself when TREE has it), then each commit\n"
			       "of RANGE in TREE (default its HEAD) whose Fixes: line names it, and those that\n"
			       "fix them, oldest first, each said to be in the stable tree already (a stable\n"
			       "commit after the culprit, up to --head, default HEAD, carries its upstream id)\n"
			       "or not: a candidate to backport. --apply DIR applies each candidate to --head in\n"
			       "the worktree DIR/worktree (git cherry-pick -x; one that does not apply alone\n"
			       "after the candidates before it), keeping each patched revision as\n"
			       "refs/fsagent/fixes/<id> and DIR/apply.json (run again, nothing is applied\n"
			       "twice). --json FILE writes the answer (schema\n"
			       "fsagent-fixes/1). Exit status: 0 a candidate found, 1 none (nothing upstream\n"
			       "names it, or the stable tree has every fix), 2 bad usage or input (an unknown\n"
			       "revision, a culprit with no upstream commit), 3 git or a write failed\n"
			       "(docs/exit-status.md).\n");
			return 0;
		default: return 2;
		}
	}
	if (optind != argc || !q.stable || !q.culprit || !q.upstream) {
		log_err("usage: fsagent fixes --tree STABLE --culprit REV --upstream TREE [...] (see --help)");
		return 2;
	}
	r = fixes_find(&q, &res, err, sizeof(err));
	if (r < 0) {
		log_err("%s", *err ? err : strerror(-r));
		return r == -EINVAL || r == -ENOENT ? 2 : 3;
	}
	if (apply_dir && json_integer_value(json_object_get(res, "candidates")) > 0) {
		const struct fixes_apply_opts ao = { .stable = q.stable,
						     .head = json_string_value(json_object_get(res, "head")),
						     .upstream = q.upstream,
						     .dir = apply_dir };

		r = fixes_apply(&ao, json_object_get(res, "fixes"), err, sizeof(err));
		if (r < 0) {
			log_err("%s", *err ? err : strerror(-r));
			return r == -EINVAL ? 2 : 3;
		}
	}
	print_printable(fixes_text, res);
	if (json_out && write_output(json_out, res, dump_json) < 0)
		return 3;
	return json_integer_value(json_object_get(res, "candidates")) > 0 ? 0 : 1;
}
