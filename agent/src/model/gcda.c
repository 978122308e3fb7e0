// SPDX-License-Identifier: MIT
/*
 * A .gcda file read whole or not (see gcda.h).
 */
#include "model/gcda.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

static uint32_t word(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether the records from pos end exactly at len (gcc ends the file with a zero word, the kernel does not). */
static bool records_whole(const unsigned char *buf, size_t len, size_t pos)
{
	while (len - pos >= 8) {
		uint32_t tag = word(buf + pos), n = word(buf + pos + 4);

		pos += 8;
		/* a counters' record (0x01a10000 + kind << 17) of negative length (GCC 12): all zero, left out */
		if ((n & 0x80000000u) && (tag & 0xffe1ffffu) == 0x01a10000u)
			continue;
		if (n > len - pos)
			return false;
		pos += n;
	}
	return pos == len || (len - pos == 4 && word(buf + pos) == 0);
}

int gcda_check(const unsigned char *buf, size_t len, const char **why)
{
	if (!len) {
		*why = "empty";
		return -EBADMSG;
	}
	if (len < 12 || word(buf) != 0x67636461) {
		*why = "not a gcov data file";
		return -EBADMSG;
	}
	/* the header: 16 bytes since GCC 12 (a checksum), 12 before */
	if (records_whole(buf, len, 16) || records_whole(buf, len, 12))
		return 0;
	*why = "cut short or damaged: its records do not end where the file does";
	return -EBADMSG;
}
