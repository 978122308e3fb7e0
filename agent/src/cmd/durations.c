// SPDX-License-Identifier: MIT
/*
 * fsagent durations: mean test durations, for shards.
 */
#include "cmd/cmd.h"
#include "model/shard.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

#include <string.h>
#include <stdio.h>
#include <errno.h>

int cmd_durations(int argc, char **argv)
{
	json_auto_t *d = NULL;
	const char *out = NULL;
	char err[1024] = "";
	char *text;
	int r;

	if (argc >= 2 && (streq(argv[1], "-h") || streq(argv[1], "--help"))) {
		printf("usage: fsagent durations BUNDLES... [--out FILE]\n"
		       "The mean duration of each config and test over the runs in the bundles (or\n"
		       "directories holding them), as a durations file for shards (plan key\n"
		       "'durations', fsagent-qemu --durations).\n");
		return 0;
	}
	if (argc >= 3 && streq(argv[argc - 2], "--out")) {
		out = argv[argc - 1];
		argc -= 2;
	}
	if (argc < 2) {
		log_err("usage: fsagent durations BUNDLES... [--out FILE]");
		return 2;
	}
	argv[argc] = NULL;
	if (shard_durations_from_bundles(argv + 1, &d, err, sizeof(err)) < 0) {
		log_err("%s", err);
		return 1;
	}
	text = json_dumps(d, JSON_INDENT(1));
	if (!text)
		return 1;
	if (out) {
		r = fileio_write_atomic(out, text, strlen(text));
		if (r < 0)
			log_err("write '%s' failed: %s", out, strerror(-r));
	} else {
		r = puts(text) < 0 ? -EIO : 0;
	}
	free(text);
	return r < 0 ? 1 : 0;
}
