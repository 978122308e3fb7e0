// SPDX-License-Identifier: MIT
/*
 * State files a long loop reads back (options.json, bisect's line.json,
 * qualify's round.json, the watch's track.json and track.jsonl), each
 * through the reader the command uses: the first byte picks the file, the
 * rest is its text in a scratch directory.
 */
#include "fuzz.h"
#include "analysis/qualify.h"
#include "engine/bisect_line.h"
#include "engine/bisect_loop.h"
#include "engine/statedir.h"
#include "engine/track.h"
#include "engine/track_loop.h"
#include "util/log.h"
#include "util/strv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

static char dir[] = "/tmp/fsagent-fuzz-state-XXXXXX";

static int put(const char *name, const uint8_t *data, size_t size)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	return 0;
}

static void options(const uint8_t *data, size_t size)
{
	double budget = 3000, alpha = 0.01, runs = 10;
	struct statedir_option o[] = {
		{ "budget", &budget, false, true, true, true },
		{ "alpha", &alpha, true, false, false, false },
		{ "max_runs", &runs, false, true, false, true },
	};

	put("options.json", data, size);
	if (statedir_options(dir, "fsagent fuzz", o, 3) == 0 && (budget < 0 || runs <= 0))
		abort(); /* read back: never a count below its floor */
}

static void line(const uint8_t *data, size_t size)
{
	struct bisect_run in = { .dir = dir };
	json_t *doc = NULL;

	put("line.json", data, size);
	if (bisect_line_setup(&in, &doc) == 0 && !json_is_array(json_object_get(doc, "commits")))
		abort();
	json_decref(doc);
}

static void round_json(const uint8_t *data, size_t size)
{
	json_t *rj = json_loadb((const char *)data, size, 0, NULL);
	FILE *null = fopen("/dev/null", "we");

	if (json_is_object(rj) && null)
		qualify_round_text(rj, null);
	if (null)
		fclose(null);
	json_decref(rj);
}

/* track.json alone (which: 0), or a good one and track.jsonl replayed (1) */
static void track(const uint8_t *data, size_t size, int which)
{
	static const char good[] = "{\"tree\": \"/src/linux\", \"seed\": 1, \"follow\": {\"tags\": \"v6.1.*\", "
				   "\"branch\": null}, \"start\": {\"name\": \"v6.1.1\", \"sha\": "
				   "\"bfd8f0cfdf420ecaf2e3a36f0c203efd1414bc4f\"}}\n";
	struct track_run in = { .dir = dir };
	struct track_state s = { .in = &in };
	char path[128];

	snprintf(path, sizeof(path), "%s/track.jsonl", dir);
	unlink(path);
	if (which == 0) {
		put("track.json", data, size);
		track_setup(&s);
	} else {
		put("track.json", (const uint8_t *)good, sizeof(good) - 1);
		put("track.jsonl", data, size);
		if (track_setup(&s) == 0 && (s.revs = json_array()))
			track_replay(&s);
	}
	json_decref(s.track);
	json_decref(s.revs);
	strv_free(s.skipped_tags);
}

/* the scratch directory and what the last input left in it, at exit */
static void remove_dir(void)
{
	static const char *const names[] = { "options.json", "line.json", "track.json", "track.jsonl" };
	char path[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool made; /* (not the template's last byte: a name mkdtemp made may end in 'X') */

	if (!made) {
		if (!mkdtemp(dir))
			abort();
		made = true;
		atexit(remove_dir);
		/* the readers say why they refuse: not the point here */
		log_setup(open("/dev/null", O_WRONLY | O_CLOEXEC), LOG_LVL_ERR);
	}
	if (!size)
		return 0;
	switch (data[0] % 5) {
	case 0: options(data + 1, size - 1); break;
	case 1: line(data + 1, size - 1); break;
	case 2: round_json(data + 1, size - 1); break;
	default: track(data + 1, size - 1, data[0] % 5 - 3); break;
	}
	return 0;
}
