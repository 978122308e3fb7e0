// SPDX-License-Identifier: MIT
/*
 * Parallel runners' directories and configs (see pool.h).
 */
#include "run/pool.h"
#include "model/runner_config.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the runner's text still assigns key (a device every runner would share). */
static bool assigns(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		const char *p = l + strspn(l, " \t");

		if (startswith(p, "export "))
			p += strlen("export ") + strspn(p + strlen("export "), " \t");
		if (strncmp(p, key, n) == 0 && p[n + strspn(p + n, " \t")] == '=' &&
		    p[n + strspn(p + n, " \t") + 1] != '\n' && p[n + strspn(p + n, " \t") + 1] != '\0')
			return true;
	}
	return false;
}

static int make_slot(struct runner_slot *s, const char *base, unsigned k, const char *text, const char *file,
		     const char *section, char *err, size_t es)
{
	static const char *const dirs[] = { "test", "scratch", "results", "tmp" };
	char path[PATH_MAX], sets[3][PATH_MAX + 16], tmpdir[PATH_MAX + 8];
	const char *setv[4];
	_cleanup_free_ char *out = NULL;
	int r;

	if (snprintf(s->dir, sizeof(s->dir), "%s/runner-%u", base, k) >= (int)sizeof(s->dir))
		return -ENAMETOOLONG;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", s->dir, dirs[i]);
		r = fileio_mkdir_p(path);
		if (r < 0) {
			snprintf(err, es, "runner %u: create '%s' failed: %s", k, path, strerror(-r));
			return r;
		}
	}
	snprintf(sets[0], sizeof(sets[0]), "TEST_DIR=%s/test", s->dir);
	snprintf(sets[1], sizeof(sets[1]), "SCRATCH_MNT=%s/scratch", s->dir);
	snprintf(sets[2], sizeof(sets[2]), "RESULT_BASE=%s/results", s->dir);
	setv[0] = sets[0], setv[1] = sets[1], setv[2] = sets[2], setv[3] = NULL;
	r = runner_config_text(text, section, setv, &out, err, es);
	if (r < 0)
		return r;
	for (const char *const *key = (const char *const[]){ "TEST_DEV", "SCRATCH_DEV", "SCRATCH_DEV_POOL", NULL };
	     *key; key++)
		if (assigns(out, *key)) {
			snprintf(err, es,
				 "%s%s%s%s: key '%s': a device every runner would format and mount; runners of their "
				 "own devices are not built yet: run one at a time (jobs = 1)",
				 file, section ? " [" : "", section ? section : "", section ? "]" : "", *key);
			return -EINVAL;
		}
	snprintf(s->host_options, sizeof(s->host_options), "%s/fstests.config", s->dir);
	r = fileio_write_atomic(s->host_options, out, strlen(out));
	if (r < 0) {
		snprintf(err, es, "runner %u: write '%s' failed: %s", k, s->host_options, strerror(-r));
		return r;
	}
	if (section)
		snprintf(s->result_dir, sizeof(s->result_dir), "%s/results/%s", s->dir, section);
	else
		snprintf(s->result_dir, sizeof(s->result_dir), "%s/results", s->dir);
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s/tmp", s->dir);
	return strv_push(&s->env, tmpdir);
}

int pool_make(struct runner_pool *p, const char *root, const char *config, unsigned n, const char *host_options,
	      const char *section, char *err, size_t errsize)
{
	_cleanup_free_ char *text = NULL;
	char base[PATH_MAX];
	int r = fileio_read_full(host_options, &text, NULL);

	memset(p, 0, sizeof(*p));
	if (snprintf(base, sizeof(base), "%s/%s", root, config) >= (int)sizeof(base))
		return -ENAMETOOLONG;
	for (char *s = base + strlen(root) + 1; *s; s++)
		*s = *s == '/' ? '_' : *s;
	if (r < 0) {
		snprintf(err, errsize, "read '%s' failed: %s", host_options, strerror(-r));
		return r;
	}
	p->slots = calloc(n, sizeof(*p->slots));
	if (!p->slots)
		return -ENOMEM;
	p->n = n;
	for (unsigned k = 0; k < n; k++) {
		r = make_slot(&p->slots[k], base, k + 1, text, host_options, section, err, errsize);
		if (r < 0) {
			pool_release(p);
			return r;
		}
	}
	return 0;
}

void pool_release(struct runner_pool *p)
{
	for (unsigned k = 0; p->slots && k < p->n; k++)
		strv_free(p->slots[k].env);
	free(p->slots);
	p->slots = NULL;
	p->n = 0;
}
