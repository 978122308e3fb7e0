// SPDX-License-Identifier: MIT
/*
 * Role assignment and the format-safety policy (see roles.h).
 */
#include "machine/roles.h"
#include "util/macro.h"
#include "util/sysroot.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char *const role_names[ROLE_MAX] = {
	[ROLE_RESULTS] = "results",
	[ROLE_TEST] = "test",
	[ROLE_SCRATCH] = "scratch",
	[ROLE_LOG] = "log",
	[ROLE_RT] = "rt",
	[ROLE_LOGWRITES] = "logwrites",
	[ROLE_DAX_TEST] = "dax_test",
	[ROLE_ZONED_TEST] = "zoned_test",
	[ROLE_ZONED_SCRATCH] = "zoned_scratch",
	[ROLE_DAX_SCRATCH] = "dax_scratch",
	[ROLE_RUNNERS] = "runners",
	[ROLE_POOL] = "pool",
};

/*
 * The roles found by what a device is rather than by name: persistent
 * memory has no serial, and neither have the zoned disks of a dedicated
 * machine. NULL for the others.
 */
static const char *class_of(enum role role)
{
	return role == ROLE_DAX_TEST || role == ROLE_DAX_SCRATCH       ? "DAX-capable"
	       : role == ROLE_ZONED_TEST || role == ROLE_ZONED_SCRATCH ? "zoned"
								       : NULL;
}

static bool in_class(enum role role, const struct device *d)
{
	if (role == ROLE_DAX_TEST || role == ROLE_DAX_SCRATCH)
		return d->dax;
	return strcmp(d->zoned, "none") != 0 && d->zoned[0];
}

const char *role_to_string(enum role r)
{
	return r < ROLE_MAX ? role_names[r] : "?";
}

int role_from_string(const char *s)
{
	for (int i = 0; i < ROLE_MAX; i++)
		if (streq(s, role_names[i]))
			return i;
	return -EINVAL;
}

int roles_spec_validate(const char *spec)
{
	static const char *const prefixes[] = { "serial:", "label:", "wwid:", "uuid:", "/dev/" };

	if (!spec || !*spec)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (startswith(spec, prefixes[i]))
			return spec[strlen(prefixes[i])] ? 0 : -EINVAL;
	/* a bare kernel name such as vdb or nvme0n1 */
	return strchr(spec, ':') || strchr(spec, '/') ? -EINVAL : 0;
}

static bool eq(const char *a, const char *b)
{
	return a && b && streq(a, b);
}

bool roles_spec_matches(const char *spec, const struct device *d)
{
	if (startswith(spec, "serial:"))
		return eq(d->serial, spec + 7);
	if (startswith(spec, "label:"))
		return eq(d->label, spec + 6);
	if (startswith(spec, "wwid:"))
		return eq(d->wwid, spec + 5);
	if (startswith(spec, "uuid:"))
		return eq(d->uuid, spec + 5);
	if (startswith(spec, "/dev/disk/")) {
		char link[PATH_MAX], real[PATH_MAX];
		const char *base;

		if (eq(d->by_id, spec))
			return true;
		if (sysroot_path(link, sizeof(link), "%s", spec) < 0 || !realpath(link, real))
			return false;
		base = strrchr(real, '/');
		return base && streq(base + 1, d->name);
	}
	if (startswith(spec, "/dev/"))
		return streq(spec + 5, d->name);
	return streq(spec, d->name);
}

void roles_identity(const struct device *d, char *buf, size_t size)
{
	if (d->serial)
		snprintf(buf, size, "serial:%s", d->serial);
	else if (d->wwid)
		snprintf(buf, size, "wwid:%s", d->wwid);
	else
		snprintf(buf, size, "path:%s", d->devnode);
}

/* Does any comma separated spec in list name d? */
static bool list_matches(const char *list, const struct device *d)
{
	char buf[1024], *save = NULL;

	if (!list)
		return false;
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (streq(t, "all") || roles_spec_matches(t, d))
			return true;
	return false;
}

static bool is_claimed(const struct roles_request *req, const struct device *d)
{
	char id[160];

	if (!req->claims)
		return false;
	roles_identity(d, id, sizeof(id));
	for (const char *const *c = req->claims; *c; c++)
		if (streq(*c, id))
			return true;
	return false;
}

static const struct role_slot *slot_of(const struct roles *r, const struct device *d)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].dev == d)
			return &r->v[i];
	return NULL;
}

static void judge(struct roles *r, struct role_slot *s, const struct roles_request *req)
{
	const struct device *d = s->dev;
	const struct role_slot *other = slot_of(r, d);
	char sig[256];

	s->state = ROLE_REFUSED;
	s->claimed_before = is_claimed(req, d);
	s->wipe_allowed = list_matches(req->wipe, d);
	if (other) {
		snprintf(s->reason, sizeof(s->reason), "'%s' already has role %s", d->devnode,
			 role_to_string(other->role));
		return;
	}
	if (d->is_root) {
		snprintf(s->reason, sizeof(s->reason), "'%s' holds the root filesystem", d->devnode);
		return;
	}
	if (s->role == ROLE_RESULTS) {
		if (!d->fstype) {
			snprintf(s->reason, sizeof(s->reason), "'%s' holds no filesystem", d->devnode);
			return;
		}
		s->state = ROLE_ASSIGNED;
		return;
	}
	if (d->is_mounted) {
		snprintf(s->reason, sizeof(s->reason), "'%s' is mounted", d->devnode);
		return;
	}
	if (d->has_holders) {
		snprintf(s->reason, sizeof(s->reason), "'%s' is in use by another block device", d->devnode);
		return;
	}
	if (d->read_only) {
		snprintf(s->reason, sizeof(s->reason), "'%s' is read-only", d->devnode);
		return;
	}
	if (device_has_signature(d) && !s->claimed_before && !s->wipe_allowed) {
		device_describe_signature(d, sig, sizeof(sig));
		snprintf(s->reason, sizeof(s->reason),
			 "'%s' holds %s that fsagent did not create; allow it with fsagent.wipe=%s", d->devnode, sig,
			 d->name);
		return;
	}
	s->state = ROLE_ASSIGNED;
}

static const char *default_spec(enum role role, char *buf, size_t size)
{
	snprintf(buf, size, "fsagent-%s", role_to_string(role));
	return buf;
}

static bool default_matches(enum role role, const struct device *d)
{
	char want[64];

	default_spec(role, want, sizeof(want));
	if (role == ROLE_POOL)
		return d->serial && startswith(d->serial, want);
	return eq(d->serial, want) || eq(d->label, want);
}

static void add_slot(struct roles *r, enum role role, unsigned index, const struct device *d, const char *how,
		     const struct roles_request *req)
{
	struct role_slot *s;

	if (r->n >= ARRAY_SIZE(r->v))
		return;
	s = &r->v[r->n];
	memset(s, 0, sizeof(*s));
	s->role = role;
	s->index = index;
	s->dev = d;
	snprintf(s->matched_by, sizeof(s->matched_by), "%s", how);
	judge(r, s, req);
	r->n++;
}

static void assign_one(const struct device_list *devs, enum role role, const struct roles_request *req, struct roles *r)
{
	const char *spec = req->spec[role];
	char how[160], want[64];

	for (size_t i = 0; i < devs->n; i++) {
		const struct device *d = &devs->v[i];

		if (spec	     ? !roles_spec_matches(spec, d)
		    : class_of(role) ? !in_class(role, d) || d->is_root || slot_of(r, d)
				     : !default_matches(role, d))
			continue;
		if (spec)
			snprintf(how, sizeof(how), "%s", spec);
		else if (class_of(role))
			snprintf(how, sizeof(how), "default: %s, %s in name order", class_of(role),
				 role == ROLE_DAX_TEST || role == ROLE_ZONED_TEST ? "first" : "second");
		else
			snprintf(how, sizeof(how), "default serial or label %s",
				 default_spec(role, want, sizeof(want)));
		add_slot(r, role, 0, d, how, req);
		return;
	}
	if (spec)
		snprintf(r->missing[role], sizeof(r->missing[role]), "%s", spec);
}

static void assign_pool(const struct device_list *devs, const struct roles_request *req, struct roles *r)
{
	char buf[1024], *save = NULL;
	unsigned idx = 0;

	if (!req->spec[ROLE_POOL]) {
		/* devices are sorted by name, so pool order is stable across boots */
		for (size_t i = 0; i < devs->n && idx < ROLES_MAX_POOL; i++)
			if (default_matches(ROLE_POOL, &devs->v[i]))
				add_slot(r, ROLE_POOL, idx++, &devs->v[i], "default serial fsagent-pool*", req);
		return;
	}
	snprintf(buf, sizeof(buf), "%s", req->spec[ROLE_POOL]);
	for (char *t = strtok_r(buf, ",", &save); t && idx < ROLES_MAX_POOL; t = strtok_r(NULL, ",", &save)) {
		bool found = false;

		for (size_t i = 0; i < devs->n && !found; i++)
			if (roles_spec_matches(t, &devs->v[i])) {
				add_slot(r, ROLE_POOL, idx++, &devs->v[i], t, req);
				found = true;
			}
		if (!found)
			snprintf(r->missing[ROLE_POOL], sizeof(r->missing[ROLE_POOL]), "%s", t);
	}
}

void roles_assign(const struct device_list *devs, const struct roles_request *req, struct roles *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (int role = 0; role < ROLE_POOL; role++)
		assign_one(devs, (enum role)role, req, ret);
	assign_pool(devs, req, ret);
}

const struct role_slot *roles_get(const struct roles *r, enum role role)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].role == role && r->v[i].state == ROLE_ASSIGNED)
			return &r->v[i];
	return NULL;
}

json_t *roles_to_json(const struct roles *r)
{
	json_t *assigned = json_object(), *pool = json_array(), *refused = json_array(), *missing = json_object();

	for (size_t i = 0; i < r->n; i++) {
		const struct role_slot *s = &r->v[i];
		json_t *j =
			json_pack("{s:s, s:s, s:s?, s:s?, s:s, s:b, s:b}", "role", role_to_string(s->role), "path",
				  s->dev->devnode, "serial", s->dev->serial, "by_id", s->dev->by_id, "matched_by",
				  s->matched_by, "claimed_before", s->claimed_before, "wipe_allowed", s->wipe_allowed);

		if (s->state == ROLE_REFUSED) {
			json_object_set_new(j, "reason", json_string(s->reason));
			json_array_append_new(refused, j);
		} else if (s->role == ROLE_POOL) {
			json_array_append_new(pool, j);
		} else {
			json_object_set_new(assigned, role_to_string(s->role), j);
		}
	}
	for (int role = 0; role < ROLE_MAX; role++)
		if (r->missing[role][0])
			json_object_set_new(missing, role_to_string((enum role)role), json_string(r->missing[role]));
	return json_pack("{s:o, s:o, s:o, s:o}", "assigned", assigned, "pool", pool, "refused", refused,
			 "unmatched_specs", missing);
}
