/* SPDX-License-Identifier: MIT */
/*
 * Logging for the agent: one line per message, "fsagent: <text>" with a
 * monotonic timestamp, to stderr or to a file descriptor chosen by pid1.
 * Libraries never call this; the code that makes a decision does.
 */
#pragma once

#include "macro.h"

enum log_level { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG, LOG_LVL_MAX };

/* Send messages to fd (not owned) and drop those above max_level. */
void log_setup(int fd, enum log_level max_level);
enum log_level log_get_max_level(void);
void log_msg(enum log_level lvl, const char *fmt, ...) _printf_(2, 3);

#define log_err(...) log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)
