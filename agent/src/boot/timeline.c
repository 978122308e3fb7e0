// SPDX-License-Identifier: MIT
/* The boot's timeline (see timeline.h). */
#include "boot/timeline.h"
#include "util/log.h"

#include <time.h>

long boottime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void timeline_mark_at(struct timeline *t, const char *event, long ms)
{
	if (t->n < TIMELINE_MAX) {
		size_t i = t->n;

		for (; i > 0 && t->v[i - 1].ms > ms; i--)
			t->v[i] = t->v[i - 1];
		t->v[i].event = event;
		t->v[i].ms = ms;
		t->n++;
	}
	log_info("%s at %ld ms", event, ms);
}

void timeline_mark(struct timeline *t, const char *event)
{
	timeline_mark_at(t, event, boottime_ms());
}

json_t *timeline_to_json(const struct timeline *t)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < t->n; i++)
		json_array_append_new(a, json_pack("{s:s, s:I}", "event", t->v[i].event, "ms", (json_int_t)t->v[i].ms));
	return a;
}
