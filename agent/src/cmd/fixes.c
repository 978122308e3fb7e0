// SPDX-License-Identifier: MIT
/*
 * fsagent fixes: the upstream commits that fix a stable tree's culprit.
 */
#include "cmd/cmd.h"
#include "analysis/fixes_output.h"
#include "engine/fixes.h"
#include "engine/fixes_apply.h"
#include "engine/fixes_mbox.h"
#include "engine/fixes_prove.h"
#include "engine/statedir.h"
#include "engine/git.h"
#include "engine/job.h"
#include "engine/build.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/output.h"
#include "util/strv.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* The answer for an mbox's patches: the failing revision and the candidates, in the mbox's order. */
static int mbox_candidates(const struct fixes_query *q, const char *mbox, const char *dir, json_t **ret, char *err,
			   size_t es)
{
	char head[41], split[PATH_MAX + 8];
	json_t *fixes;
	int r = git_resolve(q->stable, q->head ? q->head : "HEAD", head, err, es);

	if (r < 0)
		return r == -ENOENT ? -EINVAL : r;
	snprintf(split, sizeof(split), "%s/mbox", dir);
	if ((r = fixes_from_mbox(mbox, split, &fixes, err, es)) < 0)
		return r;
	*ret = json_pack("{s:s, s:s, s:s, s:o, s:i}", "schema", "fsagent-fixes/1", "head", head, "mbox", mbox, "fixes",
			 fixes, "candidates", (int)json_array_size(fixes));
	return *ret ? 0 : -ENOMEM;
}

/*
 * No candidate fixes it: the next step, a forward bisection in the upstream tree from the culprit's upstream commit
 * (where the test fails) to the range's end (where it should pass).
 */
static void forward_hint(const struct fixes_query *q, json_t *res, const struct fixes_prove_opts *po)
{
	const char *end = q->range ? strstr(q->range, "..") : NULL;

	end = end ? end + 2 + (end[2] == '.') : q->range ? q->range : "HEAD";
	printf("no candidate fixes it: the upstream commit it passes from, by a forward bisection "
	       "(docs/fixes.md: \"When no candidate fixes it: forward bisection\"):\n"
	       "  scripts/fsagent-bisect --forward --git %s --bad %.12s --good %s -c %s %s\n",
	       q->upstream, json_string_value(json_object_get(json_object_get(res, "upstream"), "id")) ?: "",
	       *end ? end : "HEAD", po->config, po->test);
}

static int fixes_main(int argc, char **argv, char ***paths);

int cmd_fixes(int argc, char **argv)
{
	char **paths = NULL;
	int r = fixes_main(argc, argv, &paths);

	strv_free(paths);
	return r;
}

static int fixes_main(int argc, char **argv, char ***pathsp)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "culprit", required_argument, NULL, 'c' },
		{ "head", required_argument, NULL, 'H' },
		{ "upstream", required_argument, NULL, 'u' },
		{ "range", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "apply", required_argument, NULL, 'a' },
		{ "mbox", required_argument, NULL, 'm' },
		{ "candidates", required_argument, NULL, 'C' },
		{ "paths", required_argument, NULL, 'P' },
		{ "prove", no_argument, NULL, 'p' },
		{ "test", required_argument, NULL, 'T' },
		{ "config", required_argument, NULL, 'K' },
		{ "build", required_argument, NULL, 'B' },
		{ "min-rate", required_argument, NULL, 'M' },
		{ "alpha", required_argument, NULL, 'A' },
		{ "max-runs", required_argument, NULL, 'R' },
		{ "all", no_argument, NULL, 'L' },
		{ "probe-bundles", no_argument, NULL, 'b' },
		{ "probe-timeout", required_argument, NULL, 'O' },
		{ "build-timeout", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct fixes_query q = { 0 };
	struct fixes_prove_opts po = { .build_timeout = BUILD_TIMEOUT };
	unsigned long long n;
	bool prove = false;
	const char *json_out = NULL, *apply_dir = NULL, *mbox = NULL;
	char abs[PATH_MAX];
	json_auto_t *res = NULL;
	char err[1024] = "";
	int c, r;

	fix_proof_opts_default(&po.o);
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 't': q.stable = optarg; break;
		case 'c': q.culprit = optarg; break;
		case 'H': q.head = optarg; break;
		case 'u': q.upstream = optarg; break;
		case 'r': q.range = optarg; break;
		case 'j': json_out = optarg; break;
		case 'a': apply_dir = optarg; break;
		case 'm': mbox = optarg; break;
		case 'C': q.candidates = optarg; break;
		case 'P':
			strv_free(*pathsp);
			*pathsp = strv_split(optarg, ",");
			q.paths = *pathsp;
			break;
		case 'p': prove = true; break;
		case 'T': po.test = optarg; break;
		case 'K': po.config = optarg; break;
		case 'B': po.build = optarg; break;
		case 'L': po.all = true; break;
		case 'b': po.probe_bundles = true; break;
		case 'M':
		case 'A':
			if (parse_real(c == 'M' ? "--min-rate" : "--alpha", optarg, 1e-6, 0.999999,
				       c == 'M' ? &po.o.min_rate : &po.o.alpha) < 0)
				return 2;
			po.given[c == 'M' ? 0 : 1] = true;
			break;
		case 'R':
		case 'O':
		case 'o':
			if (parse_count(c == 'R'   ? "--max-runs"
					: c == 'O' ? "--probe-timeout"
						   : "--build-timeout",
					optarg, c == 'o' ? 0 : 1, 100000000, &n) < 0)
				return 2;
			if (c == 'R')
				po.o.max_runs = (unsigned)n, po.given[2] = true;
			else if (c == 'O')
				po.probe_timeout = n;
			else
				po.build_timeout = n;
			break;
		case 'h':
			printf("usage: fsagent fixes --tree STABLE --culprit REV --upstream TREE [--range RANGE]\n"
			       "                     [--head REV] [--candidates RANGE [--paths P,...]] [--apply DIR]\n"
			       "                     [--json FILE]\n"
			       "       fsagent fixes --tree STABLE --mbox FILE --apply DIR [--head REV] [--json FILE]\n"
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
			       "twice). With --mbox, the candidates are the mbox's patches (AUTOSEL's mails),\n"
			       "in its order, applied with git am -3. --candidates RANGE [--paths P,...] takes\n"
			       "the upstream commits of RANGE (touching those paths) instead of the Fixes:\n"
			       "search, ranked: those whose Fixes: names the culprit, then those touching its\n"
			       "files, then the rest. --json FILE writes the answer (schema\n"
			       "fsagent-fixes/1). Exit status: 0 a candidate found, 1 none (nothing upstream\n"
			       "names it, or the stable tree has every fix), 2 bad usage or input (an unknown\n"
			       "revision, a culprit with no upstream commit), 3 git or a write failed\n"
			       "(docs/exit-status.md).\n"
			       "--prove --test T --config C [--build CMD] -- PROBE...: each applied candidate\n"
			       "built (CMD, as fsagent bisect's) and run by PROBE (fsagent bisect's probe)\n"
			       "beside the failing revision until it is shown to fix T (its failure rate below\n"
			       "--min-rate, 0.2, of the old one; --alpha 0.1 over 10 looks) or not; at most\n"
			       "--max-runs (200) a side; stops at the first fix unless --all. Then 0 is a\n"
			       "proven fix, 1 none. Everything is kept in DIR; run again, it goes on.\n");
			return 0;
		default: return 2;
		}
	}
	if ((prove ? optind == argc || !apply_dir || !po.test || !po.config : optind != argc) || !q.stable ||
	    (mbox ? !apply_dir : !q.culprit || !q.upstream)) {
		log_err("usage: fsagent fixes --tree STABLE --culprit REV --upstream TREE [...], or --tree STABLE "
			"--mbox "
			"FILE --apply DIR (see --help)");
		return 2;
	}
	if (apply_dir) {
		/* git runs in the worktree: the directory absolute */
		r = fileio_mkdir_p(apply_dir);
		if (r < 0 || !realpath(apply_dir, abs)) {
			log_err("create '%s' failed: %s", apply_dir, strerror(r < 0 ? -r : errno));
			return 3;
		}
		apply_dir = abs;
		if (statedir_lock(apply_dir, "fsagent fixes") < 0)
			return 2;
	}
	r = mbox ? mbox_candidates(&q, mbox, apply_dir, &res, err, sizeof(err))
		 : fixes_find(&q, &res, err, sizeof(err));
	if (r < 0) {
		log_err("%s", *err ? err : strerror(-r));
		return r == -EINVAL || r == -ENOENT ? 2 : 3;
	}
	if (apply_dir) {
		const struct fixes_apply_opts ao = { .stable = q.stable,
						     .head = json_string_value(json_object_get(res, "head")),
						     .upstream = q.upstream,
						     .dir = apply_dir };

		po.tree = q.stable;
		po.probe = argv + optind;
		if (prove)
			job_stop_on_signals(3); /* builds and probes: a stop stops them */
		r = fixes_settle(res, &ao, prove ? &po : NULL, err, sizeof(err));
		if (r < 0) {
			if (*err || (r != -EBADMSG && r != -EEXIST)) /* those two are said where they were found */
				log_err("%s", *err ? err : strerror(-r));
			return r == -EINVAL || r == -EBADMSG || r == -EEXIST ? 2 : 3;
		}
	}
	print_printable(fixes_text, res);
	if (json_out && write_output(json_out, res, dump_json) < 0)
		return 3;
	if (prove && !fixes_proven(res) && q.upstream && json_object_get(res, "upstream"))
		forward_hint(&q, res, &po);
	if (prove)
		return fixes_proven(res) ? 0 : 1;
	return json_integer_value(json_object_get(res, "candidates")) > 0 ? 0 : 1;
}
