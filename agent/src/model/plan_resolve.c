// SPDX-License-Identifier: MIT
/* A plan made ready to run (see plan_resolve.h). */
#include "model/plan_resolve.h"
#include "model/order.h"
#include "model/shard.h"

int plan_resolve(struct plan *p, const char *base, struct plan_files *ret, char *err, size_t es)
{
	int r;

	*ret = (struct plan_files){ 0 };
	if (p->order == ORDER_RANDOM && !p->seed_set) {
		p->seed = order_new_seed();
		p->seed_set = true;
	}
	r = expunge_load_files(&ret->expunges, base, p->expunge_files, err, es);
	if (r >= 0)
		r = shard_plan_durations(p, base, &ret->durations, err, es);
	if (r < 0)
		plan_files_release(ret);
	return r < 0 ? r : 0;
}

void plan_files_release(struct plan_files *f)
{
	expunge_list_release(&f->expunges);
	json_decref(f->durations);
	f->durations = NULL;
}
