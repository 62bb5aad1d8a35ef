// SPDX-License-Identifier: MIT
/*
 * spoor virt: the virtual board.  Runs a program on the ISS with its JTAG
 * debug port (OpenOCD's remote_bitbang), its trace control registers and
 * its trace port (the PIB sink's encapsulated bytes, served over TCP as a
 * probe would receive them), all on 127.0.0.1.
 */
#define _GNU_SOURCE	/* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bitbang.h"
#include "cli.h"
#include "cli_stream.h"
#include "dm.h"
#include "iss.h"
#include "jtag.h"
#include "spoor/board.h"
#include "spoor/error.h"
#include "trace.h"

/* Instructions per batch: long while the debugger is quiet, short after it spoke. */
#define BATCH_QUIET 200000
#define BATCH_BUSY 2000
#define IDLE_WAIT_MS 100

struct virt {
	struct spoor_board board;
	const char *board_path;
	unsigned jtag_port, trace_port;
	bool halt_on_start, trace_on_start, exit_on_end, wait_probe;
	const char *capture;	/* also write the trace port's bytes here */
	const char *elf;
	uint64_t entry;		/* the program's entry point */
	struct spoor_iss *iss;
	struct spoor_vtrace *tr;
	int trace_listen, trace_client;
	FILE *capture_f;
	uint64_t dropped;	/* trace bytes with no probe attached */
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void virt_usage(FILE *out)
{
	fputs("usage: spoor virt [OPTIONS] prog.elf\n"
	      "Run a program on the virtual board: RISC-V hart, JTAG for OpenOCD, trace port.\n\n"
	      "  --board FILE         board descriptor (default: boards/virt-rv64.ini's values,\n"
	      "                       or RV32 for an RV32 program)\n"
	      "  --jtag-port N        remote_bitbang port for OpenOCD (default 0: any free one)\n"
	      "  --trace-port N       TCP port streaming the trace port's bytes (default 0: any)\n"
	      "  --halt-on-start      halt the hart at the reset vector (with --trace-on-start:\n"
	      "                       at the program's entry, tracing on)\n"
	      "  --trace-on-start     enable tracing to the trace port at the program's entry,\n"
	      "                       as a debugger writing the trace control registers would\n"
	      "  --capture FILE       also write the trace port's bytes to FILE\n"
	      "  --exit               exit when the program exits (with its code)\n"
	      "  --wait-probe         hold the hart until a probe connects to the trace port\n"
	      "  -h, --help           this help\n"
	      "Prints the ports it listens on (127.0.0.1 only), then the UART output.\n"
	      "Ctrl-C stops it.\n", out);
}

enum {
	OPT_BOARD = 256, OPT_JTAG_PORT, OPT_TRACE_PORT, OPT_HALT, OPT_TRACE_ON, OPT_CAPTURE,
	OPT_EXIT, OPT_WAIT_PROBE,
};

/* Parses the command line; returns 0, -1 (help shown) or an exit status. */
static int parse_args(struct virt *v, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, OPT_BOARD },
		{ "jtag-port", required_argument, NULL, OPT_JTAG_PORT },
		{ "trace-port", required_argument, NULL, OPT_TRACE_PORT },
		{ "halt-on-start", no_argument, NULL, OPT_HALT },
		{ "trace-on-start", no_argument, NULL, OPT_TRACE_ON },
		{ "capture", required_argument, NULL, OPT_CAPTURE },
		{ "exit", no_argument, NULL, OPT_EXIT },
		{ "wait-probe", no_argument, NULL, OPT_WAIT_PROBE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct spoor_diag diag;
	unsigned long n;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_BOARD:
			v->board_path = optarg;
			if (spoor_board_load(&v->board, optarg, &diag)) {
				fprintf(stderr, "spoor virt: %s\n", diag.msg);
				return 1;
			}
			break;
		case OPT_JTAG_PORT:
		case OPT_TRACE_PORT:
			if (!cli_parse_uint("virt", c == OPT_JTAG_PORT ? "--jtag-port" : "--trace-port",
					    optarg, 0, 65535, &n))
				return 2;
			*(c == OPT_JTAG_PORT ? &v->jtag_port : &v->trace_port) = (unsigned)n;
			break;
		case OPT_HALT:
			v->halt_on_start = true;
			break;
		case OPT_TRACE_ON:
			v->trace_on_start = true;
			break;
		case OPT_CAPTURE:
			v->capture = optarg;
			break;
		case OPT_EXIT:
			v->exit_on_end = true;
			break;
		case OPT_WAIT_PROBE:
			v->wait_probe = true;
			break;
		case 'h':
			virt_usage(stdout);
			return -1;
		default:
			return cli_bad_option("virt", c, argv);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "spoor virt: expected one program (prog.elf); try 'spoor virt --help'\n");
		return 2;
	}
	v->elf = argv[optind];
	return 0;
}

/* ---- the trace port -------------------------------------------------------- */

/* Opens the trace port's listening socket on 127.0.0.1; returns 0 or an errno. */
static int trace_listen(struct virt *v)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int one = 1;

	v->trace_listen = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (v->trace_listen < 0)
		return errno;
	setsockopt(v->trace_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)v->trace_port);
	if (bind(v->trace_listen, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(v->trace_listen, 1) ||
	    getsockname(v->trace_listen, (struct sockaddr *)&a, &len))
		return errno;
	v->trace_port = ntohs(a.sin_port);
	return 0;
}

/* Accepts a probe on the trace port (one at a time). */
static void trace_accept(struct virt *v)
{
	int fd = accept4(v->trace_listen, NULL, NULL, SOCK_CLOEXEC);
	int one = 1;

	if (fd < 0)
		return;
	if (v->trace_client >= 0) {
		close(fd);	/* one probe at a time */
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	v->trace_client = fd;
}

/* The PIB sink's bytes: to the probe, and to the capture file. */
static void pib_out(void *ctx, const uint8_t *b, size_t n)
{
	struct virt *v = ctx;
	size_t done = 0;

	if (v->capture_f && fwrite(b, 1, n, v->capture_f) != n)
		fprintf(stderr, "spoor virt: writing %s: %s\n", v->capture, strerror(errno));
	if (v->trace_client < 0) {
		v->dropped += n;	/* the pins toggle with no probe on them */
		return;
	}
	while (done < n) {
		ssize_t w = send(v->trace_client, b + done, n - done, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(v->trace_client);
			v->trace_client = -1;
			return;
		}
		done += (size_t)w;
	}
}

/* The trace unit's register window as an ISS device. */
static int dev_read(void *ctx, uint64_t off, unsigned size, uint64_t *value)
{
	return spoor_vtrace_read(ctx, off, size, value);
}

static int dev_write(void *ctx, uint64_t off, unsigned size, uint64_t value)
{
	return spoor_vtrace_write(ctx, off, size, value);
}

/* Writes the trace control registers as a debugger would to trace to the PIB. */
static void trace_on(struct virt *v)
{
	uint64_t base = v->board.trace_base;
	uint32_t features = v->board.src_id << TR_TE_SRC_ID_SHIFT |
			    spoor_vtrace_option_features(v->board.features);

	spoor_iss_bus_write(v->iss, base + SPOOR_VTRACE_TE + TR_TE_INST_FEATURES, 4, features);
	spoor_iss_bus_write(v->iss, base + SPOOR_VTRACE_PIB + TR_CONTROL, 4,
			    TR_SINK_ACTIVE | TR_SINK_ENABLE);
	spoor_iss_bus_write(v->iss, base + SPOOR_VTRACE_TE + TR_CONTROL, 4,
			    TR_TE_ACTIVE | TR_TE_ENABLE | TR_TE_INST_TRACING |
			    4u << TR_TE_SYNC_MAX_SHIFT);
}

/* Runs through the boot ROM untraced, to the program's entry. */
static void run_to_entry(struct virt *v)
{
	uint64_t pc = 0;

	for (int i = 0; i < 64 && pc != v->entry; i++) {
		spoor_iss_step(v->iss, 1);
		spoor_iss_read_reg(v->iss, SPOOR_ISS_REG_PC, &pc);
	}
}

/* The hart's trace features (what the board's parameters allow). */
static uint32_t hw_features(const struct spoor_board *b)
{
	const struct spoor_params *p = &b->params;
	uint32_t f = TR_TE_NO_ADDR_DIFF | TR_TE_NO_TRAP_ADDR | TR_TE_EN_SIJUMP;

	if (p->itype_width_p == 4 && (p->return_stack_size_p || p->call_counter_size_p))
		f |= TR_TE_EN_IMPLICIT_RET;
	if (p->bpred_size_p)
		f |= TR_TE_EN_BRANCH_PRED;
	if (p->cache_size_p)
		f |= TR_TE_EN_JTC;
	return f;
}

/* ---- the board --------------------------------------------------------------- */

/* Builds the board; returns 0 or an exit status (message printed). */
static int build(struct virt *v)
{
	struct spoor_iss_config icfg = { .uart_out = stdout };
	struct spoor_vtrace_config tcfg = { 0 };
	struct spoor_iss_device dev = { .read = dev_read, .write = dev_write };
	int xlen = spoor_iss_elf_xlen(v->elf), err;
	uint64_t entry = 0;

	if (xlen < 0) {
		fprintf(stderr, "spoor virt: %s: %s\n", v->elf, spoor_errstr(xlen));
		return 1;
	}
	if (!v->board_path && (unsigned)xlen != v->board.xlen) {
		v->board.xlen = (unsigned)xlen;
		v->board.params.iaddress_width_p = (unsigned)xlen;
	}
	if ((unsigned)xlen != v->board.xlen) {
		fprintf(stderr, "spoor virt: %s is RV%d, the board %s is RV%u\n", v->elf, xlen,
			v->board_path, v->board.xlen);
		return 1;
	}
	icfg.xlen = v->board.xlen;
	icfg.ram_size = v->board.ram_size;
	v->iss = spoor_iss_new(&icfg);
	if (!v->iss)
		return 1;
	err = spoor_iss_load_elf(v->iss, v->elf, &entry);
	if (err) {
		fprintf(stderr, "spoor virt: %s: %s\n", v->elf, spoor_errstr(err));
		return 1;
	}
	tcfg.params = &v->board.params;
	tcfg.encap = v->board.encap;
	tcfg.features = hw_features(&v->board);
	tcfg.xlen = v->board.xlen;
	tcfg.pib_out = pib_out;
	tcfg.pib_ctx = v;
	v->tr = spoor_vtrace_new(&tcfg, v->iss);
	dev.ctx = v->tr;
	if (!v->tr ||
	    spoor_iss_add_device(v->iss, v->board.trace_base, SPOOR_VTRACE_SIZE, &dev)) {
		fprintf(stderr, "spoor virt: cannot map the trace registers at 0x%" PRIx64 "\n",
			v->board.trace_base);
		return 1;
	}
	spoor_iss_set_hook(v->iss, spoor_vtrace_event, v->tr);
	v->entry = entry;
	/* Tracing starts at the entry: with --wait-probe once the probe is there. */
	if (v->trace_on_start)
		run_to_entry(v);
	if (v->trace_on_start && !v->wait_probe)
		trace_on(v);
	if (v->halt_on_start)
		spoor_iss_enter_debug(v->iss, SPOOR_ISS_DEBUG_HALTREQ);
	return 0;
}

/* Serves JTAG and the trace port while the hart runs; returns the exit status. */
static int serve(struct virt *v, struct spoor_dm *dm, struct spoor_bitbang *bb)
{
	bool running = true, exited = false;
	int status = 0;

	while (!stop_requested) {
		struct pollfd pfd = { .fd = v->trace_listen, .events = POLLIN };
		int ev = spoor_bitbang_poll(bb, running ? 0 : IDLE_WAIT_MS);
		int r;

		if (poll(&pfd, 1, v->wait_probe && v->trace_client < 0 ? IDLE_WAIT_MS : 0) > 0)
			trace_accept(v);
		if (v->wait_probe && v->trace_client < 0)
			continue;	/* the hart waits for the probe */
		if (v->wait_probe && v->trace_on_start) {
			v->trace_on_start = false;
			trace_on(v);
		}
		if (ev < 0) {
			fprintf(stderr, "spoor virt: jtag: %s\n", spoor_errstr(ev));
			return 1;
		}
		r = spoor_dm_run(dm, ev ? BATCH_BUSY : BATCH_QUIET);
		if (r < 0) {
			fprintf(stderr, "spoor virt: %s\n", spoor_errstr(r));
			return 1;
		}
		running = r == SPOOR_ISS_STOP_COUNT || r == SPOOR_ISS_STOP_RESET;
		if (r == SPOOR_ISS_STOP_EXIT && !exited) {
			status = spoor_iss_exit_code(v->iss);
			/* Tracing stops with the program: the end-of-trace packets. */
			spoor_vtrace_write(v->tr, SPOOR_VTRACE_TE + TR_CONTROL, 4, TR_TE_ACTIVE);
			fflush(stdout);
			fprintf(stderr, "spoor virt: the program exited with code %d\n", status);
			if (v->exit_on_end)
				break;
		}
		exited = r == SPOOR_ISS_STOP_EXIT;
	}
	return status;
}

int cmd_virt(int argc, char **argv)
{
	struct spoor_bitbang *bb = NULL;
	struct spoor_jtag *tap = NULL;
	struct spoor_dm *dm = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	struct virt *v = calloc(1, sizeof(*v));
	int status, err;

	if (!v)
		return 1;
	v->trace_listen = v->trace_client = -1;
	spoor_board_init(&v->board);
	status = parse_args(v, argc, argv);
	if (status)
		goto out;
	if (v->capture) {
		v->capture_f = fopen(v->capture, "wb");
		if (!v->capture_f) {
			fprintf(stderr, "spoor virt: cannot write '%s': %s\n", v->capture,
				strerror(errno));
			status = 1;
			goto out;
		}
	}
	status = build(v);
	if (status)
		goto out;
	status = 1;
	dm = spoor_dm_new(v->iss);
	tap = dm ? spoor_jtag_new(dm, SPOOR_JTAG_IDCODE) : NULL;
	if (!tap)
		goto out;
	err = spoor_bitbang_open(tap, v->jtag_port, &bb);
	if (err || trace_listen(v)) {
		fprintf(stderr, "spoor virt: cannot listen on 127.0.0.1: %s\n", strerror(errno));
		goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	printf("jtag: 127.0.0.1:%u\ntrace: 127.0.0.1:%u (%s)\ntrace control: 0x%" PRIx64 "\n",
	       spoor_bitbang_port(bb), v->trace_port, spoor_encap_kind_name(v->board.encap.kind),
	       v->board.trace_base);
	fflush(stdout);
	status = serve(v, dm, bb);
	if (v->dropped && !v->capture_f)
		fprintf(stderr, "spoor virt: %" PRIu64 " trace bytes went out with no probe "
			"connected\n", v->dropped);
out:
	if (v->capture_f && fclose(v->capture_f)) {
		fprintf(stderr, "spoor virt: writing '%s': %s\n", v->capture, strerror(errno));
		status = 1;
	}
	if (v->trace_client >= 0)
		close(v->trace_client);
	if (v->trace_listen >= 0)
		close(v->trace_listen);
	spoor_bitbang_close(bb);
	spoor_jtag_free(tap);
	spoor_dm_free(dm);
	spoor_vtrace_free(v->tr);
	spoor_iss_free(v->iss);
	free(v);
	return status < 0 ? 0 : status;
}
