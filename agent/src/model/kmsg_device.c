// SPDX-License-Identifier: MIT
/*
 * Device names in kernel messages (see kmsg_device.h).
 */
#include "model/kmsg_device.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/* The device name at p (before end), ended by ')', ':', ',' or a blank. */
static int take(const char *p, const char *end, char *buf, size_t size)
{
	const char *q = p;

	while (q < end && name_char(*q))
		q++;
	if (q == p || q == end || (*q != ')' && *q != ':' && *q != ',' && *q != ' '))
		return -ENOENT;
	if ((size_t)(q - p) >= size)
		return -ENAMETOOLONG;
	memcpy(buf, p, (size_t)(q - p));
	buf[q - p] = '\0';
	return 0;
}

static const char *find(const char *msg, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (const char *p = msg; p + n <= end; p++)
		if (memcmp(p, needle, n) == 0)
			return p + n;
	return NULL;
}

/*
 * A filesystem's prefix: a word of letters, digits and '-' ("XFS",
 * "EXT4-fs", "BTRFS"), then lower-case words ("error", "info"), then
 * " (" and the device, perhaps after "device ".
 */
static int fs_prefix(const char *msg, const char *end, char *buf, size_t size)
{
	const char *p = msg;

	while (p < end && ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == 'f' || *p == 's'))
		p++;
	if (p == msg || !(*msg >= 'A' && *msg <= 'Z'))
		return -ENOENT;
	while (p + 1 < end && *p == ' ' && p[1] >= 'a' && p[1] <= 'z') {
		p++;
		while (p < end && *p >= 'a' && *p <= 'z')
			p++;
	}
	if (end - p < 3 || memcmp(p, " (", 2) != 0)
		return -ENOENT;
	p += 2;
	if (end - p > 7 && memcmp(p, "device ", 7) == 0)
		p += 7;
	return take(p, end, buf, size);
}

int kmsg_device(const char *msg, size_t len, char *buf, size_t size)
{
	const char *end = msg + len, *p;
	int r = fs_prefix(msg, end, buf, size);

	if (r != -ENOENT)
		return r;
	if ((p = find(msg, end, "I/O error, dev ")) || (p = find(msg, end, "I/O error on dev ")))
		return take(p, end, buf, size);
	return -ENOENT;
}
