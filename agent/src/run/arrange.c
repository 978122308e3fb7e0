// SPDX-License-Identifier: MIT
/*
 * A parallel iteration's queue order (see arrange.h).
 */
#include "run/arrange.h"
#include "model/schedule.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int arrange_longest_first(char **order, const struct history *h, const char *config, uint64_t seed)
{
	const size_t n = strv_length(order);
	struct sched_item *items = calloc(n ? n : 1, sizeof(*items));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));
	char **copy = calloc(n + 1, sizeof(*copy));
	int r = items && idx && copy ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < n; i++) {
		double d = history_of(h, config, order[i]);

		/* never timed: first of all, it may be the longest */
		items[i] = (struct sched_item){ order[i], d < 0 ? 1e9 : d };
	}
	if (r == 0)
		r = sched_order(items, n, seed, idx);
	for (size_t i = 0; r == 0 && i < n; i++)
		copy[i] = order[idx[i]];
	if (r == 0)
		memcpy(order, copy, n * sizeof(*order));
	free(copy);
	free(items);
	free(idx);
	return r;
}

static bool serial_in(const struct selection *sel, const char *name)
{
	for (size_t s = 0; s < sel->n; s++)
		if (sel->v[s].serial && streq(sel->v[s].name, name))
			return true;
	return false;
}

int arrange_queue(char **order, const struct selection *sel, char *const *suspects, size_t *ret_head,
		  size_t *ret_parallel)
{
	const size_t n = strv_length(order);
	char **copy = calloc(n + 1, sizeof(*copy));
	size_t k = 0, part[3] = { 0 };

	if (!copy)
		return -ENOMEM;
	for (int p = 0; p < 3; p++)
		for (size_t i = 0; i < n; i++) {
			const int mine = strv_contains(suspects, order[i]) ? 0 : serial_in(sel, order[i]) ? 2 : 1;

			if (mine == p) {
				copy[k++] = order[i];
				part[p]++;
			}
		}
	memcpy(order, copy, n * sizeof(*order));
	free(copy);
	*ret_head = part[0];
	*ret_parallel = part[1];
	return 0;
}

int arrange_for_run(char **order, const struct selection *sel, json_t *iteration, size_t *ret_head,
		    size_t *ret_parallel)
{
	json_t *sus = json_object_get(iteration, "suspects"), *v;
	char **names = NULL;
	size_t i;
	int r;

	json_array_foreach(sus, i, v)
		if (json_is_string(v) && strv_push(&names, json_string_value(v)) < 0) {
			strv_free(names);
			return -ENOMEM;
		}
	r = arrange_queue(order, sel, names, ret_head, ret_parallel);
	strv_free(names);
	return r;
}

void arrange_suspects_done(json_t *iteration, size_t head, size_t all)
{
	json_t *sus = json_object_get(iteration, "suspects");

	if (!json_is_array(sus))
		return;
	if (head == json_array_size(sus) && all > 1) {
		log_warn("the crash with %zu tests in flight did not come again with each alone: not pinned to one",
			 all);
		json_object_set(iteration, "crash_unexplained", sus);
	}
	json_object_del(iteration, "suspects");
}
