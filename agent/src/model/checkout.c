// SPDX-License-Identifier: MIT
/*
 * check's stdout parser (see checkout.h). Formats follow
 * shared/fstests-interface.md section 2, old unpadded names included.
 */
#include "model/checkout.h"
#include "util/macro.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void checkout_init(struct checkout *p, char *const *tests, checkout_cb cb, void *data)
{
	memset(p, 0, sizeof(*p));
	p->tests = tests;
	p->cb = cb;
	p->data = data;
}

/* The test whose name starts line (followed by a blank or the end), or NULL. */
static const char *line_test(const struct checkout *p, const char *line, size_t len)
{
	for (size_t i = 0; p->tests && p->tests[i]; i++) {
		size_t n = strlen(p->tests[i]);

		if (len >= n && memcmp(line, p->tests[i], n) == 0 && (len == n || line[n] == ' '))
			return p->tests[i];
	}
	return NULL;
}

enum checkout_verdict checkout_parse_verdict(const char *t, long *ret_seconds)
{
	char *end;
	long s;

	*ret_seconds = -1;
	while (*t == ' ')
		t++;
	if (startswith(t, "[not run]"))
		return CV_NOTRUN;
	if (startswith(t, "[expunged]"))
		return CV_EXPUNGED;
	if (startswith(t, "- unknown test") || startswith(t, "- no such test"))
		return CV_UNKNOWN_TEST;
	s = strtol(t, &end, 10);
	if (end != t && *end == 's') {
		/* " 3s", or " 1s ...  0s": the last number is this run's */
		const char *dots = strstr(end, " ... ");

		if (!dots) {
			*ret_seconds = s;
			return CV_PASS;
		}
		return checkout_parse_verdict(dots + 5, ret_seconds);
	}
	/* -T timestamps: " [07:57:15] [07:57:16] 1s" */
	if (t[0] == '[' && isdigit((unsigned char)t[1]) && strchr(t, ']'))
		return checkout_parse_verdict(strchr(t, ']') + 1, ret_seconds);
	return CV_FAIL;
}

static void emit_result(struct checkout *p, const char *test, const char *rest)
{
	struct checkout_event ev = { .kind = CE_RESULT, .test = test };
	static const char glued[] = "[failed, exit status ";
	char text[sizeof(p->line) + 2];
	const char *rb;

	ev.verdict = checkout_parse_verdict(rest, &ev.seconds);
	while (*rest == ' ')
		rest++;
	/* "18s ... [not run] why" (the time of a run before) or "-T" stamps first: the text from the verdict on */
	if (ev.verdict == CV_NOTRUN || ev.verdict == CV_EXPUNGED) {
		const char *v = strstr(rest, ev.verdict == CV_NOTRUN ? "[not run]" : "[expunged]");

		if (v)
			rest = v;
	}
	/* check prints "[failed, exit status N]" without a newline: the mismatch message is glued to it */
	if (startswith(rest, glued) && (rb = strchr(rest, ']')) && rb[1] == '-') {
		snprintf(text, sizeof(text), "%.*s %s", (int)(rb + 1 - rest), rest, rb + 1);
		rest = text;
	}
	ev.text = rest;
	snprintf(p->current, sizeof(p->current), "%s", test);
	p->cb(p->data, &ev);
}

/* check's header ("PLATFORM      -- ...") and summary lines, which say nothing went wrong */
static bool is_chatter(const char *line)
{
	static const char *const summary[] = { "Ran:",	      "Not run:",     "Failures:",	"Failed ",
					       "Passed all ", "Interrupted!", "Kernel version", "Xunit report",
					       "SECTION",     "Hmm, 0 tests!" };
	size_t caps = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");

	if (!line[strspn(line, " \t")])
		return true;
	if (caps > 0 && startswith(line + caps + strspn(line + caps, " "), "-- "))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(summary); i++)
		if (startswith(line, summary[i]))
			return true;
	return false;
}

/* Keep the line in p->said, " / " between lines, while there is room. */
static void note_said(struct checkout *p, const char *line)
{
	size_t used = strlen(p->said);

	if (used + 4 >= sizeof(p->said))
		return;
	snprintf(p->said + used, sizeof(p->said) - used, "%s%s", used ? " / " : "", line);
}

static void handle_line(struct checkout *p, char *line, size_t len)
{
	const char *test = line_test(p, line, len);
	struct checkout_event ev = { 0 };
	unsigned fails = 0, passes = 0;

	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	if (test) {
		const char *rest = line + strlen(test);
		char agg[160];

		snprintf(agg, sizeof(agg), "%s aggregate results across", test);
		if (startswith(line, agg)) {
			const char *f = strstr(line, "fail="), *ps = strstr(line, "pass=");

			fails = f ? (unsigned)strtoul(f + 5, NULL, 10) : 0;
			passes = ps ? (unsigned)strtoul(ps + 5, NULL, 10) : 0;
			ev = (struct checkout_event){
				.kind = CE_AGGREGATE, .test = test, .fails = fails, .passes = passes
			};
			p->cb(p->data, &ev);
			return;
		}
		if (!p->started) {
			ev = (struct checkout_event){ .kind = CE_START, .test = test };
			p->cb(p->data, &ev);
		}
		/* "xfs/999 - unknown test, ignored" comes before the header */
		emit_result(p, test, rest);
		return;
	}
	/* an indented diff line, or "(see ... for details)", belongs to the last result */
	if (p->current[0] && len > 0 && (startswith(line, "    ") || startswith(line, "(see "))) {
		ev = (struct checkout_event){ .kind = CE_EXCERPT,
					      .test = p->current,
					      .text = line + (line[0] == ' ' ? 4 : 0) };
		p->cb(p->data, &ev);
		return;
	}
	if (startswith(line, "Ran:") || startswith(line, "SECTION") || startswith(line, "FSTYP"))
		p->current[0] = '\0';
	else if (!is_chatter(line))
		note_said(p, line);
}

void checkout_feed(struct checkout *p, const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		if (c == '\n') {
			p->line[p->len] = '\0';
			handle_line(p, p->line, p->len);
			p->len = 0;
			p->started = false;
			continue;
		}
		if (p->len < sizeof(p->line) - 1)
			p->line[p->len++] = c;
	}
	/* the partial line names the test now running */
	if (!p->started && p->len > 0) {
		const char *t = line_test(p, p->line, p->len);

		static const char agg[] = " aggregate results";
		const char *rest = p->line + (t ? strlen(t) : 0);
		size_t rlen = t ? p->len - strlen(t) : 0;

		/* "<test> aggregate results ..." also starts with the name: not a start */
		if (t && rlen > 0 && strncmp(rest, agg, rlen < sizeof(agg) - 1 ? rlen : sizeof(agg) - 1) != 0) {
			struct checkout_event ev = { .kind = CE_START, .test = t };

			p->started = true;
			snprintf(p->current, sizeof(p->current), "%s", t);
			p->cb(p->data, &ev);
		}
	}
}

void checkout_finish(struct checkout *p)
{
	if (p->len && !p->started) {
		p->line[p->len] = '\0';
		checkout_feed(p, "", 0);
	}
	p->len = 0;
}
