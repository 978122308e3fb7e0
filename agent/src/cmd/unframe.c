// SPDX-License-Identifier: MIT
/*
 * fsagent unframe: a framed document cut out of a console log.
 */
#include "cmd/cmd.h"
#include "model/frame.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

#include <string.h>
#include <stdio.h>
#include <errno.h>
#include <unistd.h>

int cmd_unframe(int argc, char **argv)
{
	_cleanup_free_ char *log = NULL, *doc = NULL;
	size_t len;
	int r;

	if (argc < 2 || argc > 3) {
		log_err("usage: fsagent unframe NAME [CONSOLE-LOG]");
		return 2;
	}
	r = fileio_read_full(argc == 3 ? argv[2] : "/dev/stdin", &log, NULL);
	if (r < 0) {
		log_err("read '%s' failed: %s", argc == 3 ? argv[2] : "stdin", strerror(-r));
		return 1;
	}
	r = frame_extract(log, argv[1], &doc, &len);
	if (r == -ENOENT) {
		log_err("no '%s' frame in the console log", argv[1]);
		return 1;
	}
	if (r < 0) {
		log_err("frame '%s' is damaged: %s", argv[1], strerror(-r));
		return 1;
	}
	/* the document is the guest's: on a terminal, no control characters */
	if (isatty(STDOUT_FILENO))
		log_printable(doc, len);
	fwrite(doc, 1, len, stdout);
	return 0;
}
