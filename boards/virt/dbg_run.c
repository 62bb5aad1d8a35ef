// SPDX-License-Identifier: MIT
/*
 * virt_dbg: runs a program on the virtual board with its JTAG debug port
 * served over remote_bitbang, for OpenOCD (boards/virt-rv32.cfg,
 * boards/virt-rv64.cfg) and GDB.
 *
 *   virt_dbg [--xlen 32|64] [--jtag-port N] [--halt-on-start] [--once] prog.elf
 *
 * The XLEN defaults to the ELF file's; port 0 (the default) lets the system
 * pick a free one.  --halt-on-start halts the hart at the reset vector.
 * Prints "jtag: 127.0.0.1:PORT" on stdout, then the program's UART output.
 * Serves until SIGINT or SIGTERM (with --once: until the first client
 * quits).  A program that exits through the test device is reported on
 * stderr and the server goes on.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spoor/error.h"
#include "bitbang.h"
#include "dm.h"
#include "iss.h"
#include "jtag.h"

/* Instructions per batch while the hart runs: a long one when the socket
 * is quiet, a short one right after a debugger spoke. */
#define BATCH_QUIET	200000
#define BATCH_BUSY	2000
/* Wait for the socket while the hart does not run (ms; signals end it). */
#define IDLE_WAIT_MS	200

struct options {
	unsigned xlen;
	unsigned port;
	int halt_on_start;
	int once;
	const char *elf;
};

static volatile sig_atomic_t stop_requested;

/* Records a termination signal; returns nothing. */
static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Prints the usage to @f; returns @code. */
static int usage(FILE *f, int code)
{
	fprintf(f, "usage: virt_dbg [--xlen 32|64] [--jtag-port N] [--halt-on-start] "
		"[--once] prog.elf\n");
	return code;
}

/* Parses unsigned decimal @s up to @max into *@v; returns 0 or SPOOR_E_BAD_VALUE. */
static int parse_uint(const char *s, unsigned max, unsigned *v)
{
	char *end;
	unsigned long n;

	if (!s || !*s)
		return SPOOR_E_BAD_VALUE;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n > max)
		return SPOOR_E_BAD_VALUE;
	*v = (unsigned)n;
	return 0;
}

/* Parses the command line into @o; returns 0, or an exit code (1: bad usage, 2: help). */
static int parse_args(int argc, char **argv, struct options *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--xlen")) {
			i++;
			if (parse_uint(val, 64, &o->xlen) || (o->xlen != 32 && o->xlen != 64))
				return 1;
		} else if (!strcmp(a, "--jtag-port")) {
			i++;
			if (parse_uint(val, 65535, &o->port))
				return 1;
		} else if (!strcmp(a, "--halt-on-start")) {
			o->halt_on_start = 1;
		} else if (!strcmp(a, "--once")) {
			o->once = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			return 2;
		} else if (a[0] == '-' || o->elf) {
			return 1;
		} else {
			o->elf = a;
		}
	}
	return o->elf ? 0 : 1;
}

/* Installs the SIGINT/SIGTERM handlers (no restart: waits end); returns nothing. */
static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Serves the debugger and runs the hart until told to stop; returns 0 or a negative error. */
static int serve(struct spoor_dm *dm, struct spoor_bitbang *bb, struct spoor_iss *iss, int once)
{
	int running = 1, exited = 0;

	while (!stop_requested) {
		int ev = spoor_bitbang_poll(bb, running ? 0 : IDLE_WAIT_MS);
		int r;

		if (ev < 0)
			return ev;
		if (ev == SPOOR_BITBANG_QUIT && once)
			break;
		r = spoor_dm_run(dm, ev ? BATCH_BUSY : BATCH_QUIET);
		if (r < 0)
			return r;
		running = r == SPOOR_ISS_STOP_COUNT || r == SPOOR_ISS_STOP_RESET;
		if (r == SPOOR_ISS_STOP_EXIT && !exited)
			fprintf(stderr, "virt_dbg: the program exited with code %d\n",
				spoor_iss_exit_code(iss));
		exited = r == SPOOR_ISS_STOP_EXIT;
	}
	return 0;
}

/* Builds the board for @o and serves it; returns 0 or a negative error. */
static int run(const struct options *o)
{
	struct spoor_iss_config cfg = { .xlen = o->xlen, .uart_out = stdout };
	struct spoor_bitbang *bb = NULL;
	struct spoor_jtag *tap = NULL;
	struct spoor_dm *dm = NULL;
	struct spoor_iss *iss;
	int err;

	if (!cfg.xlen) {
		err = spoor_iss_elf_xlen(o->elf);
		if (err < 0) {
			fprintf(stderr, "virt_dbg: %s: %s\n", o->elf, spoor_errstr(err));
			return err;
		}
		cfg.xlen = (unsigned)err;
	}
	iss = spoor_iss_new(&cfg);
	if (!iss)
		return SPOOR_E_NOMEM;
	err = spoor_iss_load_elf(iss, o->elf, NULL);
	if (err) {
		fprintf(stderr, "virt_dbg: %s: %s\n", o->elf, spoor_errstr(err));
		goto cleanup;
	}
	if (o->halt_on_start)
		spoor_iss_enter_debug(iss, SPOOR_ISS_DEBUG_HALTREQ);
	err = SPOOR_E_NOMEM;
	dm = spoor_dm_new(iss);
	tap = dm ? spoor_jtag_new(dm, SPOOR_JTAG_IDCODE) : NULL;
	if (!tap)
		goto cleanup;
	err = spoor_bitbang_open(tap, o->port, &bb);
	if (err) {
		fprintf(stderr, "virt_dbg: cannot listen on 127.0.0.1:%u: %s\n", o->port,
			strerror(errno));
		goto cleanup;
	}
	printf("jtag: 127.0.0.1:%u\n", spoor_bitbang_port(bb));
	fflush(stdout);
	err = serve(dm, bb, iss, o->once);
	if (err)
		fprintf(stderr, "virt_dbg: %s\n", spoor_errstr(err));
cleanup:
	spoor_bitbang_close(bb);
	spoor_jtag_free(tap);
	spoor_dm_free(dm);
	spoor_iss_free(iss);
	return err;
}

int main(int argc, char **argv)
{
	struct options o = { .xlen = 0 };
	int r = parse_args(argc, argv, &o);

	if (r)
		return usage(r == 2 ? stdout : stderr, r == 2 ? 0 : 2);
	install_signals();
	r = run(&o);
	fflush(stdout);
	return r ? 1 : 0;
}
