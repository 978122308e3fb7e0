/* SPDX-License-Identifier: MIT */
/*
 * Expunge files: tests known to fail or hang, with the conditions under
 * which that holds and a reason. One rule per line:
 *
 *   TEST [CONDITION...] # REASON
 *
 * TEST is dir/NNN or a glob (xfs/0??). Every CONDITION must hold:
 *   kernel<V kernel<=V kernel>V kernel>=V kernel=V   (6.6, 6.1.52, 6.7-rc3)
 *   fs=xfs[,ext4]   config=xfs/1k[,ext4/bigalloc_?k]   arch=x86_64[,aarch64]
 *   cap=NAME  !cap=NAME   (dax zoned pmem lockdep kasan kcsan kmemleak ubsan gcov ...)
 * The reason is required. A syntax error names file and line.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "model/kver.h"

enum expunge_op { EXP_LT, EXP_LE, EXP_GT, EXP_GE, EXP_EQ };

struct expunge_rule {
	char *pattern;
	char *reason;
	char *file;
	unsigned line;
	/* conditions; NULL/0 when absent */
	struct {
		enum expunge_op op;
		struct kver v;
	} kernel[4];
	unsigned n_kernel;
	char **fs, **configs, **arch, **caps, **not_caps;
};

struct expunge_list {
	struct expunge_rule *v;
	size_t n;
};

/* What a rule is judged against. */
struct expunge_ctx {
	struct kver kernel;
	const char *fs;
	const char *config;
	const char *arch;
	char *const *caps; /* NULL-terminated */
};

/*
 * Parse the expunge file text in buf, appending its rules to l. On error l
 * is unchanged and err holds "<file>:<line>: <what>". Returns 0 or -EINVAL.
 */
int expunge_parse(struct expunge_list *l, const char *file, const char *buf, char *err, size_t errsize);

/*
 * Read and parse each file of files (names relative to base, which may be
 * NULL for the current directory), appending to l. Errors name the file
 * (and line). Returns 0 or -errno.
 */
int expunge_load_files(struct expunge_list *l, const char *base, char *const *files, char *err, size_t errsize);

/* Whether rule r expunges test under ctx (caps NULL: none). */
bool expunge_rule_matches(const struct expunge_rule *r, const char *test, const struct expunge_ctx *ctx);

/* The first rule that expunges test under ctx, or NULL. */
const struct expunge_rule *expunge_match(const struct expunge_list *l, const char *test, const struct expunge_ctx *ctx);

void expunge_list_release(struct expunge_list *l);
