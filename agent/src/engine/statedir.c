// SPDX-License-Identifier: MIT
/*
 * A state directory's lock and fixed options (see statedir.h).
 */
#include "engine/statedir.h"
#include "engine/job.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/output.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

int statedir_lock(const char *dir, const char *who)
{
	char lock[PATH_MAX];
	int fd, r;

	if ((r = fileio_mkdir_p(dir)) < 0) {
		log_err("mkdir '%s' failed: %s", dir, strerror(-r));
		return r;
	}
	if ((r = fileio_pathf(lock, "%s/.lock", dir)) < 0)
		return r;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		log_err("open '%s' failed: %m", lock);
		return r;
	}
	/* held until exit: the fd is left open on purpose */
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		log_err("%s is in use by another %s", dir, who);
		close(fd);
		return -EBUSY;
	}
	/* what an earlier one killed with -9 left running stops before anything here runs again */
	if ((r = fileio_pathf(lock, "%s/.jobs", dir)) < 0 || (r = job_stop_left(lock, 120)) < 0)
		return r;
	job_record_in(lock);
	return 0;
}

static json_t *option_json(const struct statedir_option *o)
{
	return o->integer ? json_integer((json_int_t)*o->value) : json_real(*o->value);
}

int statedir_options(const char *dir, const char *who, struct statedir_option *opts, size_t n)
{
	char path[PATH_MAX];
	json_t *doc;
	bool added = false;
	int r;

	if ((r = fileio_pathf(path, "%s/options.json", dir)) < 0)
		return r;
	if (!fileio_exists(path)) {
		doc = json_object();
		for (size_t i = 0; doc && i < n; i++) {
			if (json_object_set_new(doc, opts[i].key, option_json(&opts[i])) < 0) {
				json_decref(doc);
				doc = NULL;
			}
		}
		r = doc ? write_output(path, doc, dump_json) : -ENOMEM;
		json_decref(doc);
		return r;
	}
	doc = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(doc)) {
		log_err("%s: not the options of %s", path, who);
		json_decref(doc);
		return -EBADMSG;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_object_get(doc, opts[i].key);

		if (!v && opts[i].newer) {
			/* begun before this option was kept: what is given (or the default) from now on */
			if (json_object_set_new(doc, opts[i].key, option_json(&opts[i])) < 0) {
				r = -ENOMEM;
				break;
			}
			added = true;
			continue;
		}
		if (!json_is_number(v) || json_number_value(v) < 0 || (json_number_value(v) == 0 && !opts[i].zero) ||
		    (opts[i].integer && !json_is_integer(v))) {
			log_err("%s: key '%s': missing or not a %s", path, opts[i].key,
				opts[i].zero ? "number from 0" : "positive number");
			r = -EBADMSG;
			break;
		}
		if (opts[i].given && fabs(json_number_value(v) - *opts[i].value) > 1e-12) {
			log_err("%s was begun with %s %g, not %g: the verdicts so far depend on it", dir, opts[i].key,
				json_number_value(v), *opts[i].value);
			r = -EEXIST;
			break;
		}
		*opts[i].value = json_number_value(v);
	}
	if (r == 0 && added)
		r = write_output(path, doc, dump_json);
	json_decref(doc);
	return r;
}

int statedir_set_aside(const char *path)
{
	char aside[PATH_MAX];
	int r;

	if (!fileio_exists(path))
		return 0;
	if ((r = fileio_pathf(aside, "%s.interrupted-%lld", path, (long long)time(NULL))) < 0)
		return r;
	if (rename(path, aside) < 0) {
		r = -errno;
		log_err("rename '%s' to '%s' failed: %m", path, aside);
		return r;
	}
	return 0;
}
