// SPDX-License-Identifier: MIT
/*
 * fsagent aggregate: bundles added to per-test counts (soaks).
 */
#include "cmd/cmd.h"
#include "model/bundle.h"
#include "analysis/report.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

#include <string.h>
#include <stdio.h>
#include <errno.h>
#include <unistd.h>

int cmd_aggregate(int argc, char **argv)
{
	json_auto_t *doc = NULL;
	_cleanup_free_ char *text = NULL;
	json_t *seen, *agg;
	const char *into;
	char err[1024];

	if (argc < 4 || !streq(argv[1], "--into")) {
		printf("usage: fsagent aggregate --into FILE BUNDLE...\n"
		       "Add bundles to FILE's per config and test counts (runs, statuses, total and\n"
		       "longest duration); a bundle already in it is not counted twice.\n");
		return argc == 2 && (streq(argv[1], "--help") || streq(argv[1], "-h")) ? 0 : 2;
	}
	into = argv[2];
	if (access(into, F_OK) == 0) {
		json_error_t jerr;

		doc = json_load_file(into, 0, &jerr);
		if (!doc || !streq(json_string_value(json_object_get(doc, "schema")) ?: "", "fsagent-aggregate/1")) {
			log_err("%s: not an fsagent-aggregate/1 file%s%s", into, doc ? "" : ": ", doc ? "" : jerr.text);
			return 1;
		}
	} else
		doc = json_pack("{s:s, s:[], s:{}}", "schema", "fsagent-aggregate/1", "bundles", "aggregate");
	seen = json_object_get(doc, "bundles");
	agg = json_object_get(doc, "aggregate");
	for (int i = 3; i < argc; i++) {
		json_auto_t *b = NULL;
		const char *id;
		json_t *v;
		size_t k;
		bool dup = false;

		if (bundle_load(argv[i], &b, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return 1;
		}
		id = json_string_value(json_object_get(b, "run_id"));
		json_array_foreach(seen, k, v)
			dup |= streq(json_string_value(v), id);
		if (dup)
			continue;
		if (report_aggregate(agg, b) < 0)
			return 1;
		json_array_append_new(seen, json_string(id));
	}
	text = json_dumps(doc, JSON_INDENT(1));
	if (!text || fileio_write_atomic(into, text, strlen(text)) < 0) {
		log_err("write '%s' failed", into);
		return 1;
	}
	return 0;
}
