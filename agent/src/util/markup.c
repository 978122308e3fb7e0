// SPDX-License-Identifier: MIT
/*
 * Markup escaping (see markup.h).
 */
#include "util/markup.h"

#include <stdlib.h>
#include <string.h>

void markup_escape(FILE *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				fputc('?', out);
			else
				fputc(*s, out);
		}
}

void markup_file_link(FILE *out, const char *path)
{
	const char *base = strrchr(path, '/');

	fputs("<a href=\"", out);
	markup_escape(out, path);
	fputs("\">", out);
	markup_escape(out, base ? base + 1 : path);
	fputs("</a>", out);
}

void markup_escape_printed(FILE *out, const char *open, void (*text)(json_t *, FILE *), json_t *doc, const char *close)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (m) {
		text(doc, m);
		fclose(m);
	}
	fputs(open, out);
	markup_escape(out, buf ? buf : "");
	fputs(close, out);
	free(buf);
}
