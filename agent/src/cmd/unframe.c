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

	if (argc >= 2 && (streq(argv[1], "--help") || streq(argv[1], "-h"))) {
		printf("usage: fsagent unframe NAME [CONSOLE-LOG]\n"
		       "The document the guest printed on its console between its NAME frame lines (a\n"
		       "bundle, an inventory), checked against the frame's length and checksum, to stdout.\n"
		       "CONSOLE-LOG defaults to stdin. On a terminal its control characters are replaced.\n"
		       "Exit status: 0 cut out, 1 no such frame or a damaged one, 2 bad usage.\n");
		return 0;
	}
	if (argc < 2 || argc > 3) {
		log_err("usage: fsagent unframe NAME [CONSOLE-LOG] (see --help)");
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
