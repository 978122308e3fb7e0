/* SPDX-License-Identifier: MIT */
/*
 * A log that cannot fill the disk: a job's output pumped from a pipe into
 * its log file, the first head bytes written as they come, the last tail
 * bytes kept in memory and written at the end, and what fell between them
 * named by a line in its place. A probe that prints 3 GB leaves a log of
 * head + tail bytes that still shows how it began and how it ended.
 */
#pragma once

#include <stddef.h>

/* The caps of a job's log (engine/job.c): 32 MiB of its head, 32 MiB of its tail. */
#define LOGCAP_HEAD ((size_t)32 << 20)
#define LOGCAP_TAIL ((size_t)32 << 20)

/*
 * Copy in to out until in's end, keeping head bytes and tail bytes as
 * above. Returns the number of bytes cut (0: the log holds everything), or
 * -errno (a failed read or write; what was written stays).
 */
long long logcap_pump(int in, int out, size_t head, size_t tail);
