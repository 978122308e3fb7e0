// SPDX-License-Identifier: MIT
/* A run followed through its console log (see watch.h). */
#include "analysis/watch.h"
#include "util/log.h"
#include "util/utctime.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void watch_init(struct watch *w, FILE *out)
{
	*w = (struct watch){ .out = out, .now = utctime_monotonic };
	w->start = w->tests_start = w->now();
}

/* "1h02m" or "3m05s"; the guest's numbers can be anything, so clamped (NaN as 0) */
static void fmt_time(char *buf, size_t size, double s)
{
	long t = !(s > 0) ? 0 : s < 1e9 ? (long)s : 999999999L;

	if (t >= 3600)
		snprintf(buf, size, "%ldh%02ldm", t / 3600, t % 3600 / 60);
	else
		snprintf(buf, size, "%ldm%02lds", t / 60, t % 60);
}

/* Print n bytes of the guest's text, control characters as '?'. */
static void put_printable(FILE *out, const char *s, size_t n)
{
	char buf[CONSOLE_LINE_MAX + 1];

	if (n > CONSOLE_LINE_MAX)
		n = CONSOLE_LINE_MAX;
	memcpy(buf, s, n);
	buf[n] = '\0';
	log_printable(buf, n);
	/* a newline inside a field would forge a line of our own */
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\n' || buf[i] == '\t')
			buf[i] = '?';
	fputs(buf, out);
}

static void print_progress(struct watch *w, const struct console_event *ev)
{
	char el[16], eta[16] = "-";

	fputc('[', w->out);
	fprintf(w->out, "%lu/%lu] ", ev->done, ev->total);
	/* the columns of the launcher's progress: config 10, test 16, status 8 */
	put_printable(w->out, ev->config, strlen(ev->config));
	fprintf(w->out, "%*s", (int)(strlen(ev->config) < 10 ? 11 - strlen(ev->config) : 1), "");
	put_printable(w->out, ev->test, strlen(ev->test));
	fprintf(w->out, "%*s", (int)(strlen(ev->test) < 16 ? 17 - strlen(ev->test) : 1), "");
	fprintf(w->out, "%-8s |", test_status_to_string(ev->status));
	for (int s = TS_PASS; s < TS_MAX; s++)
		if (w->counts[s])
			fprintf(w->out, " %s %lu", test_status_to_string((enum test_status)s), w->counts[s]);
	fmt_time(el, sizeof(el), w->now() - w->start);
	if (w->done && ev->total > ev->done) {
		/* per finished test: the wall time it took, or its duration when that is more */
		double wall = w->now() - w->tests_start, per = (wall > w->spent ? wall : w->spent) / (double)w->done;

		if (ev->left >= 0)
			/* the guest's estimate from the durations history, in wall time as the tests so far took it */
			fmt_time(eta, sizeof(eta), ev->left * (w->spent > 0 && wall > w->spent ? wall / w->spent : 1));
		else
			fmt_time(eta, sizeof(eta), per * (double)(ev->total - ev->done));
	}
	fprintf(w->out, " | elapsed %s, ETA %s\n", el, eta);
}

static void print_text(struct watch *w, const char *prefix, const struct console_event *ev)
{
	fputs(prefix, w->out);
	put_printable(w->out, ev->text, ev->text_len);
	fputc('\n', w->out);
}

void watch_line(struct watch *w, const char *line, size_t len)
{
	struct console_event ev;

	switch (console_parse_line(line, len, &ev)) {
	case CONSOLE_BOOT: w->boots++; return;
	case CONSOLE_PLAN_LINE:
		/* a boot begins (or resumes) its tests: the rate is measured from here */
		w->tests_start = w->now();
		w->done = 0;
		w->spent = 0;
		print_text(w, "", &ev);
		break;
	case CONSOLE_PROGRESS:
		w->counts[ev.status]++;
		w->done++;
		w->spent += ev.seconds;
		print_progress(w, &ev);
		break;
	case CONSOLE_CRASH_LINE:
		w->counts[TS_CRASH]++;
		print_text(w, "", &ev);
		break;
	case CONSOLE_PANIC: print_text(w, "guest: ", &ev); break;
	case CONSOLE_FINAL_LINE: {
		size_t n = ev.text_len < sizeof(w->final_text) - 1 ? ev.text_len : sizeof(w->final_text) - 1;

		w->have_final = true;
		w->final = ev.final;
		memcpy(w->final_text, ev.text, n);
		w->final_text[n] = '\0';
		log_printable(w->final_text, n);
		snprintf(w->run_id, sizeof(w->run_id), "%s", ev.run_id);
		print_text(w, "", &ev);
		break;
	}
	default: return;
	}
	fflush(w->out);
}

/* Feed the whole lines in buf[0..*len) to the watch and keep the rest; a line past the cap is cut. */
static void feed(struct watch *w, char *buf, size_t *len, bool *skipping)
{
	size_t start = 0;

	for (size_t i = 0; i < *len; i++) {
		if (buf[i] != '\n')
			continue;
		if (!*skipping)
			watch_line(w, buf + start, i - start);
		*skipping = false;
		start = i + 1;
	}
	memmove(buf, buf + start, *len - start);
	*len -= start;
	if (*len == CONSOLE_LINE_MAX) {
		/* no newline in a whole buffer: take the cut line, drop the rest of it */
		if (!*skipping)
			watch_line(w, buf, *len);
		*skipping = true;
		*len = 0;
	}
}

int watch_follow(struct watch *w, const char *path, pid_t pid, unsigned max_boots)
{
	char buf[CONSOLE_LINE_MAX];
	size_t len = 0;
	bool skipping = false, gone = pid == 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			len += (size_t)n;
			feed(w, buf, &len, &skipping);
			if (!gone && max_boots && w->boots > max_boots && !w->have_final && !w->gave_up) {
				fprintf(stderr, "fsagent console: giving up after %u boots without a final status\n",
					max_boots);
				w->gave_up = true;
				kill(pid, SIGTERM);
			}
			continue;
		}
		if (gone)
			break;
		/* at the end of what was written: wait for more while the writer lives */
		if (kill(pid, 0) < 0 && errno == ESRCH)
			gone = true; /* read once more: what it wrote last */
		else {
			struct timespec ts = { 0, 200 * 1000000 };

			nanosleep(&ts, NULL);
		}
	}
	if (len && !skipping)
		watch_line(w, buf, len); /* a last line without its newline */
	close(fd);
	return 0;
}

json_t *watch_state(const struct watch *w)
{
	json_t *counts = json_object();

	for (int s = TS_PASS; s < TS_MAX; s++)
		if (w->counts[s])
			json_object_set_new(counts, test_status_to_string((enum test_status)s),
					    json_integer((json_int_t)w->counts[s]));
	return json_pack("{s:s, s:s?, s:s?, s:s?, s:I, s:o, s:b}", "schema", WATCH_SCHEMA, "run_id",
			 w->run_id[0] ? w->run_id : NULL, "final", w->have_final ? console_final_word(w->final) : NULL,
			 "final_line", w->have_final ? w->final_text : NULL, "boots", (json_int_t)w->boots, "counts",
			 counts, "gave_up", w->gave_up);
}

int watch_exit_status(const struct watch *w)
{
	if (!w->have_final)
		return 3;
	switch (w->final) {
	case CONSOLE_OK: return 0;
	case CONSOLE_TESTS_FAILED: return 1;
	case CONSOLE_NOTHING_RAN: return 4;
	default: return 3;
	}
}
