/* SPDX-License-Identifier: MIT */
/*
 * Small compiler helpers shared by every file: cleanup attributes, ownership
 * transfer, array sizes. No policy lives here.
 */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define _unused_ __attribute__((unused))
#define _noreturn_ __attribute__((noreturn))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int e = errno;
		close(*fd);
		errno = e;
	}
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* DEFINE_CLEANUP(type, fn) makes type##_cleanupp for _cleanup_() on a pointer. */
#define DEFINE_CLEANUP(type, fn)           \
	static inline void fn##p(type **p) \
	{                                  \
		if (*p)                    \
			fn(*p);            \
	}

/* Hand ownership out of a cleanup variable. */
#define TAKE_PTR(p)                      \
	({                               \
		__typeof__(p) _tp = (p); \
		(p) = NULL;              \
		_tp;                     \
	})
#define TAKE_FD(fd)             \
	({                      \
		int _tf = (fd); \
		(fd) = -1;      \
		_tf;            \
	})

#define streq(a, b) (strcmp((a), (b)) == 0)
#define startswith(s, p) (strncmp((s), (p), strlen(p)) == 0)
