// SPDX-License-Identifier: MIT
/* The spoor command: dispatches to its subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct spoor_cmd commands[] = {
	{ "dump", "print the te_inst packets of a trace stream", cmd_dump },
	{ "decode", "reconstruct the retired instructions of a trace stream", cmd_decode },
	{ "virt", "run a program on the virtual board (JTAG, trace port)", cmd_virt },
	{ "gdbserver", "serve the trace to GDB (record btrace), before OpenOCD or from a capture",
	  cmd_gdbserver },
	{ "probes", "list the attached trace probes", cmd_probes },
	{ "capture", "record a probe's trace into a capture file", cmd_capture },
	{ "stream", "decode a probe's trace live, or serve it to TCP clients", cmd_stream },
	{ "flash", "update a probe's firmware (DFU)", cmd_flash },
	{ "coverage", "instruction, line and branch coverage of a trace (lcov, summary)",
	  cmd_coverage },
	{ "profile", "flat and call-graph profiles (callgrind, folded stacks, top)", cmd_profile },
	{ "calls", "the call tree: nested calls, traps and interrupts (text, JSON)", cmd_calls },
	{ "timeline", "functions, traps and gaps over time (Chrome/Perfetto trace JSON)",
	  cmd_timeline },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: spoor COMMAND [OPTIONS] ...\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n'spoor COMMAND --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("spoor %s\n", SPOOR_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "spoor: unknown command '%s' (try 'spoor --help')\n", argv[1]);
	return 2;
}
