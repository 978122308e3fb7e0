/* SPDX-License-Identifier: MIT */
/*
 * The daemons a run needs beside fstests (an NFS or SMB server inside the
 * guest, where fsagent is PID 1 and no init system starts them), started
 * in order and kept running:
 *   - each daemon runs in the foreground (its own process group), its
 *     stdout and stderr appended to LOGDIR/NAME.log;
 *   - after starting one, its readiness probe (a command) runs until it
 *     exits 0, the daemon answers, before the next starts; a daemon that
 *     exits first, or does not answer within the deadline, fails the start
 *     with its name and the last lines of its log;
 *   - a one-shot step (rpc.nfsd, exportfs) runs to completion and must
 *     exit 0;
 *   - supervisor_check, between tests, finds the daemons that died, names
 *     them with their last lines and starts them again (probe included);
 *   - supervisor_stop stops them in reverse order: each one's stop command
 *     (a step's undoing: rpc.nfsd 0), then SIGTERM, SIGKILL after a grace;
 *     before the disks they serve are unmounted.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct daemon_spec {
	const char *name;	  /* "rpc.mountd": the log's name and the messages' */
	const char *const *argv;  /* run in the foreground */
	const char *const *ready; /* exits 0 once the daemon answers; NULL: started is ready */
	bool oneshot;		  /* a step that runs to completion (exit 0) instead of a daemon */
	/* run to completion at supervisor_stop before the daemon is signalled (rpc.nfsd 0 ends
	 * the kernel's server threads a step started); NULL: none */
	const char *const *stop;
};

struct supervisor;

/* ready_ms: how long a daemon may take to answer. Returns 0 or -ENOMEM. */
int supervisor_new(const char *logdir, unsigned ready_ms, struct supervisor **ret);

/*
 * Start n daemons in order (the specs must outlive the supervisor).
 * Returns 0; -ETIMEDOUT (a daemon never answered), -ECHILD (one exited, or
 * a step failed) or -errno (one could not start) with why naming it and
 * its last lines; those started before it keep running (supervisor_stop).
 */
int supervisor_start(struct supervisor *s, const struct daemon_spec *d, size_t n, char *why, size_t whysize);

/*
 * The daemons that died since the last look, each started again: returns
 * how many died (why names them, their exit status and last lines), or
 * -errno when one could not be started again (why says so).
 */
int supervisor_check(struct supervisor *s, char *why, size_t whysize);

/*
 * Stop every daemon and undo every step, the last started first: its stop
 * command (output in its log), then SIGTERM, SIGKILL after a grace.
 */
void supervisor_stop(struct supervisor *s);

void supervisor_free(struct supervisor *s);

/* The last n lines of a log (at most size bytes, joined by " | "), for messages. */
void supervise_last_lines(const char *path, unsigned n, char *buf, size_t size);
