// SPDX-License-Identifier: MIT
/* The console protocol (see console.h). */
#include "model/console.h"
#include "util/macro.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const final_words[CONSOLE_FINAL_MAX] = { "OK", "TESTS FAILED", "FATAL", "NOTHING RAN" };

const char *console_final_word(enum console_final f)
{
	return f < CONSOLE_FINAL_MAX ? final_words[f] : "?";
}

static int formatted(int n, size_t size)
{
	return n < 0 || (size_t)n >= size ? -ENOBUFS : 0;
}

int console_format_progress(char *buf, size_t size, size_t done, size_t total, const char *config, const char *test,
			    enum test_status st, double seconds, double left, const char *reason)
{
	char lbuf[40] = "";

	if (left >= 0 && left < 1e9)
		snprintf(lbuf, sizeof(lbuf), "; ~%.0fs left", left);
	return formatted(snprintf(buf, size, "[%zu/%zu] %s %s: %s (%.1fs%s)%s%s", done, total, config, test,
				  test_status_to_string(st), seconds, lbuf, reason && reason[0] ? ": " : "",
				  reason ? reason : ""),
			 size);
}

int console_format_final(char *buf, size_t size, enum console_final f, const char *summary, const char *action, long ms)
{
	return formatted(snprintf(buf, size, CONSOLE_FINAL "%s%s%s; %s at %ld ms", console_final_word(f),
				  summary && summary[0] ? ": " : "", summary ? summary : "", action, ms),
			 size);
}

/* memmem for a string literal, bounded by len. */
static const char *find(const char *s, size_t len, const char *what)
{
	return memmem(s, len, what, strlen(what));
}

static bool starts(const char *s, const char *end, const char *what)
{
	size_t n = strlen(what);

	return (size_t)(end - s) >= n && memcmp(s, what, n) == 0;
}

/* A token up to stop (not past end) into out (cut to its size); *p moves past it. */
static bool token(const char **p, const char *end, char stop, char *out, size_t size)
{
	const char *s = *p, *e = s;

	while (e < end && *e != stop && *e != ' ')
		e++;
	if (e == s || e >= end || *e != stop)
		return false;
	snprintf(out, size, "%.*s", (int)(e - s < (long)size ? e - s : (long)size - 1), s);
	*p = e + 1;
	return true;
}

/* The text up to stop, blanks allowed (a parenthesised group); false when longer than out holds. */
static bool group(const char **p, const char *end, char stop, char *out, size_t size)
{
	const char *s = *p, *e = s;

	while (e < end && *e != stop)
		e++;
	if (e == s || e >= end || (size_t)(e - s) >= size)
		return false;
	snprintf(out, size, "%.*s", (int)(e - s), s);
	*p = e + 1;
	return true;
}

static bool number(const char **p, const char *end, char stop, unsigned long *ret)
{
	char buf[24];
	char *e;

	if (!token(p, end, stop, buf, sizeof(buf)) || buf[0] < '0' || buf[0] > '9')
		return false;
	errno = 0;
	*ret = strtoul(buf, &e, 10);
	return *e == '\0' && errno == 0;
}

/* "[K/N] CONFIG TEST: STATUS (S.Ss[; ~Rs left])" */
static bool parse_progress(const char *p, const char *end, struct console_event *ev)
{
	char status[16], secs[48], *left;
	char *e;

	if (p >= end || *p++ != '[' || !number(&p, end, '/', &ev->done) || !number(&p, end, ']', &ev->total) ||
	    p >= end || *p++ != ' ' || !token(&p, end, ' ', ev->config, sizeof(ev->config)) ||
	    !token(&p, end, ':', ev->test, sizeof(ev->test)) || p >= end || *p++ != ' ' ||
	    !token(&p, end, ' ', status, sizeof(status)) || p >= end || *p++ != '(' ||
	    !group(&p, end, ')', secs, sizeof(secs)))
		return false;
	ev->status = test_status_from_string(status);
	if (ev->status == TS_MAX || ev->done == 0 || ev->done > ev->total)
		return false;
	ev->left = -1;
	if ((left = strstr(secs, "; ~"))) {
		double v = strtod(left + 3, &e);

		if (e == left + 3 || strcmp(e, "s left") != 0 || !(v >= 0 && v < 1e9))
			return false;
		ev->left = v;
		*left = '\0';
	}
	if (strlen(secs) < 2 || secs[strlen(secs) - 1] != 's')
		return false;
	secs[strlen(secs) - 1] = '\0';
	ev->seconds = strtod(secs, &e);
	return *e == '\0' && ev->seconds >= 0 && ev->seconds < 1e9;
}

static void parse_final(const char *p, const char *end, struct console_event *ev)
{
	const char *b = find(p, (size_t)(end - p), "bundle runs/");
	size_t n = 0;

	ev->final = CONSOLE_FATAL;
	for (int f = 0; f < CONSOLE_FINAL_MAX; f++)
		if (starts(p, end, final_words[f]))
			ev->final = (enum console_final)f;
	if (!b)
		return;
	for (b += strlen("bundle runs/"); b + n < end && n + 1 < sizeof(ev->run_id); n++) {
		char c = b[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '_' || c == '-'))
			break;
	}
	if (n && !(n == 1 && b[0] == '.') && !(n == 2 && b[0] == '.' && b[1] == '.'))
		snprintf(ev->run_id, sizeof(ev->run_id), "%.*s", (int)n, b);
}

/* The kernel's "[   12.345678] " stamp, skipped. */
static const char *after_stamp(const char *s, const char *end)
{
	const char *p = s;

	if (p >= end || *p != '[')
		return s;
	for (p++; p < end && (*p == ' ' || *p == '.' || (*p >= '0' && *p <= '9')); p++)
		;
	return p + 1 < end && p[0] == ']' && p[1] == ' ' ? p + 2 : s;
}

enum console_kind console_parse_line(const char *line, size_t len, struct console_event *ev)
{
	const char *end, *p, *msg;

	*ev = (struct console_event){ .kind = CONSOLE_OTHER, .text = line, .text_len = len };
	if (len > CONSOLE_LINE_MAX)
		len = CONSOLE_LINE_MAX;
	while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
		len--;
	end = line + len;
	ev->text_len = len;
	p = after_stamp(line, end);
	if (starts(p, end, "Linux version ")) {
		ev->kind = CONSOLE_BOOT;
		return ev->kind;
	}
	if (find(p, (size_t)(end - p), "Kernel panic - not syncing")) {
		ev->kind = CONSOLE_PANIC;
		ev->text = p;
		ev->text_len = (size_t)(end - p);
		return ev->kind;
	}
	msg = find(line, len, CONSOLE_PREFIX);
	if (!msg)
		return ev->kind;
	msg += strlen(CONSOLE_PREFIX);
	if (starts(msg, end, "warning: "))
		msg += strlen("warning: ");
	ev->text = msg;
	ev->text_len = (size_t)(end - msg);
	if (starts(msg, end, CONSOLE_FINAL)) {
		ev->kind = CONSOLE_FINAL_LINE;
		parse_final(msg + strlen(CONSOLE_FINAL), end, ev);
	} else if (starts(msg, end, CONSOLE_PLAN)) {
		ev->kind = CONSOLE_PLAN_LINE;
	} else if (find(msg, (size_t)(end - msg), CONSOLE_CRASH)) {
		ev->kind = CONSOLE_CRASH_LINE;
	} else if (parse_progress(msg, end, ev)) {
		ev->kind = CONSOLE_PROGRESS;
	}
	return ev->kind;
}
