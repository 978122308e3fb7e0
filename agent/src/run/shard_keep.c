// SPDX-License-Identifier: MIT
/*
 * This VM's shard of a run's tests (see shard_keep.h).
 */
#include "run/shard_keep.h"
#include "model/shard.h"
#include "util/log.h"

#include <errno.h>
#include <stdlib.h>

int shard_keep(const struct run_opts *o, struct config_sel *cs, struct bundle *b)
{
	const unsigned mine = o->plan->shard - 1, shards = o->plan->shards;
	struct shard_item *items;
	unsigned *where;
	double *loads;
	size_t n = 0, k = 0, kept = 0;
	json_t *lj;

	for (size_t i = 0; i < o->n_configs; i++)
		n += cs[i].r >= 0 ? cs[i].n_run : 0;
	items = calloc(n ? n : 1, sizeof(*items));
	where = calloc(n ? n : 1, sizeof(*where));
	loads = calloc(shards, sizeof(*loads));
	if (!items || !where || !loads) {
		free(items);
		free(where);
		free(loads);
		return -ENOMEM;
	}
	for (size_t i = 0; i < o->n_configs; i++)
		for (size_t t = 0; cs[i].r >= 0 && t < cs[i].sel.n; t++)
			if (cs[i].sel.v[t].state == SEL_RUN)
				items[k++] = (struct shard_item){ o->configs[i].name, cs[i].sel.v[t].name, 0 };
	shard_fill_durations(items, n, o->durations);
	/* a weighted config's tests run more often: their load is that much more */
	for (size_t i = 0; i < n; i++)
		items[i].seconds *= plan_iterations_of(o->plan, items[i].config, items[i].test);
	if (shard_assign(items, n, shards, where, loads) < 0) {
		free(items);
		free(where);
		free(loads);
		return -ENOMEM;
	}
	k = 0;
	for (size_t i = 0; i < o->n_configs; i++) {
		cs[i].n_run = 0;
		for (size_t t = 0; cs[i].r >= 0 && t < cs[i].sel.n; t++) {
			struct selected_test *st = &cs[i].sel.v[t];

			if (st->state == SEL_RUN && where[k++] != mine)
				st->state = SEL_ELSEWHERE;
			else if (st->state != SEL_RUN && mine != 0)
				st->state = SEL_ELSEWHERE;
			cs[i].n_run += st->state == SEL_RUN;
		}
		kept += cs[i].n_run;
	}
	lj = json_array();
	for (unsigned s = 0; s < shards; s++)
		json_array_append_new(lj, json_real(loads[s]));
	bundle_set(b, "shard",
		   json_pack("{s:i, s:i, s:i, s:f, s:o}", "index", (int)o->plan->shard, "count", (int)shards, "tests",
			     (int)kept, "estimated_seconds", loads[mine], "estimated_loads", lj));
	log_info("shard %u of %u: %zu of %zu tests, about %.0f s", o->plan->shard, shards, kept, n, loads[mine]);
	free(items);
	free(where);
	free(loads);
	return 0;
}
