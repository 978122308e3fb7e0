/* SPDX-License-Identifier: MIT */
/*
 * Captured sysroots keep only the first 64 KiB of each device. libblkid
 * checks GPT against the device size, so tests replay a copy whose device
 * files are extended (sparsely) to the sizes sysfs reports.
 */
#pragma once

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Copy fixture into a new temp dir (path in buf) with full-size devices. Returns 0 or -1. */
static inline int fixture_materialize(const char *fixture, char *buf, size_t size)
{
	char cmd[PATH_MAX * 2 + 64], path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(buf, size, "/tmp/fsagent-sysroot-XXXXXX");
	if (!mkdtemp(buf))
		return -1;
	snprintf(cmd, sizeof(cmd), "cp -a '%s'/. '%s'/", fixture, buf);
	if (system(cmd) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/sys/block", buf);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		unsigned long long sectors = 0;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/sys/block/%s/size", buf, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &sectors) != 1)
			sectors = 0;
		fclose(f);
		snprintf(path, sizeof(path), "%s/dev/%s", buf, de->d_name);
		if (access(path, F_OK) == 0 && truncate(path, (off_t)(sectors * 512)) < 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

static inline void fixture_remove(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}
