// SPDX-License-Identifier: MIT
/* /dev/kmsg records and the classification of their messages. */
#include "fuzz.h"
#include "model/kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmsg_record rec;
	char test[64];

	if (kmsg_parse_record((const char *)data, size, &rec) == 0) {
		if (rec.msg < (const char *)data || rec.msg + rec.msg_len > (const char *)data + size)
			abort();
		kmsg_classify(rec.msg, rec.msg_len);
		kmsg_marker_test(rec.msg, rec.msg_len, test, sizeof(test));
	}
	kmsg_classify((const char *)data, size);
	return 0;
}
