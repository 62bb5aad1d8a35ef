// SPDX-License-Identifier: MIT
/* Encoder parameters from *.scf and INI files, parsed with libinih. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ini.h>

#include "spoor/config_file.h"
#include "spoor/error.h"

struct ini_ctx {
	FILE *f;
	const char *path;
	unsigned line;		/* line the parser is on (our reader counts) */
	int (*key)(void *user, const char *section, const char *name, const char *value);
	void *user;
	struct spoor_diag *diag;
	int err;
};

/* libinih reader: one line per call, counting lines for error messages. */
static char *read_line(char *str, int num, void *stream)
{
	struct ini_ctx *ctx = stream;
	char *s = fgets(str, num, ctx->f);

	if (s && strchr(s, '\n'))
		ctx->line++;
	else if (s)
		ctx->line += feof(ctx->f) ? 1 : 0;
	return s;
}

/* libinih handler: returns 1 to go on, 0 after the first bad key. */
static int on_ini_key(void *user, const char *section, const char *name, const char *value)
{
	struct ini_ctx *ctx = user;
	int ret;

	if (ctx->err)
		return 0;
	ret = ctx->key(ctx->user, section, name, value);
	if (ret) {
		ctx->err = ret;
		snprintf(ctx->diag->msg, sizeof(ctx->diag->msg), "%s:%u: key '%s' = '%s': %s",
			 ctx->path, ctx->line, name, value, spoor_errstr(ret));
		return 0;
	}
	return 1;
}

int spoor_ini_load(const char *path, int (*key)(void *user, const char *section,
						  const char *name, const char *value),
		   void *user, struct spoor_diag *diag)
{
	struct ini_ctx ctx = { .path = path, .key = key, .user = user, .diag = diag };
	int ret;

	if (!path || !key || !diag)
		return SPOOR_E_INVAL;
	diag->msg[0] = '\0';
	ctx.f = fopen(path, "r");
	if (!ctx.f) {
		snprintf(diag->msg, sizeof(diag->msg), "%s: %s", path, strerror(errno));
		return SPOOR_E_IO;
	}
	ret = ini_parse_stream(read_line, &ctx, on_ini_key, &ctx);
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
	return 0;
}

/* A parameter key; the [board] and [trace] sections of board files are skipped. */
static int params_key(void *user, const char *section, const char *name, const char *value)
{
	if (!strcmp(section, "board") || !strcmp(section, "trace"))
		return 0;
	return spoor_params_set(user, name, value);
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
