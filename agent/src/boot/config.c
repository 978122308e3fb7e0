// SPDX-License-Identifier: MIT
/*
 * Kernel command line parser for fsagent.* words (see config.h). Quoting
 * follows the kernel's own next_arg(): double quotes group words and are
 * removed.
 */
#include "boot/config.h"
#include "model/kver.h"
#include "model/plan.h"
#include "util/macro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *boot_action_to_string(enum boot_action a)
{
	return a == ACTION_REBOOT ? "reboot" : a == ACTION_HALT ? "halt" : "poweroff";
}

struct roles_request boot_config_roles(const struct boot_config *c, const char *const *claims)
{
	struct roles_request req = { .wipe = c->wipe, .claims = claims };

	for (int i = 0; i < ROLE_MAX; i++)
		req.spec[i] = c->role_spec[i];
	return req;
}

void boot_config_release(struct boot_config *c)
{
	free(c->plan_keys);
	free(c->plan_values);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

/* Split the next word in place, removing quotes; returns NULL at the end. */
static char *next_word(char **pos)
{
	char *p = *pos, *out, *start;
	bool quoted = false;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!*p)
		return NULL;
	start = out = p;
	for (; *p; p++) {
		if (*p == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && (*p == ' ' || *p == '\t' || *p == '\n')) {
			p++;
			break;
		}
		*out++ = *p;
	}
	/* out never passes p, so terminating here cannot clobber the next word */
	*out = '\0';
	*pos = p;
	return start;
}

static int set_list(const char **dst, const char *key, const char *val, char *err, size_t es)
{
	if (!*val || strstr(val, ",,") || val[0] == ',' || val[strlen(val) - 1] == ',') {
		snprintf(err, es, "key '%s': empty list item in '%s'", key, val);
		return -EINVAL;
	}
	*dst = val;
	return 0;
}

static int parse_one(struct boot_config *c, const char *key, const char *val, char *err, size_t es)
{
	const char *k = key + strlen("fsagent.");

	if (startswith(k, "dev.")) {
		int role = role_from_string(k + 4);
		char buf[1024], *save = NULL;

		if (role < 0) {
			snprintf(err, es, "key '%s': unknown role '%s'", key, k + 4);
			return -EINVAL;
		}
		snprintf(buf, sizeof(buf), "%s", val);
		for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (roles_spec_validate(t) < 0 || (role != ROLE_POOL && strchr(val, ','))) {
				snprintf(err, es, "key '%s': bad device spec '%s'", key, t);
				return -EINVAL;
			}
		if (!*val) {
			snprintf(err, es, "key '%s': empty device spec", key);
			return -EINVAL;
		}
		c->role_spec[role] = val;
		return 0;
	}
	if (streq(k, "wipe"))
		return set_list(&c->wipe, key, val, err, es);
	if (streq(k, "modules"))
		return set_list(&c->modules, key, val, err, es);
	if (streq(k, "fs"))
		return set_list(&c->fs, key, val, err, es);
	if (streq(k, "fstests") || streq(k, "catalog")) {
		if (val[0] != '/' || strstr(val, "..")) {
			snprintf(err, es, "key '%s': '%s' is not an absolute path", key, val);
			return -EINVAL;
		}
		*(streq(k, "fstests") ? &c->fstests : &c->catalog) = val;
		return 0;
	}
	if (streq(k, "root")) {
		if (!startswith(val, "LABEL=") && !startswith(val, "UUID=") && !startswith(val, "/dev/")) {
			snprintf(err, es, "key '%s': '%s' is not LABEL=..., UUID=... or /dev/...", key, val);
			return -EINVAL;
		}
		c->root = val;
		return 0;
	}
	if (streq(k, "hostname")) {
		if (!*val || strlen(val) > 63) {
			snprintf(err, es, "key '%s': hostname must have 1 to 63 characters", key);
			return -EINVAL;
		}
		c->hostname = val;
		return 0;
	}
	if (streq(k, "action")) {
		if (streq(val, "poweroff"))
			c->action = ACTION_POWEROFF;
		else if (streq(val, "reboot"))
			c->action = ACTION_REBOOT;
		else if (streq(val, "halt"))
			c->action = ACTION_HALT;
		else {
			snprintf(err, es, "key '%s': '%s' is not poweroff, reboot or halt", key, val);
			return -EINVAL;
		}
		return 0;
	}
	if (streq(k, "udev")) {
		if (streq(val, "auto"))
			c->udev = UDEV_AUTO;
		else if (streq(val, "0"))
			c->udev = UDEV_OFF;
		else if (streq(val, "1"))
			c->udev = UDEV_ON;
		else {
			snprintf(err, es, "key '%s': '%s' is not auto, 0 or 1", key, val);
			return -EINVAL;
		}
		return 0;
	}
	if (streq(k, "pmem")) {
		if (!streq(val, "fsdax") && !streq(val, "keep")) {
			snprintf(err, es, "key '%s': '%s' is not fsdax or keep", key, val);
			return -EINVAL;
		}
		c->pmem_fsdax = streq(val, "fsdax");
		return 0;
	}
	if (streq(k, "shell")) {
		if (!streq(val, "0") && !streq(val, "1")) {
			snprintf(err, es, "key '%s': '%s' is not 0 or 1", key, val);
			return -EINVAL;
		}
		c->shell = streq(val, "1");
		return 0;
	}
	if (streq(k, "loglevel")) {
		if (strlen(val) != 1 || val[0] < '0' || val[0] > '3') {
			snprintf(err, es, "key '%s': '%s' is not 0..3", key, val);
			return -EINVAL;
		}
		c->loglevel = val[0] - '0';
		return 0;
	}
	if (streq(k, "commit") || streq(k, "describe")) {
		/* the kernel's git identity, for caps.json (machine/caps.c reads it from /proc/cmdline) */
		if (!(streq(k, "commit") ? kver_commit_ok(val) : kver_describe_ok(val))) {
			snprintf(err, es, "key '%s': '%s' is not %s", key, val,
				 streq(k, "commit") ? "a full commit id (40 hex digits)" : "git describe's words");
			return -EINVAL;
		}
		return 0;
	}
	if (plan_key_is_known(k)) {
		/* checked when applied over the plan file, with this source named */
		const char **nk = realloc(c->plan_keys, (c->n_plan + 1) * sizeof(*nk));
		const char **nv;

		if (!nk)
			return -ENOMEM;
		c->plan_keys = nk;
		nv = realloc(c->plan_values, (c->n_plan + 1) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		c->plan_values = nv;
		c->plan_keys[c->n_plan] = k;
		c->plan_values[c->n_plan++] = val;
		return 0;
	}
	snprintf(err, es, "key '%s': unknown key", key);
	return -EINVAL;
}

int config_parse_cmdline(const char *cmdline, struct boot_config *ret, char *err, size_t errsize)
{
	struct boot_config c = { .action = ACTION_POWEROFF, .udev = UDEV_AUTO, .loglevel = 2 };
	char *pos, *w;

	c.buf = strdup(cmdline ? cmdline : "");
	if (!c.buf)
		return -ENOMEM;
	pos = c.buf;
	while ((w = next_word(&pos))) {
		char *eq;
		int r;

		if (!startswith(w, "fsagent."))
			continue;
		eq = strchr(w, '=');
		if (!eq) {
			snprintf(err, errsize, "key '%s': missing '=value'", w);
			boot_config_release(&c);
			return -EINVAL;
		}
		*eq = '\0';
		r = parse_one(&c, w, eq + 1, err, errsize);
		if (r < 0) {
			boot_config_release(&c);
			return r;
		}
	}
	*ret = c;
	return 0;
}
