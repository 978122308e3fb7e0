// SPDX-License-Identifier: MIT
/* The console protocol's lines, and fsagent console over a whole console. */
#include "fuzz.h"
#include "analysis/watch.h"
#include "model/console.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct console_event ev;
	struct watch w;
	FILE *null = fopen("/dev/null", "w");
	size_t start = 0;

	console_parse_line((const char *)data, size, &ev);
	if (ev.text < (const char *)data || ev.text + ev.text_len > (const char *)data + size)
		abort();
	if (ev.kind == CONSOLE_PROGRESS && (ev.done == 0 || ev.done > ev.total || ev.status >= TS_MAX))
		abort();
	if (memchr(ev.run_id, '/', sizeof(ev.run_id)) || strlen(ev.run_id) >= sizeof(ev.run_id))
		abort();
	if (!null)
		return 0;
	watch_init(&w, null);
	for (size_t i = 0; i <= size; i++)
		if (i == size || data[i] == '\n') {
			watch_line(&w, (const char *)data + start, i - start);
			start = i + 1;
		}
	json_decref(watch_state(&w));
	fclose(null);
	return 0;
}
