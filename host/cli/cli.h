/* SPDX-License-Identifier: MIT */
/* The spoor command's subcommands and shared option helpers. */
#ifndef SPOOR_CLI_H
#define SPOOR_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Exit statuses of every spoor command (README, "Exit status"): a script
 * tells a clean run from one that completed with gaps or inconsistencies in
 * the trace (counted on stderr) and from an error (bad usage, a bad or
 * unreadable input, a failed write: nothing to rely on).
 */
enum cli_exit {
	CLI_EXIT_CLEAN = 0,
	CLI_EXIT_GAPS = 1,
	CLI_EXIT_ERROR = 2,
};

/* The exit status paragraph of every --help. */
extern const char cli_exit_usage[];

struct spoor_cmd {
	const char *name;
	const char *help;
	int (*run)(int argc, char **argv);	/* returns the exit status */
};

int cmd_dump(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_virt(int argc, char **argv);
int cmd_gdbserver(int argc, char **argv);
int cmd_probes(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_stream(int argc, char **argv);
int cmd_flash(int argc, char **argv);
int cmd_coverage(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_calls(int argc, char **argv);
int cmd_timeline(int argc, char **argv);

/* Parses an unsigned number in [min, max] for option @opt; prints an error
 * naming the option and returns false when it is not one. */
bool cli_parse_uint(const char *cmd, const char *opt, const char *s, unsigned long min,
		    unsigned long max, unsigned long *out);

/*
 * Parses "SIZE[k|M|G]" (bytes, 1024s; at least 1) for option @opt; prints an
 * error naming the option and returns false when it is not one.
 */
bool cli_parse_size(const char *cmd, const char *opt, const char *s, uint64_t *out);

/* Returns the index of @arg among the @n @names of option @opt, or -1 after
 * an error naming the choices. */
int cli_choice(const char *cmd, const char *opt, const char *arg, const char *const *names,
	       int n);

/*
 * Flushes @out and checks that nothing written to it failed; returns 0, or
 * CLI_EXIT_ERROR after "spoor CMD: writing output: REASON" (@err: the errno
 * seen when the failure happened, 0 if unknown).
 */
int cli_output_check(const char *cmd, FILE *out, int err);

/* An output file written whole or not at all (cli_output.c). */
struct cli_output {
	const char *cmd;	/* the command, for messages */
	const char *path;	/* the file, or NULL: standard output */
	char *tmp;		/* the temporary file beside it, while writing */
	FILE *f;		/* where to write */
};

/*
 * Opens @path (NULL or "-": standard output) for command @cmd: a regular
 * file (or a new one) is written as a temporary file beside it, renamed
 * over it by cli_output_close(); a device or FIFO is written directly.
 * Returns 0 (write to o->f), or CLI_EXIT_ERROR after "spoor CMD: cannot
 * write 'PATH': REASON" (a directory, no permission, an empty name).
 */
int cli_output_open(struct cli_output *o, const char *cmd, const char *path);

/*
 * Finishes @o: flushes and closes it and, when @ok and every write went
 * through, puts the file in place; otherwise the temporary file is removed
 * and what was at @path stays as it was.  Returns 0, or CLI_EXIT_ERROR
 * (after "spoor CMD: writing PATH: REASON" for a failed write; silently
 * when !@ok, the failure told already).
 */
int cli_output_close(struct cli_output *o, bool ok);

/*
 * Finishes @o after a writer returned @ret: 0 puts the file in place as
 * cli_output_close(o, true); SPOOR_E_IO tells "spoor CMD: writing PATH:
 * REASON" (errno as the writer left it), any other error its spoor_errstr(),
 * and the file is dropped.  Returns 0 or CLI_EXIT_ERROR.
 */
int cli_output_done(struct cli_output *o, int ret);

#endif
