/* SPDX-License-Identifier: MIT */
/*
 * A run's results read out of the results disk on the host, without root
 * and without trusting anything on it.
 *
 * The results disk is an ext2/3/4 image the guest wrote: its kernel may be
 * buggy, a test may have corrupted it, an image may be malicious. So the
 * image is read with libext2fs (never mounted, never handed to a tool that
 * recreates what it finds) and only regular files and directories with
 * plain names ([A-Za-z0-9._+,=@%:-]) are materialised, each created new
 * (mkdirat, openat O_CREAT|O_EXCL|O_NOFOLLOW) under a fresh private
 * directory, with modes 0644/0755 under the caller's umask and the caller
 * as owner. Symlinks, devices, FIFOs, sockets, names with '/', "..",
 * control bytes, duplicate names, a directory reached twice (a loop or a
 * hard-linked directory), files larger than the blocks they really use
 * (sparse giants), and anything past a cap are refused and listed in
 * extraction.json beside the bundle.
 *
 * Nothing is created outside into/ and nothing there is touched before the
 * run's own bundle.json, read off the disk, names the run id; the finished
 * tree is then renamed to into/<run id> only if no such entry exists.
 */
#pragma once

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct extract_limits {
	uint64_t max_file;    /* bytes of one file */
	uint64_t max_total;   /* bytes of all files together */
	uint64_t max_entries; /* files and directories materialised or refused */
	unsigned max_depth;   /* directory levels below the run's directory */
};

#define EXTRACT_MAX_FILE (1ULL << 30)
#define EXTRACT_MAX_TOTAL (4ULL << 30)
#define EXTRACT_MAX_ENTRIES 200000ULL
#define EXTRACT_MAX_DEPTH 16U
/* names the host writes into a run directory itself: refused from the disk */
#define EXTRACT_RESERVED "extraction.json", "console.log", "launcher-plan.conf", "results.img"

struct extract_result {
	char dest[PATH_MAX]; /* into/<run id> */
	char run_id[128];
	uint64_t files, dirs, bytes, refused;
};

/* The caps above. */
void extract_limits_default(struct extract_limits *lim);

/*
 * Extract run run_id (NULL: the one the disk's /current-run names) from
 * the ext2/3/4 image into into/<run id>/, with extraction.json listing what
 * was refused. Returns 0; -EEXIST when into/<run id> exists (the extracted
 * tree is left in a private directory err names); -EBADMSG when the disk
 * holds no such run or its bundle names another id; or -errno. err says
 * what, naming the image and the entry.
 */
int extract_run(const char *image, const char *run_id, const char *into, const struct extract_limits *lim,
		struct extract_result *res, char *err, size_t errsize);

/* Whether c may appear in a materialised name. */
int extract_name_char(int c);
