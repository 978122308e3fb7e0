/* SPDX-License-Identifier: MIT */
/*
 * Logging for the agent: one line per message, "fsagent: <text>" with a
 * monotonic timestamp, to stderr or to a file descriptor chosen by pid1.
 * Libraries never call this; the code that makes a decision does.
 */
#pragma once

#include "macro.h"

#include <stddef.h>

enum log_level { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG, LOG_LVL_MAX };

/*
 * Send messages to fd (not owned) and drop those above max_level; from then
 * on lines carry the uptime, as the kernel's do on the guest's console
 * ("[  47.439] fsagent: ..."). Without it (a host's command): "fsagent: ...".
 */
void log_setup(int fd, enum log_level max_level);
enum log_level log_get_max_level(void);
void log_msg(enum log_level lvl, const char *fmt, ...) _printf_(2, 3);

/*
 * Make text safe for a terminal in place: control characters other than
 * newline and tab (escape sequences among them) become '?'. For text that
 * came from a guest. log_msg() does it to every message, newlines included.
 */
void log_printable(char *s, size_t len);

#define log_err(...) log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)
