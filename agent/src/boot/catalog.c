// SPDX-License-Identifier: MIT
/*
 * Catalog loading and fstests config sections (see catalog.h).
 */
#include "boot/catalog.h"
#include "machine/caps.h"
#include "util/fileio.h"
#include "util/lines.h"
#include "util/macro.h"
#include "util/strv.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void fs_config_release(struct fs_config *c)
{
	free(c->mkfs);
	free(c->mount);
	free(c->test_mount);
	strv_free(c->requires);
	memset(c, 0, sizeof(*c));
}

static int set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(v);
	return *dst ? 0 : -ENOMEM;
}

int catalog_parse(const char *name, const char *file, const char *buf, struct fs_config *ret, char *err, size_t es)
{
	struct fs_config c = { 0 };
	struct lines l;
	int rl;

	snprintf(c.name, sizeof(c.name), "%s", name);
	c.requires = strv_split("", ",");
	lines_init(&l, buf);
	while ((rl = lines_next(&l)) > 0) {
		const unsigned lineno = l.lineno;
		char *key, *val;
		int r = 0;

		if (lines_key_value(&l, file, &key, &val, err, es) < 0)
			goto bad;
		if (streq(key, "fstype") || streq(key, "export")) {
			char *dst = streq(key, "fstype") ? c.fstype : c.export_fstype;

			if (!*val || strlen(val) >= sizeof(c.fstype) ||
			    strspn(val, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(val)) {
				snprintf(err, es, "%s:%u: key '%s': '%s' is not a filesystem type", file, lineno, key,
					 val);
				goto bad;
			}
			snprintf(dst, sizeof(c.fstype), "%s", val);
		} else if (streq(key, "mkfs")) {
			r = set_str(&c.mkfs, val);
		} else if (streq(key, "mount")) {
			r = set_str(&c.mount, val);
		} else if (streq(key, "test_mount")) {
			r = set_str(&c.test_mount, val);
		} else if (streq(key, "devices")) {
			char **v = strv_split(val, ", ");

			for (size_t i = 0; v && v[i]; i++) {
				if (streq(v[i], "log"))
					c.devices |= CAT_DEV_LOG;
				else if (streq(v[i], "rt"))
					c.devices |= CAT_DEV_RT;
				else if (streq(v[i], "logwrites"))
					c.devices |= CAT_DEV_LOGWRITES;
				else if (streq(v[i], "pool"))
					c.devices |= CAT_DEV_POOL;
				else if (streq(v[i], "dax"))
					c.devices |= CAT_DEV_DAX;
				else if (streq(v[i], "zoned"))
					c.devices |= CAT_DEV_ZONED;
				else if (streq(v[i], "none"))
					c.devices |= CAT_DEV_NONE;
				else {
					snprintf(err, es, "%s:%u: key 'devices': unknown device '%s'", file, lineno,
						 v[i]);
					strv_free(v);
					goto bad;
				}
			}
			strv_free(v);
			if ((c.devices & CAT_DEV_NONE) && c.devices != CAT_DEV_NONE) {
				snprintf(err, es, "%s:%u: key 'devices': 'none' with devices", file, lineno);
				goto bad;
			}
		} else if (streq(key, "overlay")) {
			if (!streq(val, "yes") && !streq(val, "no")) {
				snprintf(err, es, "%s:%u: key 'overlay': '%s' is not yes or no", file, lineno, val);
				goto bad;
			}
			c.overlay = streq(val, "yes");
		} else if (streq(key, "requires")) {
			char **v = strv_split(val, ", ");

			for (size_t i = 0; v && v[i]; i++) {
				struct kver kv;

				if (startswith(v[i], "kernel>=") && kver_parse(v[i] + 8, &kv) == 0)
					continue;
				if (!startswith(v[i], "config:") && !streq(v[i], "dax") && !streq(v[i], "zoned") &&
				    !streq(v[i], "pmem") && !streq(v[i], "lockdep")) {
					snprintf(err, es, "%s:%u: key 'requires': unknown requirement '%s'", file,
						 lineno, v[i]);
					strv_free(v);
					goto bad;
				}
				/* an option caps.json does not read would never be met */
				if (startswith(v[i], "config:") && !caps_kconfig_collected(v[i] + 7)) {
					snprintf(err, es,
						 "%s:%u: key 'requires': CONFIG_%s is not an option fsagent reads from "
						 "the kernel's config (machine/caps.c)",
						 file, lineno, v[i] + 7);
					strv_free(v);
					goto bad;
				}
			}
			r = v ? strv_extend(&c.requires, v) : -ENOMEM;
			strv_free(v);
		} else {
			snprintf(err, es, "%s:%u: key '%s': unknown key", file, lineno, key);
			goto bad;
		}
		if (r < 0)
			goto nomem;
	}
	lines_release(&l);
	if (rl < 0)
		goto nomem;
	if (!c.fstype[0]) {
		snprintf(err, es, "%s: key 'fstype': missing", file);
		goto bad;
	}
	/* a network filesystem is tested here against the guest's own server, of what it exports */
	if ((streq(c.fstype, "nfs") || streq(c.fstype, "cifs")) != !!c.export_fstype[0]) {
		if (c.export_fstype[0])
			snprintf(err, es, "%s: key 'export': only nfs and cifs configs export a filesystem", file);
		else
			snprintf(err, es, "%s: key 'export': missing (the filesystem the guest's %s server exports)",
				 file, c.fstype);
		goto bad;
	}
	if (c.export_fstype[0] && (c.devices || c.overlay)) {
		snprintf(err, es, "%s: key '%s': not with export (the exports take the test and scratch devices)", file,
			 c.overlay ? "overlay" : "devices");
		goto bad;
	}
	*ret = c;
	return 0;
nomem:
	lines_release(&l);
	fs_config_release(&c);
	return -ENOMEM;
bad:
	lines_release(&l);
	fs_config_release(&c);
	return -EINVAL;
}

static bool name_ok(const char *name)
{
	const char *slash = strchr(name, '/');

	return slash && slash != name && slash[1] && !strchr(slash + 1, '/') && !strstr(name, "..") && name[0] != '.';
}

int catalog_load(const char *dir, const char *name, struct fs_config *ret, char *err, size_t es)
{
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX];
	int r;

	if (!name_ok(name)) {
		snprintf(err, es, "config '%s': not fs/name", name);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	r = fileio_read_full(path, &buf, NULL);
	if (r < 0) {
		snprintf(err, es, "config '%s': %s", name,
			 r == -ENOENT ? "no such config in the catalog" : strerror(-r));
		return r;
	}
	return catalog_parse(name, path, buf, ret, err, es);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "<fs>/all" for every directory of the catalog with an all file, sorted. */
static int all_families(const char *dir, char ***ret)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = strv_split("", ",");
	int r = 0;

	if (!d || !v) {
		r = d ? -ENOMEM : -errno;
		goto out;
	}
	while (r >= 0 && (de = readdir(d))) {
		char path[PATH_MAX], name[300];

		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s/all", dir, de->d_name) >= (int)sizeof(path) ||
		    access(path, R_OK) < 0)
			continue;
		snprintf(name, sizeof(name), "%s/all", de->d_name);
		r = strv_push(&v, name);
	}
	if (r >= 0)
		qsort(v, strv_length(v), sizeof(*v), cmp_str);
out:
	if (d)
		closedir(d);
	if (r < 0) {
		strv_free(v);
		v = NULL;
	}
	*ret = v;
	return r;
}

int catalog_expand(const char *dir, char *const *names, char ***ret, char *err, size_t es)
{
	char **out = strv_split("", ","), **fams_out = NULL;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; names && names[i]; i++) {
		const char *slash = strchr(names[i], '/');

		if (streq(names[i], "all")) {
			/* every family's all, families in name order */
			char **fams = NULL;
			int r = all_families(dir, &fams);

			if (r == 0)
				r = catalog_expand(dir, fams, &fams_out, err, es);
			strv_free(fams);
			if (r < 0) {
				if (!*err)
					snprintf(err, es, "config 'all': %s", strerror(-r));
				strv_free(out);
				return r;
			}
			for (size_t k = 0; fams_out[k]; k++)
				if (!strv_contains(out, fams_out[k]))
					strv_push(&out, fams_out[k]);
			strv_free(fams_out);
			fams_out = NULL;
		} else if (slash && streq(slash + 1, "all")) {
			_cleanup_free_ char *buf = NULL;
			char path[PATH_MAX], fs[64];
			char **v;
			int r;

			snprintf(fs, sizeof(fs), "%.*s", (int)(slash - names[i]), names[i]);
			snprintf(path, sizeof(path), "%s/%s/all", dir, fs);
			r = fileio_read_full(path, &buf, NULL);
			if (r < 0) {
				snprintf(err, es, "config '%s': %s", names[i],
					 r == -ENOENT ? "no such filesystem in the catalog" : strerror(-r));
				strv_free(out);
				return r;
			}
			/* one name per line, '#' comments */
			for (char *c = buf; (c = strchr(c, '#'));)
				while (*c && *c != '\n')
					*c++ = ' ';
			v = strv_split(buf, " \t\n");
			for (size_t k = 0; v && v[k]; k++) {
				char full[128];

				snprintf(full, sizeof(full), "%s/%s", fs, v[k]);
				if (!strv_contains(out, full))
					strv_push(&out, full);
			}
			strv_free(v);
		} else if (!strv_contains(out, names[i])) {
			strv_push(&out, names[i]);
		}
	}
	*ret = out;
	return 0;
}

enum role catalog_test_role(const struct fs_config *c)
{
	return c->devices & CAT_DEV_DAX ? ROLE_DAX_TEST : c->devices & CAT_DEV_ZONED ? ROLE_ZONED_TEST : ROLE_TEST;
}

enum role catalog_scratch_role(const struct fs_config *c)
{
	return c->devices & CAT_DEV_DAX	    ? ROLE_DAX_SCRATCH
	       : c->devices & CAT_DEV_ZONED ? ROLE_ZONED_SCRATCH
					    : ROLE_SCRATCH;
}

const char *catalog_unmet(const struct fs_config *c, const struct catalog_machine *m, char *buf, size_t size)
{
	const struct roles *roles = m->roles;
	static const struct {
		unsigned bit;
		enum role role;
		const char *what;
	} devs[] = {
		{ CAT_DEV_LOG, ROLE_LOG, "log" },
		{ CAT_DEV_RT, ROLE_RT, "realtime" },
		{ CAT_DEV_LOGWRITES, ROLE_LOGWRITES, "log-writes" },
		{ CAT_DEV_POOL, ROLE_POOL, "scratch pool" },
	};

	const bool test = (c->devices & CAT_DEV_NONE) || roles_get(roles, catalog_test_role(c)),
		   scratch = (c->devices & (CAT_DEV_POOL | CAT_DEV_NONE)) || roles_get(roles, catalog_scratch_role(c));

	if (!test || !scratch) {
		if (c->devices & CAT_DEV_DAX)
			snprintf(buf, size, test ? "no second DAX device for scratch" : "no DAX device");
		else if (c->devices & CAT_DEV_ZONED)
			snprintf(buf, size, "no zoned %s device", test ? "scratch" : "test");
		else
			snprintf(buf, size, "no %s device", test ? "scratch" : "test");
		return buf;
	}
	for (size_t i = 0; i < ARRAY_SIZE(devs); i++)
		if ((c->devices & devs[i].bit) && !roles_get(roles, devs[i].role)) {
			snprintf(buf, size, "no %s device", devs[i].what);
			return buf;
		}
	for (size_t i = 0; c->requires && c->requires[i]; i++) {
		const char *req = c->requires[i];

		if (startswith(req, "kernel>=")) {
			struct kver want;

			kver_parse(req + 8, &want); /* checked when the catalog was read */
			if (!m->kernel || kver_cmp(m->kernel, &want) < 0) {
				snprintf(buf, size, "kernel older than %s", req + 8);
				return buf;
			}
		} else if (startswith(req, "config:")) {
			const char *v = json_string_value(json_object_get((const json_t *)m->kconfig_options, req + 7));

			if (!v || streq(v, "n")) {
				snprintf(buf, size, "kernel without CONFIG_%s", req + 7);
				return buf;
			}
		} else if (!strv_contains(m->caps, req)) {
			snprintf(buf, size, "no %s device", streq(req, "dax") ? "DAX" : req);
			if (streq(req, "lockdep"))
				snprintf(buf, size, "lockdep is not live");
			return buf;
		}
	}
	return NULL;
}

void catalog_section_name(const struct fs_config *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s", c->name);
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '_';
}

/* Join a and b with a space, either may be NULL or empty. */
static char *join(const char *a, const char *b)
{
	char *r = NULL;

	if (asprintf(&r, "%s%s%s", a ? a : "", a && *a && b && *b ? " " : "", b ? b : "") < 0)
		return NULL;
	return r;
}

/* "-o a,b" -> "-o credentials=FILE,a,b"; anything else gets "-o credentials=FILE " before it. */
static int with_credentials(char **opts)
{
	static const char cred[] = "credentials=" CATALOG_SMB_CREDENTIALS;
	char *n = NULL;
	int r;

	if (startswith(*opts, "-o ") && (*opts)[3] && (*opts)[3] != ' ')
		r = asprintf(&n, "-o %s,%s", cred, *opts + 3);
	else
		r = asprintf(&n, "-o %s%s%s", cred, **opts ? " " : "", *opts);
	if (r < 0)
		return -ENOMEM;
	free(*opts);
	*opts = n;
	return 0;
}

static int put(FILE *out, const char *key, const char *value, char *err, size_t es)
{
	/* check's section parser strips '#...' and one pair of quotes, and evals the rest */
	if (!value || !*value)
		return 0;
	if (strpbrk(value, "#\"'`$\\\n")) {
		snprintf(err, es, "key '%s': '%s' holds a character fstests' config parser mangles", key, value);
		return -EINVAL;
	}
	fprintf(out, "%s=\"%s\"\n", key, value);
	return 0;
}

int catalog_write_section(const struct fs_config *c, const struct plan *p, const struct roles *roles,
			  const char *result_base, FILE *out, char *err, size_t es)
{
	const struct role_slot *test = roles_get(roles, catalog_test_role(c)),
			       *scratch = roles_get(roles, catalog_scratch_role(c));
	_cleanup_free_ char *mkfs = join(c->mkfs, p->mkfs_options), *mnt = join(c->mount, p->mount_options),
			    *tmnt = join(c->test_mount, p->mount_options), *pool = NULL;
	char section[80];
	int r = 0;

	if (!mkfs || !mnt || !tmnt)
		return -ENOMEM;
	/* every cifs mount fstests makes names the credentials (a test's own -o comes after) */
	if (c->export_fstype[0] && streq(c->fstype, "cifs") &&
	    ((r = with_credentials(&mnt)) < 0 || (r = with_credentials(&tmnt)) < 0))
		return r;
	if (!test && !(c->devices & CAT_DEV_NONE)) {
		snprintf(err, es, "no test device");
		return -EINVAL;
	}
	catalog_section_name(c, section, sizeof(section));
	fprintf(out, "[%s]\n", section);
	r = put(out, "FSTYP", c->fstype, err, es);
	if (!r && (c->devices & CAT_DEV_NONE)) {
		/* no block devices (tmpfs): the names fstests gives them (common/config), both set */
		char tdev[32], sdev[32];

		snprintf(tdev, sizeof(tdev), "%s_test", c->fstype);
		snprintf(sdev, sizeof(sdev), "%s_scratch", c->fstype);
		r = put(out, "TEST_DEV", tdev, err, es);
		if (!r)
			r = put(out, "SCRATCH_DEV", sdev, err, es);
	} else if (!r && c->export_fstype[0]) {
		/* the guest's own server: nfs as HOST:/PATH, cifs as //HOST/SHARE (common/rc _require_scratch) */
		const bool nfs = streq(c->fstype, "nfs");

		r = put(out, "TEST_DEV", nfs ? "localhost:" CATALOG_EXPORT_TEST : "//localhost/test", err, es);
		if (!r)
			r = put(out, "SCRATCH_DEV", nfs ? "localhost:" CATALOG_EXPORT_SCRATCH : "//localhost/scratch",
				err, es);
	} else if (!r) {
		r = put(out, "TEST_DEV", test->dev->devnode, err, es);
	}
	if (!r)
		r = put(out, "TEST_DIR", "/mnt/test", err, es);
	if (!r && (c->devices & CAT_DEV_POOL)) {
		/* btrfs: SCRATCH_DEV must stay unset; check takes the pool's first */
		for (size_t i = 0; i < roles->n; i++) {
			const struct role_slot *s = &roles->v[i];
			char *np;

			if (s->role != ROLE_POOL || s->state != ROLE_ASSIGNED)
				continue;
			np = join(pool, s->dev->devnode);
			free(pool);
			pool = np;
			if (!pool)
				return -ENOMEM;
		}
		r = put(out, "SCRATCH_DEV_POOL", pool, err, es);
	} else if (!r && scratch && !(c->devices & CAT_DEV_NONE) && !c->export_fstype[0]) {
		r = put(out, "SCRATCH_DEV", scratch->dev->devnode, err, es);
	}
	if (!r)
		r = put(out, "SCRATCH_MNT", "/mnt/scratch", err, es);
	if (!r && (c->devices & (CAT_DEV_LOG | CAT_DEV_RT)))
		r = put(out, "USE_EXTERNAL", "yes", err, es);
	if (!r && (c->devices & CAT_DEV_LOG)) {
		/* one log device serves scratch; the test fs is made without it */
		r = put(out, "SCRATCH_LOGDEV", roles_get(roles, ROLE_LOG)->dev->devnode, err, es);
	}
	if (!r && (c->devices & CAT_DEV_RT))
		r = put(out, "SCRATCH_RTDEV", roles_get(roles, ROLE_RT)->dev->devnode, err, es);
	if (!r && roles_get(roles, ROLE_LOGWRITES))
		r = put(out, "LOGWRITES_DEV", roles_get(roles, ROLE_LOGWRITES)->dev->devnode, err, es);
	/* a loopback config's mkfs options are the export's, fsagent's to use */
	if (!r && !c->export_fstype[0])
		r = put(out, "MKFS_OPTIONS", mkfs, err, es);
	if (!r)
		r = put(out, "MOUNT_OPTIONS", mnt, err, es);
	if (!r)
		r = put(out, "TEST_FS_MOUNT_OPTS", tmnt, err, es);
	if (!r)
		r = put(out, "RESULT_BASE", result_base, err, es);
	/* the plan's fstests.NAME knobs, checked by name and kind (model/fstests_vars) */
	{
		const char *name;
		json_t *v;

		json_object_foreach(p->fstests, name, v) {
			if (r)
				break;
			r = put(out, name, json_string_value(v), err, es);
		}
	}
	return r;
}
