/* SPDX-License-Identifier: MIT */
/*
 * What a run session (session.c) and a shell session (session_shell.c)
 * share: the session's state, the plan loaded, the configs prepared.
 */
#pragma once

#include "boot/session.h"
#include "model/plan.h"
#include "run/run.h"

#include <limits.h>
#include <stddef.h>

#define FSAGENT_RUN_DIR "/run/fsagent" /* tmpfs: what check reads this boot */

struct progress {
	const char *results;
	const char *run_id;
	char dir[PATH_MAX];
	int boots, stalled;
	size_t recorded;
};

struct session {
	struct progress pg;
	const struct boot_config *cfg;
	struct inventory *inv;
	const char *results;
	char run_id[64];
	const struct plan *plan;
	const char *catalog;
	char host_options[PATH_MAX]; /* every config's section, kept beside the bundle */
	char **config_files;	     /* per run_config: a file with its section only, for check */
	char rbase[PATH_MAX];	     /* check's RESULT_BASE: the bundle's fstests/ */
	char cur[PATH_MAX];	     /* <results>/current-run: the run a crash resumes */
	struct fs_config *fsc;	     /* per run_config */
	struct loopback *server;     /* the running config's NFS or SMB server, or NULL */
	struct run_config *rc;
	size_t n;
};

/* The plan from the boot config and the results disk into p. Returns 0 or -errno with err. */
int session_load_plan(struct plan *p, const struct boot_config *cfg, const char *results, char *err, size_t es);
/* The plan's configs from the catalog, each with its run_config and fstests section. Returns 0 or -errno. */
int session_load_configs(struct session *s, char ***sections, char *err, size_t es);
/* Format the test device, check it mounts, and write the config's section (a run_config's prepare). */
int session_prepare(void *data, const struct run_config *rc, char *why, size_t size);
/* What session_load_configs gave the session, and the section names. */
void session_release(struct session *s, char **sections);
