// SPDX-License-Identifier: MIT
/*
 * Assembles caps.json from caps.c, devices.c and roles.c (see inventory.h).
 */
#include "machine/inventory.h"
#include "machine/userspace.h"
#include "util/sysroot.h"
#include "util/strv.h"
#include "util/version.h"

#include <errno.h>
#include <string.h>

static void set_roles(struct inventory *inv, const struct roles_request *req)
{
	static const struct roles_request none;

	roles_assign(&inv->devs, req ? req : &none, &inv->roles);
	json_object_set_new(inv->doc, "roles", roles_to_json(&inv->roles));
}

int inventory_build(struct modules *mods, const struct roles_request *req, struct inventory *ret)
{
	struct inventory inv = { .mods = mods };
	json_t *caps;
	int r;

	r = caps_collect(mods, &inv.caps, &caps);
	if (r < 0)
		return r;
	r = devices_scan(&inv.devs);
	if (r < 0) {
		json_decref(caps);
		return r;
	}
	inv.doc = json_pack("{s:s, s:s}", "schema", CAPS_SCHEMA, "fsagent_version", fsagent_version);
	if (!inv.doc) {
		json_decref(caps);
		device_list_release(&inv.devs);
		return -ENOMEM;
	}
	json_object_update(inv.doc, caps);
	json_decref(caps);
	json_object_set_new(inv.doc, "devices", devices_to_json(&inv.devs));
	json_object_set_new(inv.doc, "userspace", userspace_collect());
	set_roles(&inv, req);
	*ret = inv;
	return 0;
}

void inventory_update(struct inventory *inv, const struct roles_request *req)
{
	json_object_set_new(inv->doc, "devices", devices_to_json(&inv->devs));
	json_object_set_new(inv->doc, "filesystems", caps_filesystems_json(inv->mods));
	/* once, or again after the switch to the image's root, where image/build's record is */
	if (!json_object_get(inv->doc, "userspace") ||
	    (!json_object_get(json_object_get(inv->doc, "userspace"), "image_id") &&
	     sysroot_exists("%s", USERSPACE_FILE)))
		json_object_set_new(inv->doc, "userspace", userspace_collect());
	set_roles(inv, req);
}

void inventory_release(struct inventory *inv)
{
	device_list_release(&inv->devs);
	json_decref(inv->doc);
	memset(inv, 0, sizeof(*inv));
}

char **inventory_cap_names(const struct inventory *inv)
{
	static const struct {
		const char *option, *name;
	} configured[] = {
		{ "KASAN", "kasan" },
		{ "KCSAN", "kcsan" },
		{ "UBSAN", "ubsan" },
		{ "KFENCE", "kfence" },
		{ "DEBUG_KMEMLEAK", "kmemleak" },
		{ "GCOV_KERNEL", "gcov" },
	};
	json_t *opts = json_object_get(json_object_get(inv->doc, "kconfig"), "options");
	char **v = strv_split("", ",");
	bool dax = false, zoned = false, pmem = false;

	if (!v)
		return NULL;
	if (inv->caps.lockdep_live)
		strv_push(&v, "lockdep");
	for (size_t i = 0; i < sizeof(configured) / sizeof(configured[0]); i++) {
		const char *val = json_string_value(json_object_get(opts, configured[i].option));

		if (val && strcmp(val, "y") == 0)
			strv_push(&v, configured[i].name);
	}
	for (size_t i = 0; i < inv->devs.n; i++) {
		dax |= inv->devs.v[i].dax;
		pmem |= inv->devs.v[i].transport && strcmp(inv->devs.v[i].transport, "pmem") == 0;
		zoned |= strcmp(inv->devs.v[i].zoned, "none") != 0;
	}
	if (dax)
		strv_push(&v, "dax");
	if (pmem)
		strv_push(&v, "pmem");
	if (zoned)
		strv_push(&v, "zoned");
	return v;
}
