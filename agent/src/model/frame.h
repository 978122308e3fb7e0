/* SPDX-License-Identifier: MIT */
/*
 * Framing of a document on the serial console so a host script can cut it
 * out of a log where kernel messages interleave:
 *
 *   FSAGENT-BEGIN <name> len=<bytes> crc32=<hex>
 *   FSAGENT|<name>|<line of the document>
 *   FSAGENT-END <name>
 *
 * Lines of other output between them are ignored; the length and CRC-32 say
 * whether what was cut out is whole.
 */
#pragma once

#include <stddef.h>

/* Write data framed as name to fd. Returns 0 or -errno. */
int frame_write(int fd, const char *name, const char *data, size_t len);

/*
 * Find the last complete frame called name in log and return its document
 * (heap, NUL terminated, caller frees). Returns 0, -ENOENT when there is no
 * frame, -EBADMSG when the last one is cut short or its CRC does not match.
 */
int frame_extract(const char *log, const char *name, char **ret, size_t *ret_len);
