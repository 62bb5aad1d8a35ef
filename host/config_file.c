// SPDX-License-Identifier: MIT
/* Encoder parameters from *.scf and INI files, parsed with libinih. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ini.h>

#include "spoor/config_file.h"
#include "spoor/error.h"

struct load_ctx {
	FILE *f;
	const char *path;
	unsigned line;		/* line the parser is on (our reader counts) */
	struct spoor_params *p;
	struct spoor_diag *diag;
	int err;
};

/* libinih reader: one line per call, counting lines for error messages. */
static char *read_line(char *str, int num, void *stream)
{
	struct load_ctx *ctx = stream;
	char *s = fgets(str, num, ctx->f);

	if (s && strchr(s, '\n'))
		ctx->line++;
	else if (s)
		ctx->line += feof(ctx->f) ? 1 : 0;
	return s;
}

/* libinih handler: returns 1 to go on, 0 on the first bad key. */
static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct load_ctx *ctx = user;
	int ret;

	if (ctx->err)
		return 0;
	/* Board files keep their board and trace settings apart. */
	if (!strcmp(section, "board") || !strcmp(section, "trace"))
		return 1;
	ret = spoor_params_set(ctx->p, name, value);
	if (ret) {
		ctx->err = ret;
		snprintf(ctx->diag->msg, sizeof(ctx->diag->msg), "%s:%u: key '%s' = '%s': %s",
			 ctx->path, ctx->line, name, value, spoor_errstr(ret));
		return 0;
	}
	return 1;
}

int spoor_params_load(struct spoor_params *p, const char *path, struct spoor_diag *diag)
{
	struct load_ctx ctx = { .path = path, .p = p, .diag = diag };
	const char *why;
	int ret;

	if (!p || !path || !diag)
		return SPOOR_E_INVAL;
	diag->msg[0] = '\0';
	ctx.f = fopen(path, "r");
	if (!ctx.f) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", path, strerror(errno));
		return SPOOR_E_IO;
	}
	ret = ini_parse_stream(read_line, &ctx, on_key, &ctx);
	fclose(ctx.f);
	if (ctx.err)
		return ctx.err;
	if (ret > 0) {
		snprintf(diag->msg, sizeof(diag->msg), "%s:%d: syntax error", path, ret);
		return SPOOR_E_SYNTAX;
	}
	if (ret < 0) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: cannot parse", path);
		return SPOOR_E_IO;
	}
	ret = spoor_params_check(p, &why);
	if (ret)
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", path, why);
	return ret;
}
