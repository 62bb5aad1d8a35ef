// SPDX-License-Identifier: MIT
/*
 * iss_run: runs a RISC-V ELF program on the virtual board's ISS.  UART
 * output goes to stdout; the exit status is the program's (test device)
 * exit code.
 *
 * usage: iss_run [--trace FILE] [--max N] [--ram-mb N] [--time-divisor N]
 *        [--misaligned-traps] prog.elf
 *
 * --trace writes one line per event: "R pc" for a retired instruction,
 * "E pc cause tval" for one that raised an exception, "I pc cause" for an
 * interrupt taken before pc, "D pc cause" for a Debug Mode entry (hex).
 * Exit status 124: --max reached; 125: wfi that nothing can wake; 126:
 * halted in Debug Mode; 2: usage or load error.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iss.h"
#include "spoor/error.h"

/* Writes one trace line for @ev to the FILE @ctx; returns nothing. */
static void trace_event(void *ctx, const struct spoor_iss_event *ev)
{
	FILE *f = ctx;

	switch (ev->kind) {
	case SPOOR_ISS_EV_RETIRE:
		fprintf(f, "R %" PRIx64 "\n", ev->pc);
		break;
	case SPOOR_ISS_EV_EXCEPTION:
		fprintf(f, "E %" PRIx64 " %" PRIx64 " %" PRIx64 "\n", ev->pc, ev->cause, ev->tval);
		break;
	case SPOOR_ISS_EV_INTERRUPT:
		fprintf(f, "I %" PRIx64 " %" PRIx64 "\n", ev->pc, ev->cause);
		break;
	default:
		fprintf(f, "D %" PRIx64 " %" PRIx64 "\n", ev->pc, ev->cause);
		break;
	}
}

/* Prints the usage to @f; returns @status. */
static int usage(FILE *f, int status)
{
	fprintf(f, "usage: iss_run [--trace FILE] [--max N] [--ram-mb N] [--time-divisor N]\n"
		"               [--misaligned-traps] prog.elf\n");
	return status;
}

/* Parses a positive number option; returns it, or 0 if invalid. */
static uint64_t number(const char *arg)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 0);

	return (*end || arg[0] == '-') ? 0 : v;
}

/* Runs the program; returns the exit status. */
static int run(struct spoor_iss_config *cfg, const char *elf, const char *trace, uint64_t max)
{
	struct spoor_iss *iss;
	FILE *tf = NULL;
	int xlen, r, status = 2;

	xlen = spoor_iss_elf_xlen(elf);
	if (xlen < 0) {
		fprintf(stderr, "iss_run: %s: %s\n", elf, spoor_errstr(xlen));
		return 2;
	}
	cfg->xlen = (unsigned)xlen;
	iss = spoor_iss_new(cfg);
	if (!iss) {
		fprintf(stderr, "iss_run: cannot create the simulator\n");
		return 2;
	}
	r = spoor_iss_load_elf(iss, elf, NULL);
	if (r < 0) {
		fprintf(stderr, "iss_run: %s: %s\n", elf, spoor_errstr(r));
		goto out;
	}
	if (trace) {
		tf = strcmp(trace, "-") ? fopen(trace, "w") : stdout;
		if (!tf) {
			perror(trace);
			goto out;
		}
		spoor_iss_set_hook(iss, trace_event, tf);
	}
	r = spoor_iss_step(iss, max);
	fflush(stdout);
	switch (r) {
	case SPOOR_ISS_STOP_EXIT:
		status = spoor_iss_exit_code(iss);
		break;
	case SPOOR_ISS_STOP_COUNT:
		fprintf(stderr, "iss_run: stopped after %" PRIu64 " instructions\n", max);
		status = 124;
		break;
	case SPOOR_ISS_STOP_IDLE:
		fprintf(stderr, "iss_run: wfi with nothing to wake the hart\n");
		status = 125;
		break;
	case SPOOR_ISS_STOP_HALTED:
		fprintf(stderr, "iss_run: halted in Debug Mode\n");
		status = 126;
		break;
	case SPOOR_ISS_STOP_RESET:
		fprintf(stderr, "iss_run: reset requested\n");
		status = 0;
		break;
	default:
		fprintf(stderr, "iss_run: %s\n", spoor_errstr(r));
		break;
	}
out:
	if (tf && tf != stdout)
		fclose(tf);
	spoor_iss_free(iss);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "max", required_argument, NULL, 'm' },
		{ "ram-mb", required_argument, NULL, 'r' },
		{ "time-divisor", required_argument, NULL, 'd' },
		{ "misaligned-traps", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct spoor_iss_config cfg = { .uart_out = stdout };
	const char *trace = NULL;
	uint64_t max = UINT64_MAX;
	int c;

	while ((c = getopt_long(argc, argv, "t:m:r:d:ah", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			trace = optarg;
			break;
		case 'm':
			max = number(optarg);
			if (!max)
				return usage(stderr, 2);
			break;
		case 'r':
			cfg.ram_size = number(optarg) << 20;
			if (!cfg.ram_size)
				return usage(stderr, 2);
			break;
		case 'd':
			cfg.time_divisor = (uint32_t)number(optarg);
			if (!cfg.time_divisor)
				return usage(stderr, 2);
			break;
		case 'a':
			cfg.misaligned_traps = 1;
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, 2);
		}
	}
	if (optind != argc - 1)
		return usage(stderr, 2);
	return run(&cfg, argv[optind], trace, max);
}
