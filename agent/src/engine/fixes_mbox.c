// SPDX-License-Identifier: MIT
/* An mbox's patches as candidates (see fixes_mbox.h): git mailsplit, then model/commit_tags on each mail. */
#include "engine/fixes_mbox.h"
#include "engine/git.h"
#include "model/commit_tags.h"
#include "util/fileio.h"
#include "util/macro.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXES_MAX 16 /* Fixes: lines kept of one patch */

int fixes_from_mbox(const char *mbox, const char *dir, json_t **ret, char *err, size_t es)
{
	char opt[PATH_MAX + 4], said[512];
	const char *split[] = { "mailsplit", opt, mbox, NULL };
	_cleanup_free_ char *out = NULL;
	json_t *fixes;
	long n;
	int r;

	*ret = NULL;
	if (!fileio_exists(mbox)) {
		snprintf(err, es, "mbox '%s': no such file", mbox);
		return -EINVAL;
	}
	/* split again each time: the same mbox splits the same way, mails 1..N read */
	if ((r = fileio_mkdir_p(dir)) < 0) {
		snprintf(err, es, "create '%s' failed: %s", dir, strerror(-r));
		return r;
	}
	/* git mailsplit creates each file anew (O_EXCL): an earlier split's files go first */
	for (long k = 1;; k++) {
		char old[PATH_MAX + 16];

		snprintf(old, sizeof(old), "%s/%04ld", dir, k);
		if (unlink(old) < 0)
			break;
	}
	snprintf(opt, sizeof(opt), "-o%s", dir);
	r = git_capture(".", split, &out, said, sizeof(said));
	if (r != 0 || (n = strtol(out ? out : "0", NULL, 10)) <= 0) {
		snprintf(err, es, "mbox '%s': not an mbox of patches (git mailsplit: %s)", mbox,
			 r != 0 && said[0] ? said : "no mail in it");
		return r < 0 ? r : -EINVAL;
	}
	fixes = json_array();
	for (long k = 1; k <= n; k++) {
		char path[PATH_MAX + 16], id[COMMIT_ID_SIZE], up[COMMIT_ID_SIZE], subj[256],
			ids[FIXES_MAX][COMMIT_ID_SIZE];
		_cleanup_free_ char *mail = NULL;
		size_t len = 0, nf;
		json_t *named = json_array();

		snprintf(path, sizeof(path), "%s/%04ld", dir, k);
		if ((r = fileio_read_full(path, &mail, &len)) < 0 ||
		    commit_mail(mail, len, id, subj, sizeof(subj)) < 0) {
			snprintf(err, es, "mbox '%s': mail %ld of %ld is no patch (no Subject, or no diff)", mbox, k,
				 n);
			json_decref(named);
			json_decref(fixes);
			return r < 0 ? r : -EINVAL;
		}
		nf = commit_fixes(mail, len, ids, FIXES_MAX);
		for (size_t i = 0; i < nf && i < FIXES_MAX; i++)
			json_array_append_new(named, json_string(ids[i]));
		if (commit_upstream_id(mail, len, up) == 0)
			snprintf(id, sizeof(id), "%s", up);
		else if (!id[0])
			snprintf(id, sizeof(id), "patch-%ld", k);
		json_array_append_new(fixes, json_pack("{s:s, s:s, s:o, s:n, s:n, s:s}", "id", id, "subject", subj,
						       "fixes", named, "of", "in_stable", "patch", path));
	}
	*ret = fixes;
	return 0;
}
