// SPDX-License-Identifier: MIT
/* Commit messages and mails: a backport's upstream id, its Fixes: lines, a mail's id and Subject, from a buffer with no
 * NUL. */
#include "fuzz.h"
#include "model/commit_tags.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes: ASan sees any read past the message */
	char *msg = malloc(size ? size : 1), id[COMMIT_ID_SIZE], ids[8][COMMIT_ID_SIZE], subj[64];
	size_t n, kept;

	if (!msg)
		return 0;
	memcpy(msg, data, size);
	if (commit_upstream_id(msg, size, id) == 0 && strlen(id) != 40)
		abort();
	n = commit_fixes(msg, size, ids, 8);
	kept = n < 8 ? n : 8;
	for (size_t i = 0; i < kept; i++)
		if (strlen(ids[i]) < 8 || strlen(ids[i]) > 40 || !commit_id_names(ids[i], ids[i]))
			abort();
	/* a mail's subject fits its buffer, never empty when it is a patch; its id is 40 digits or none */
	if (commit_mail(msg, size, id, subj, sizeof(subj)) == 0 && (!subj[0] || strlen(subj) >= sizeof(subj)))
		abort();
	if (id[0] && strlen(id) != 40)
		abort();
	free(msg);
	return 0;
}
