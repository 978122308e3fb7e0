// SPDX-License-Identifier: MIT
/*
 * Test durations known to a run (see history.h).
 */
#include "run/history.h"
#include "model/shard.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int history_init(struct history *h, json_t *durations)
{
	*h = (struct history){ .doc = durations, .learned = json_object() };
	return h->learned ? 0 : -ENOMEM;
}

void history_release(struct history *h)
{
	json_decref(h->learned);
	memset(h, 0, sizeof(*h));
}

double history_of(const struct history *h, const char *config, const char *test)
{
	json_t *file = json_object_get(json_object_get(json_object_get(h->doc, "durations"), config), test);
	json_t *seen = json_object_get(json_object_get(h->learned, config), test);
	double d = -1;

	if (json_is_number(file) && json_number_value(file) >= 0)
		d = json_number_value(file);
	if (json_is_number(seen) && json_number_value(seen) > d)
		d = json_number_value(seen);
	return d;
}

void history_learn(struct history *h, const char *config, const struct test_result *t)
{
	json_t *cfg = json_object_get(h->learned, config), *old;

	if (t->status == TS_TIMEOUT || t->status == TS_EXPUNGED || t->status == TS_NOTRUN || !h->learned)
		return;
	if (!cfg) {
		cfg = json_object();
		if (json_object_set_new(h->learned, config, cfg) < 0)
			return;
	}
	old = json_object_get(cfg, t->name);
	if (!old || json_number_value(old) < t->duration)
		json_object_set_new(cfg, t->name, json_real(t->duration));
}

void history_config(const struct history *h, const char *config, const struct selection *sel,
		    struct history_config *ret)
{
	struct shard_item *items = calloc(sel->n ? sel->n : 1, sizeof(*items));
	size_t k = 0;

	*ret = (struct history_config){ .tests = json_object_get(json_object_get(h->doc, "durations"), config),
					.total = -1 };
	if (!items || !ret->tests) {
		free(items);
		return;
	}
	for (size_t i = 0; i < sel->n; i++)
		if (sel->v[i].state == SEL_RUN)
			items[k++] = (struct shard_item){ config, sel->v[i].name, 0 };
	/* the file as shards read it: a test it does not know at the median of those it knows */
	ret->median = shard_fill_durations(items, k, h->doc);
	if (ret->median >= 0) {
		ret->total = 0;
		for (size_t i = 0; i < k; i++)
			ret->total += items[i].seconds;
	}
	free(items);
}

void history_round(struct history *h, double total, size_t done, size_t tests)
{
	h->left = total;
	h->hist_done = h->actual_done = 0;
	/* resumed: what is left of it, in proportion */
	if (h->left > 0 && tests)
		h->left *= (double)(tests - done) / (double)tests;
}

void history_drop(struct history *h, double share)
{
	if (h->left > 0 && share > 0)
		h->left = fmax(0, h->left - share);
}

/* test's history by the file, at the config's median when the file does not know it; < 0: none. */
static double file_history(const struct history_config *hc, const char *test)
{
	json_t *v = json_object_get(hc->tests, test);

	if (hc->total < 0)
		return -1;
	return json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : hc->median;
}

double history_left_after(struct history *h, const struct history_config *hc, const struct test_result *t)
{
	double d;

	if (h->left < 0 || !hc)
		return -1;
	d = file_history(hc, t->name);
	if (d >= 0 && t->status != TS_EXPUNGED && t->status != TS_NOTRUN && t->status != TS_TIMEOUT) {
		h->hist_done += d;
		h->actual_done += t->duration;
	}
	h->left = d >= 0 && h->left > d ? h->left - d : 0;
	return h->hist_done > 0 ? h->left * (h->actual_done / h->hist_done) : h->left;
}
