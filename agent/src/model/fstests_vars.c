// SPDX-License-Identifier: MIT
/* fstests' own knobs in a plan (see fstests_vars.h). */
#include "model/fstests_vars.h"
#include "util/macro.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum var_kind { V_POSITIVE, V_UINT, V_DURATION, V_YESNO, V_ZEROONE, V_TRUEFALSE, V_WORD, V_OPTIONS, V_PATIENCE };

static const struct {
	const char *name;
	enum var_kind kind;
} vars[] = {
	{ "TIME_FACTOR", V_POSITIVE },	   { "LOAD_FACTOR", V_POSITIVE },
	{ "SOAK_DURATION", V_DURATION },   { "DIFF_LENGTH", V_UINT },
	{ "MIN_FSSIZE", V_UINT },	   { "FSSTRESS_AVOID", V_OPTIONS },
	{ "FSX_AVOID", V_OPTIONS },	   { "USE_KMEMLEAK", V_YESNO },
	{ "KEEP_DMESG", V_YESNO },	   { "CANON_DEVS", V_YESNO },
	{ "DUMP_CORRUPT_FS", V_ZEROONE },  { "TEST_FS_MODULE_RELOAD", V_ZEROONE },
	{ "DISABLE_UDF_TEST", V_ZEROONE }, { "IDMAPPED_MOUNTS", V_TRUEFALSE },
	{ "DUMP_COMPRESSOR", V_WORD },	   { "COREDUMP_COMPRESSOR", V_WORD },
	{ "PERF_CONFIGNAME", V_WORD },	   { "MODPROBE_PATIENT_RM_TIMEOUT_SECONDS", V_PATIENCE },
};

/* set by fsagent from the catalog and the devices */
static const char *const managed[] = {
	"FSTYP",	  "TEST_DEV",	   "TEST_DIR",		 "SCRATCH_DEV", "SCRATCH_MNT",	 "SCRATCH_DEV_POOL",
	"SCRATCH_LOGDEV", "SCRATCH_RTDEV", "TEST_LOGDEV",	 "TEST_RTDEV",	"LOGWRITES_DEV", "USE_EXTERNAL",
	"MKFS_OPTIONS",	  "MOUNT_OPTIONS", "TEST_FS_MOUNT_OPTS", "RESULT_BASE", "REPORT_DIR",
};

static bool digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

double fstests_duration_seconds(const char *s)
{
	static const struct {
		char unit;
		double seconds;
	} units[] = { { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 604800 } };
	size_t n = s ? strspn(s, "0123456789") : 0, f = 0;
	double v;

	if (!n)
		return -1;
	if (s[n] == '.') {
		f = strspn(s + n + 1, "0123456789");
		if (!f)
			return -1;
		n += f + 1;
	}
	v = strtod(s, NULL);
	if (!s[n])
		return v;
	for (size_t i = 0; i < ARRAY_SIZE(units) && !s[n + 1]; i++)
		if (s[n] == units[i].unit)
			return v * units[i].seconds;
	return -1;
}

/* a program or a name: no spaces, nothing a shell or fstests' parser would read twice */
static bool word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._+-/", *s))
			return false;
	return true;
}

/* fsstress/fsx options: "-f setattr=0 -p 4" */
static bool options(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(" ._+-=,:/", *s))
			return false;
	return true;
}

int fstests_var_check(const char *name, const char *value, char *why, size_t size)
{
	static const char *const want[] = {
		[V_POSITIVE] = "a whole number above 0",
		[V_UINT] = "a whole number",
		[V_DURATION] = "a duration like 90, 1.5h, 2d",
		[V_YESNO] = "yes or no",
		[V_ZEROONE] = "0 or 1",
		[V_TRUEFALSE] = "true or false",
		[V_WORD] = "a name without spaces or quotes",
		[V_OPTIONS] = "options without quotes, '$' or '#'",
		[V_PATIENCE] = "a number of seconds or 'forever'",
	};

	for (size_t i = 0; i < ARRAY_SIZE(managed); i++)
		if (streq(name, managed[i])) {
			snprintf(why, size, "%s is set by fsagent from the config and its devices", name);
			return -EINVAL;
		}
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		bool ok;

		if (!streq(name, vars[i].name))
			continue;
		switch (vars[i].kind) {
		case V_POSITIVE: ok = digits(value) && strspn(value, "0") != strlen(value); break;
		case V_UINT: ok = digits(value); break;
		case V_DURATION: ok = fstests_duration_seconds(value) >= 0; break;
		case V_YESNO: ok = streq(value, "yes") || streq(value, "no"); break;
		case V_ZEROONE: ok = streq(value, "0") || streq(value, "1"); break;
		case V_TRUEFALSE: ok = streq(value, "true") || streq(value, "false"); break;
		case V_WORD: ok = word(value); break;
		case V_OPTIONS: ok = options(value); break;
		case V_PATIENCE: ok = digits(value) || streq(value, "forever"); break;
		default: ok = false;
		}
		if (!ok) {
			snprintf(why, size, "'%s' is not %s", value, want[vars[i].kind]);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(why, size,
		 "'%s' is not an fstests variable fsagent knows (TIME_FACTOR, LOAD_FACTOR, SOAK_DURATION, "
		 "FSSTRESS_AVOID, FSX_AVOID, USE_KMEMLEAK, KEEP_DMESG, DIFF_LENGTH, ...)",
		 name);
	return -EINVAL;
}
