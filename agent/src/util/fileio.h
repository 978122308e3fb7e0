/* SPDX-License-Identifier: MIT */
/*
 * Whole-file reads and crash-safe writes. Every fd is O_CLOEXEC.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Read all of path into a NUL-terminated heap buffer (*ret_buf, owned by the
 * caller); *ret_len (may be NULL) gets the length without the NUL. Files in
 * /sys and /proc report size 0, so this reads until EOF. Returns 0 or -errno.
 */
int fileio_read_full(const char *path, char **ret_buf, size_t *ret_len);

/* The same from an open fd (a pipe, say) until its end. Returns 0 or -errno. */
int fileio_read_fd(int fd, char **ret_buf, size_t *ret_len);

/*
 * Open rel, a path relative to the directory dirfd, for reading without
 * following a symlink anywhere on the way (each component O_NOFOLLOW; "."
 * and ".." components refused) and only when it is a regular file (a FIFO
 * is not waited on). For files a guest or another user wrote. Returns the
 * fd (O_CLOEXEC), -ELOOP (a symlink on the way), -EINVAL (not a regular
 * file, or a "."/".." component), or -errno.
 */
int fileio_open_beneath(int dirfd, const char *rel);

/*
 * fileio_open_beneath(), then all of it into a NUL-terminated heap buffer,
 * refusing files over max bytes (-EFBIG). Returns 0 or -errno.
 */
int fileio_read_beneath(int dirfd, const char *rel, size_t max, char **ret_buf, size_t *ret_len);

/* The same for a path: its directory (the caller's to name) is followed, its last component is not. */
int fileio_read_regular(const char *path, size_t max, char **ret_buf, size_t *ret_len);

/*
 * Read the first line of path, without its newline and with trailing
 * whitespace removed. Returns 0 or -errno.
 */
int fileio_read_line(const char *path, char **ret_line);

/*
 * Write data to path durably: path.tmp is written, fsync'd, renamed over path,
 * then the directory is fsync'd. A crash at any instant leaves either the old
 * file or the new one. Returns 0 or -errno.
 */
int fileio_write_atomic(const char *path, const void *data, size_t len);

/*
 * Write data to path (created or truncated) without fsync: for files whose
 * loss in a crash is acceptable (artifacts beside a durable index).
 * Returns 0 or -errno.
 */
int fileio_write_file(const char *path, const void *data, size_t len);

/*
 * Replace path with data at the cost of one flush: path.tmp is written,
 * renamed over path, then fsync'd. On ext4 (the results disk) fsync commits
 * the journal transaction that holds the rename, and replace-by-rename
 * makes ext4 write the data before that commit, so a crash at any instant
 * leaves the old file or the new one, and the new one is durable on return.
 * Returns 0 or -errno.
 */
int fileio_write_replace(const char *path, const void *data, size_t len);

/* Write all of buf to fd, retrying short writes and EINTR. Returns 0 or -errno. */
int fileio_write_all(int fd, const void *buf, size_t len);

/* Create a directory and its parents (mode 0755); existing ones are fine. */
int fileio_mkdir_p(const char *path);

/* buf[PATH_MAX] = printf(fmt, ...). Returns 0, or -ENAMETOOLONG when it does not fit. */
int fileio_pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether path names anything (stat succeeds). */
bool fileio_exists(const char *path);

/* from's bytes (at most 64 MiB) into to, by fileio_write_atomic. Returns 0 or -errno. */
int fileio_copy(const char *from, const char *to);

/* fileio_mkdir_p() of the directory that will hold path. Returns 0 or -errno. */
int fileio_mkdir_parent(const char *path);

/* Trim leading and trailing whitespace in place; returns s moved past leading blanks. */
char *fileio_strstrip(char *s);

/* Parse a decimal u64 with nothing but whitespace after it. Returns 0 or -EINVAL/-ERANGE. */
int fileio_parse_u64(const char *s, unsigned long long *ret);

/* This process's peak resident memory (VmHWM) in kB, or -1. */
long fileio_peak_rss_kb(void);
