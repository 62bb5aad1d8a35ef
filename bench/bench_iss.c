// SPDX-License-Identifier: MIT
/*
 * Benchmark: the virtual board's ISS running a program to its exit, with a
 * retirement hook that looks at every event (as a trace encoder would) and
 * without one; reports millions of executed instructions per second (best
 * of --runs runs each).
 *
 * usage: bench_iss [--runs N] [prog.elf]   (default: the bench test program)
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "iss.h"
#include "trace.h"
#include "spoor/error.h"

/* Returns the monotonic time in seconds. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What the hook accumulates: enough to keep it from being optimised away. */
struct tally {
	uint64_t events, taken, bytes;
};

/* Counts one event into the struct tally @ctx; returns nothing. */
static void hook(void *ctx, const struct spoor_iss_event *ev)
{
	struct tally *t = ctx;

	t->events++;
	t->taken += (ev->flags & SPOOR_ISS_F_TAKEN) != 0;
	t->bytes += ev->size;
}

/* The trace port's bytes while tracing: counted. */
static void pib_count(void *ctx, const uint8_t *b, size_t n)
{
	(void)b;
	*(uint64_t *)ctx += n;
}

/* Modes of a run: no hook, a counting hook, the E-Trace encoder (trace unit). */
enum { MODE_OFF, MODE_HOOK, MODE_TRACE };

/* Runs @elf once; returns the seconds taken and sets *@insns (executed). */
static double run_once(const char *elf, int xlen, int mode, uint64_t *insns, struct tally *t)
{
	struct spoor_iss_config cfg = { .xlen = (unsigned)xlen };
	struct spoor_iss *iss = spoor_iss_new(&cfg);
	struct spoor_params p;
	struct spoor_vtrace *tr = NULL;
	struct spoor_vtrace_config tcfg = { .params = &p, .xlen = (unsigned)xlen,
					    .features = 0x3f, .pib_out = pib_count,
					    .pib_ctx = &t->bytes };
	double t0, t1;
	int r;

	if (!iss || spoor_iss_load_elf(iss, elf, NULL)) {
		fprintf(stderr, "bench_iss: cannot load %s\n", elf);
		exit(1);
	}
	if (mode == MODE_HOOK)
		spoor_iss_set_hook(iss, hook, t);
	if (mode == MODE_TRACE) {
		/* The virtual board's encoder, Siemens framing, on the trace port. */
		spoor_params_init(&p);
		p.iaddress_width_p = (unsigned)xlen;
		p.ecause_width_p = 6;
		spoor_encap_config_init(&tcfg.encap, SPOOR_ENCAP_SIEMENS);
		tr = spoor_vtrace_new(&tcfg, iss);
		if (!tr)
			exit(1);
		spoor_iss_set_hook(iss, spoor_vtrace_event, tr);
		spoor_vtrace_write(tr, SPOOR_VTRACE_PIB + TR_CONTROL, 4,
				   TR_SINK_ACTIVE | TR_SINK_ENABLE);
		spoor_vtrace_write(tr, SPOOR_VTRACE_TE + TR_CONTROL, 4,
				   TR_TE_ACTIVE | TR_TE_ENABLE | TR_TE_INST_TRACING);
	}
	t0 = now();
	r = spoor_iss_step(iss, 2000000000);
	t1 = now();
	if (r != SPOOR_ISS_STOP_EXIT || spoor_iss_exit_code(iss)) {
		fprintf(stderr, "bench_iss: %s did not exit cleanly (%d)\n", elf, r);
		exit(1);
	}
	spoor_iss_read_csr(iss, 0xb00, insns);	/* mcycle: executed instructions */
	spoor_vtrace_free(tr);
	spoor_iss_free(iss);
	return t1 - t0;
}

/* Runs the benchmark; returns the exit status. */
int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char usage[] =
		"usage: bench_iss [--runs N] [PROG.elf]\n"
		"Runs PROG (default: the bench test program) on the virtual board's ISS,\n"
		"best of N runs (default 3), and prints instructions per second.\n";
	const char *elf = ISS_BENCH_ELF;
	int runs = 3, c, xlen;

	while ((c = getopt_long(argc, argv, "r:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		if (c != 'r' || (runs = atoi(optarg)) < 1) {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc)
		elf = argv[optind];
	xlen = spoor_iss_elf_xlen(elf);
	if (xlen < 0) {
		fprintf(stderr, "bench_iss: %s: %s\n", elf, spoor_errstr(xlen));
		return 1;
	}
	for (int mode = MODE_TRACE; mode >= MODE_OFF; mode--) {
		static const char *const names[] = { "hook off", "hook on", "tracing on" };
		struct tally t = { 0 };
		double best = 1e30;
		uint64_t insns = 0;

		for (int i = 0; i < runs; i++) {
			double s = run_once(elf, xlen, mode, &insns, &t);

			if (s < best)
				best = s;
		}
		printf("%s, RV%d, %s: %" PRIu64 " instructions in %.3f s: %.1f MIPS\n",
		       elf, xlen, names[mode], insns, best, (double)insns / best / 1e6);
		if (mode == MODE_TRACE)
			printf("  trace port: %.3f bits/instruction\n",
			       8.0 * (double)t.bytes / runs / (double)insns);
	}
	return 0;
}
