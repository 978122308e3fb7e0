// SPDX-License-Identifier: MIT
/* The end of every boot (see finish.h). */
#include "boot/finish.h"
#include "boot/results.h"
#include "boot/session.h"
#include "machine/mount.h"
#include "model/console.h"
#include "model/frame.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/proc.h"
#include "util/version.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <time.h>
#include <unistd.h>

void boot_record_error(struct boot_state *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(s->errors, json_string(buf));
}

/* 11 KB through the serial port cost ~70 ms under TCG: framed once, at the end */
void finish_write_documents(struct boot_state *s, const char *fatal, bool frame)
{
	json_t *doc = s->have_inv ? s->inv.doc : NULL;
	_cleanup_free_ char *text = NULL;
	int r;

	if (!doc)
		return;
	json_object_set_new(doc, "modules", s->mods ? modules_to_json(s->mods) : json_array());
	json_object_set(doc, "early_mounts", s->mounts);
	json_object_set(doc, "udev", s->udev ? s->udev : json_null());
	json_object_set(doc, "errors", s->errors);
	json_object_set_new(doc, "fatal", fatal ? json_string(fatal) : json_null());
	json_object_set_new(doc, "timeline", timeline_to_json(&s->timeline));
	json_object_set_new(
		doc, "agent",
		json_pack("{s:s, s:I}", "version", fsagent_version, "peak_rss_kb", (json_int_t)fileio_peak_rss_kb()));
	if (s->results_mounted) {
		r = results_write_json(RESULTS_MNT, "caps.json", doc);
		if (r < 0)
			log_err("write '%s/caps.json' failed: %s", RESULTS_MNT, strerror(-r));
		if (fatal) {
			json_auto_t *f = json_pack("{s:s, s:s, s:s}", "schema", "fsagent-fatal/1", "fsagent_version",
						   fsagent_version, "error", fatal);

			r = results_write_json(RESULTS_MNT, "fatal.json", f);
			if (r < 0)
				log_err("write '%s/fatal.json' failed: %s", RESULTS_MNT, strerror(-r));
		}
	}
	if (!frame)
		return;
	text = json_dumps(doc, JSON_INDENT(2));
	if (text)
		frame_write(s->console >= 0 ? s->console : STDOUT_FILENO, "caps.json", text, strlen(text));
}

/* the one final status line the host looks for (model/console.h) */
static void final_status(const struct boot_state *s, const char *fatal, enum boot_action action)
{
	enum console_final f = fatal					  ? CONSOLE_FATAL
			       : s->session_status == SESSION_NOTHING_RAN ? CONSOLE_NOTHING_RAN
			       : s->session_status > 0			  ? CONSOLE_TESTS_FAILED
									  : CONSOLE_OK;
	char line[1024];

	console_format_final(line, sizeof(line), f, fatal ? fatal : s->session_summary, boot_action_to_string(action),
			     boottime_ms());
	dprintf(s->console >= 0 ? s->console : STDERR_FILENO, CONSOLE_PREFIX "%s\n", line);
}

_noreturn_ void finish_boot(struct boot_state *s, const char *fatal)
{
	enum boot_action action = s->cfg.buf ? s->cfg.action : ACTION_POWEROFF;
	int cmd = action == ACTION_REBOOT ? RB_AUTOBOOT : action == ACTION_HALT ? RB_HALT_SYSTEM : RB_POWER_OFF;
	struct timespec ts = { 0, 200 * 1000000 };

	timeline_mark(&s->timeline, "shutdown");
	finish_write_documents(s, fatal, true);
	/* stop what we started (udevd and anything it forked) */
	kill(-1, SIGTERM);
	nanosleep(&ts, NULL);
	kill(-1, SIGKILL);
	proc_reap_exited();
	sync();
	if (s->results_mounted && mount_umount(RESULTS_MNT) < 0)
		log_warn("unmount '%s' failed, ignoring", RESULTS_MNT);
	sync();
	final_status(s, fatal, action);
	reboot(cmd);
	/* reboot(2) only returns on failure; PID 1 must not exit */
	for (;;)
		pause();
}

_noreturn_ void finish_fatal(struct boot_state *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_err("%s", buf);
	finish_boot(s, buf);
}
