// SPDX-License-Identifier: MIT
/*
 * Markup escaping (see markup.h).
 */
#include "util/markup.h"

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
