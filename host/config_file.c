// SPDX-License-Identifier: MIT
/*
 * Encoder parameters from *.scf and INI files, parsed with libinih.
 *
 * libinih splits lines into sections, keys and values; what it does not do
 * (and what a file named by a user must get) is done here, before a line
 * reaches it: the file must be a regular file of bounded size (a directory,
 * /dev/zero or a FIFO is refused at once, never read), every line must be
 * text that fits libinih's line buffer, and the first error of any kind ends
 * the parse.  Keys given twice are errors, and every message names the file,
 * the line and the key, with the bytes of the file printed escaped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "spoor/config_file.h"
#include "spoor/error.h"

#define MAX_FILE	(1u << 20)	/* a parameter file is a page of text */
#define MAX_KEYS	1024		/* distinct keys remembered to find duplicates */
#define ESC_CHARS	64		/* input characters quoted in a message */

/* Where a key was set, to report a second one. */
struct seen_key {
	char *id;		/* "section\nname" */
	unsigned line;
};

struct ini_ctx {
	const char *path;
	const char *buf;	/* the whole file */
	size_t len, pos;
	unsigned line;		/* line handed to libinih last (1-based) */
	int (*key)(void *user, const char *section, const char *name, const char *value,
		   char *hint, size_t hint_size);
	void *user;
	struct spoor_diag *diag;
	int err;
	struct seen_key *seen;
	size_t nseen;
};

size_t spoor_escape(const char *in, size_t len, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i;

	if (!size)
		return 0;
	for (i = 0; i < len && i < ESC_CHARS; i++) {
		unsigned char c = (unsigned char)in[i];

		if (o + 5 >= size)
			break;
		if (c >= 0x20 && c < 0x7f && c != '\\') {
			out[o++] = (char)c;
		} else if (c == '\\') {
			out[o++] = '\\';
			out[o++] = '\\';
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	if (i < len && o + 4 < size) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return o;
}

/* Escapes the NUL-terminated @s into @out (ESC_CHARS * 4 + 4 bytes). */
static const char *esc(const char *s, char *out, size_t size)
{
	spoor_escape(s, strlen(s), out, size);
	return out;
}

/* Records an error at the current line: "FILE:LINE: what"; returns @err. */
__attribute__((format(printf, 3, 4)))
static int fail(struct ini_ctx *ctx, int err, const char *fmt, ...)
{
	char *msg = ctx->diag->msg;
	size_t size = sizeof(ctx->diag->msg);
	int n = snprintf(msg, size, "%s:%u: ", ctx->path, ctx->line);
	va_list ap;

	if (n >= 0 && (size_t)n < size) {
		va_start(ap, fmt);
		vsnprintf(msg + n, size - (size_t)n, fmt, ap);	/* a long message is cut */
		va_end(ap);
	}
	ctx->err = err;
	return err;
}

/*
 * Checks one line (without its newline) the way libinih would read it: text
 * only, short enough, and a comment, a [section] or a KEY=VALUE.  Returns 0
 * or an error recorded in @ctx.
 */
static int check_line(struct ini_ctx *ctx, const char *s, size_t len, int room)
{
	char shown[ESC_CHARS * 4 + 8];
	size_t i = 0;

	if (len + 3 > (size_t)room) {
		return fail(ctx, SPOOR_E_SYNTAX, "line of %zu characters; a line may have at most %d",
			    len, room - 3);
	}
	for (size_t k = 0; k < len; k++) {
		unsigned char c = (unsigned char)s[k];

		if ((c < 0x20 && c != '\t' && !(c == '\r' && k == len - 1)) || c == 0x7f) {
			spoor_escape(s, len, shown, sizeof(shown));
			return fail(ctx, SPOOR_E_SYNTAX, "byte 0x%02x is not text: '%s'", c, shown);
		}
	}
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == len || s[i] == '\r' || s[i] == ';' || s[i] == '#')
		return 0;
	if (s[i] == '[') {
		if (memchr(s + i, ']', len - i))
			return 0;
		spoor_escape(s, len, shown, sizeof(shown));
		return fail(ctx, SPOOR_E_SYNTAX, "section heading without ']': '%s'", shown);
	}
	if (s[i] == '=' || s[i] == ':' || (!memchr(s, '=', len) && !memchr(s, ':', len))) {
		spoor_escape(s, len, shown, sizeof(shown));
		return fail(ctx, SPOOR_E_SYNTAX, "expected KEY = VALUE, a [section] or a comment, "
			    "got '%s'", shown);
	}
	return 0;
}

/*
 * libinih reader: hands over the next line, without its leading blanks (so
 * that libinih never takes an indented line for a continuation), after
 * check_line(); returns NULL at the end of the file and after any error.
 */
static char *read_line(char *str, int num, void *stream)
{
	struct ini_ctx *ctx = stream;
	const char *s = ctx->buf + ctx->pos, *nl;
	size_t len, skip = 0;

	if (ctx->err || ctx->pos >= ctx->len)
		return NULL;
	nl = memchr(s, '\n', ctx->len - ctx->pos);
	len = nl ? (size_t)(nl - s) : ctx->len - ctx->pos;
	ctx->pos += len + (nl != NULL);
	ctx->line++;
	if (ctx->line == 1 && len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) {
		s += 3;		/* a UTF-8 byte order mark */
		len -= 3;
	}
	if (check_line(ctx, s, len, num))
		return NULL;
	while (skip < len && (s[skip] == ' ' || s[skip] == '\t'))
		skip++;
	memcpy(str, s + skip, len - skip);
	str[len - skip] = '\n';
	str[len - skip + 1] = '\0';
	return str;
}

/* Remembers that @section's key @name was set on this line; an error if it was before. */
static int note_key(struct ini_ctx *ctx, const char *section, const char *name)
{
	size_t n = strlen(section), m = strlen(name);
	char shown[ESC_CHARS * 4 + 8], sect[ESC_CHARS * 4 + 8];
	char *id = malloc(n + m + 2);

	if (!id)
		return fail(ctx, SPOOR_E_NOMEM, "out of memory");
	memcpy(id, section, n);
	id[n] = '\n';
	memcpy(id + n + 1, name, m + 1);
	for (size_t i = 0; i < ctx->nseen; i++) {
		if (strcmp(ctx->seen[i].id, id))
			continue;
		free(id);
		return fail(ctx, SPOOR_E_DUPLICATE, "key '%s' given twice%s%s%s (first on line %u)",
			    esc(name, shown, sizeof(shown)), section[0] ? " in [" : "",
			    esc(section, sect, sizeof(sect)), section[0] ? "]" : "",
			    ctx->seen[i].line);
	}
	if (ctx->nseen == MAX_KEYS) {
		free(id);
		return fail(ctx, SPOOR_E_TOO_BIG, "more than %d keys", MAX_KEYS);
	}
	if (!ctx->seen)
		ctx->seen = calloc(MAX_KEYS, sizeof(*ctx->seen));
	if (!ctx->seen) {
		free(id);
		return fail(ctx, SPOOR_E_NOMEM, "out of memory");
	}
	ctx->seen[ctx->nseen].id = id;
	ctx->seen[ctx->nseen++].line = ctx->line;
	return 0;
}

/* libinih handler: returns 1 to go on, 0 after the first error. */
static int on_ini_key(void *user, const char *section, const char *name, const char *value)
{
	struct ini_ctx *ctx = user;
	char sname[ESC_CHARS * 4 + 8], svalue[ESC_CHARS * 4 + 8], hint[200];
	int ret;

	if (ctx->err || note_key(ctx, section, name))
		return 0;
	hint[0] = '\0';
	ret = ctx->key(ctx->user, section, name, value, hint, sizeof(hint));
	if (ret) {
		fail(ctx, ret, "key '%s' = '%s': %s%s%s", esc(name, sname, sizeof(sname)),
		     esc(value, svalue, sizeof(svalue)), spoor_errstr(ret), hint[0] ? "; " : "",
		     hint);
		return 0;
	}
	return 1;
}

/* Reads the regular file @path (at most MAX_FILE bytes) into ctx->buf; returns 0 or an error. */
static int read_file(struct ini_ctx *ctx)
{
	struct spoor_diag *diag = ctx->diag;
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	ssize_t n;
	int fd, ret;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(ctx->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", ctx->path, strerror(errno));
		return SPOOR_E_IO;
	}
	ret = SPOOR_E_IO;
	if (fstat(fd, &st)) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", ctx->path, strerror(errno));
		goto out;
	}
	ret = SPOOR_E_NOT_REGULAR;
	if (!S_ISREG(st.st_mode)) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: not a regular file (%s)", ctx->path,
			 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
			 S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a socket");
		goto out;
	}
	ret = SPOOR_E_NOMEM;
	buf = malloc(MAX_FILE + 1);
	if (!buf) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: out of memory", ctx->path);
		goto out;
	}
	/* Read one byte more than allowed, to tell a file that grew. */
	while (got <= MAX_FILE) {
		n = read(fd, buf + got, MAX_FILE + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = SPOOR_E_IO;
			snprintf(diag->msg, sizeof(diag->msg), "%s: %s", ctx->path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	ret = SPOOR_E_TOO_BIG;
	if (got > MAX_FILE) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: larger than the %u KiB a parameter "
			 "file may have", ctx->path, MAX_FILE >> 10);
		goto out;
	}
	ctx->buf = buf;
	ctx->len = got;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

int spoor_ini_load(const char *path, int (*key)(void *user, const char *section,
						  const char *name, const char *value,
						  char *hint, size_t hint_size),
		   void *user, struct spoor_diag *diag)
{
	struct ini_ctx ctx = { .path = path, .key = key, .user = user, .diag = diag };
	int ret;

	if (!path || !key || !diag)
		return SPOOR_E_INVAL;
	diag->msg[0] = '\0';
	ret = read_file(&ctx);
	if (ret)
		return ret;
	ret = ini_parse_stream(read_line, &ctx, on_ini_key, &ctx);
	if (ctx.err) {
		ret = ctx.err;
	} else if (ret) {
		/* Whatever libinih refuses that check_line() let through. */
		snprintf(diag->msg, sizeof(diag->msg), "%s:%d: syntax error", path, ret);
		ret = ret > 0 ? SPOOR_E_SYNTAX : SPOOR_E_NOMEM;
	}
	for (size_t i = 0; i < ctx.nseen; i++)
		free(ctx.seen[i].id);
	free(ctx.seen);
	free((char *)ctx.buf);
	return ret;
}

/* A parameter key; the [board] and [trace] sections of board files are skipped. */
static int params_key(void *user, const char *section, const char *name, const char *value,
		      char *hint, size_t hint_size)
{
	int ret;

	if (!strcmp(section, "board") || !strcmp(section, "trace"))
		return 0;
	ret = spoor_params_set(user, name, value);
	if (ret)
		spoor_params_describe(name, hint, hint_size);
	return ret;
}

int spoor_params_load(struct spoor_params *p, const char *path, struct spoor_diag *diag)
{
	const char *why;
	int ret;

	if (!p || !path || !diag)
		return SPOOR_E_INVAL;
	ret = spoor_ini_load(path, params_key, p, diag);
	if (ret)
		return ret;
	ret = spoor_params_check(p, &why);
	if (ret)
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", path, why);
	return ret;
}
