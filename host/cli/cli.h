/* SPDX-License-Identifier: MIT */
/* The spoor command's subcommands and shared option helpers. */
#ifndef SPOOR_CLI_H
#define SPOOR_CLI_H

#include <stdbool.h>

struct spoor_cmd {
	const char *name;
	const char *help;
	int (*run)(int argc, char **argv);	/* returns the exit status */
};

int cmd_dump(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_virt(int argc, char **argv);
int cmd_gdbserver(int argc, char **argv);

/* Parses an unsigned number in [min, max] for option @opt; prints an error
 * naming the option and returns false when it is not one. */
bool cli_parse_uint(const char *cmd, const char *opt, const char *s, unsigned long min,
		    unsigned long max, unsigned long *out);

/* Returns the index of @arg among the @n @names of option @opt, or -1 after
 * an error naming the choices. */
int cli_choice(const char *cmd, const char *opt, const char *arg, const char *const *names,
	       int n);

#endif
