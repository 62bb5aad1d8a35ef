// SPDX-License-Identifier: MIT
/*
 * Output files of the analysis commands: written under a temporary name
 * beside the file and renamed over it only when complete, so that a run
 * that fails (a bad input, a full disk, Ctrl-C before the end) leaves the
 * previous file as it was, never a truncated one.
 */
#define _GNU_SOURCE	/* (mkstemp, fchmod) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "spoor/error.h"

/* The process's umask, read without changing it for long. */
static mode_t current_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

int cli_output_open(struct cli_output *o, const char *cmd, const char *path)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->path = path && strcmp(path, "-") ? path : NULL;
	if (!o->path) {
		o->f = stdout;
		return 0;
	}
	if (!*path) {
		fprintf(stderr, "spoor %s: -o: an empty file name\n", cmd);
		return CLI_EXIT_ERROR;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		/* A device or a FIFO (/dev/null, a pipe): written as it is. */
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "spoor %s: cannot write '%s': %s\n", cmd, path,
				strerror(EISDIR));
			return CLI_EXIT_ERROR;
		}
		o->f = fopen(path, "w");
		if (!o->f)
			goto fail;
		return 0;
	}
	if (asprintf(&o->tmp, "%s.tmpXXXXXX", path) < 0) {
		o->tmp = NULL;
		errno = ENOMEM;
		goto fail;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0)
		goto fail;
	/* The mode a plain fopen() would give a new file. */
	if (fchmod(fd, 0666 & ~current_umask()) || !(o->f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		unlink(o->tmp);
		errno = e;
		goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "spoor %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
	free(o->tmp);
	o->tmp = NULL;
	return CLI_EXIT_ERROR;
}

int cli_output_close(struct cli_output *o, bool ok)
{
	const char *name = o->path ? o->path : "standard output";
	int err = 0;

	if (!o->f)
		return ok ? 0 : CLI_EXIT_ERROR;
	errno = 0;
	if (fflush(o->f) || ferror(o->f))
		err = errno ? errno : EIO;
	if (o->f != stdout && fclose(o->f) && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (!err && ok && o->tmp && rename(o->tmp, o->path))
		err = errno;
	if (o->tmp && (err || !ok))
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	if (!ok)
		return CLI_EXIT_ERROR;	/* (the failure was told) */
	if (err) {
		fprintf(stderr, "spoor %s: writing %s: %s\n", o->cmd, name, strerror(err));
		return CLI_EXIT_ERROR;
	}
	return 0;
}

int cli_output_done(struct cli_output *o, int ret)
{
	int e = errno;

	if (ret == SPOOR_E_IO)
		fprintf(stderr, "spoor %s: writing %s: %s\n", o->cmd,
			o->path ? o->path : "standard output", strerror(e ? e : EIO));
	else if (ret)
		fprintf(stderr, "spoor %s: %s\n", o->cmd, spoor_errstr(ret));
	return cli_output_close(o, !ret);
}
