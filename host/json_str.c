// SPDX-License-Identifier: MIT
/*
 * JSON strings for the writers (json_str.h): one escaper, so that every
 * JSON file spoor writes is valid JSON (RFC 8259: UTF-8, no raw control
 * characters) whatever bytes a symbol name holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"
#include "spoor/error.h"

/* The longest escape of one input byte or sequence: "\u00XX" or "\ufffd". */
#define ESC_MAX 6

/* Returns the length of the valid UTF-8 sequence at @s (1-4), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
		return 0;	/* overlong, a surrogate, beyond U+10FFFF */
	return n;
}

/*
 * Escapes what starts at *@p into @o (room for ESC_MAX bytes, or the
 * UTF-8 sequence's 4) and moves *@p past it; returns the bytes written.
 */
static size_t escape_one(const unsigned char **p, char *o)
{
	const unsigned char *s = *p;
	size_t n = utf8_len(s);

	if (*s == '"' || *s == '\\') {
		o[0] = '\\';
		o[1] = (char)*s;
		*p = s + 1;
		return 2;
	}
	if (*s < 0x20 || *s == 0x7f) {
		*p = s + 1;
		return (size_t)sprintf(o, "\\u%04x", *s);
	}
	if (!n) {
		memcpy(o, "\\ufffd", ESC_MAX);
		*p = s + 1;
		return ESC_MAX;
	}
	memcpy(o, s, n);
	*p = s + n;
	return n;
}

char *json_str_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *buf = malloc(ESC_MAX * strlen(s) + 1), *o = buf;

	if (!buf)
		return NULL;
	while (*p)
		o += escape_one(&p, o);
	*o = '\0';
	return buf;
}

void json_str_put(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[ESC_MAX + 1];

	fputc('"', out);
	while (*p)
		fwrite(esc, 1, escape_one(&p, esc), out);
	fputc('"', out);
}

int json_str_out_check(FILE *out)
{
	if (fflush(out) || ferror(out)) {
		if (!errno)
			errno = EIO;
		return SPOOR_E_IO;
	}
	return 0;
}
