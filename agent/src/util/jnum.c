// SPDX-License-Identifier: MIT
/*
 * Counts read back from JSON (see jnum.h).
 */
#include "util/jnum.h"

#include <errno.h>

int jnum_count(const json_t *v, json_int_t max, json_int_t *ret)
{
	json_int_t n;

	if (!v)
		return -ENOENT;
	if (!json_is_integer(v))
		return -EBADMSG;
	n = json_integer_value(v);
	if (n < 0 || n > max)
		return -EBADMSG;
	*ret = n;
	return 0;
}
