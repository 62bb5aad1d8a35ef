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
#include <sys/stat.h>
#include <time.h>
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
#define MAX_TRACE_CLIENTS 64		/* probes served at once on the trace port */
#define PROBE_BUFFER (4u << 20)		/* default bytes queued for a probe that lags */
#define DRAIN_MS 1000			/* at the end, time for probes to take their queues */

/* A probe on the trace port: the stream from its join point. */
struct trace_client {
	int fd;
	uint8_t *buf;		/* bytes not sent yet: buf[off, len) */
	size_t len, off, cap;
	char name[32];		/* the peer, "127.0.0.1:PORT" */
};

struct virt {
	struct spoor_board board;
	const char *board_path;
	unsigned jtag_port, trace_port;
	bool halt_on_start, trace_on_start, exit_on_end, wait_probe;
	bool timestamps;	/* --timestamps: the timestamp unit on with tracing */
	const char *capture;	/* also write the trace port's bytes here */
	const char *elf;
	uint64_t entry;		/* the program's entry point */
	struct spoor_iss *iss;
	struct spoor_vtrace *tr;
	int trace_listen;
	struct trace_client clients[MAX_TRACE_CLIENTS];
	unsigned nclients;
	FILE *capture_f;
	uint64_t capture_limit;	/* 0: none */
	uint64_t probe_buffer;	/* bytes queued for a probe before it is dropped */
	uint64_t captured;	/* bytes written to the capture */
	bool capture_full, capture_failed;
	uint64_t dropped;	/* trace bytes with no probe attached */
};

/* Terminating signals received: the first ends the run, the next the final drain. */
static volatile sig_atomic_t stop_signals;

/* Counts a terminating signal. */
static void on_signal(int sig)
{
	(void)sig;
	stop_signals++;
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
	      "  --timestamps         with --trace-on-start: the encoder's timestamp unit on too,\n"
	      "                       every te_inst frame stamped (one tick per retired\n"
	      "                       instruction: the board's clock); for 'spoor profile'\n"
	      "                       and 'spoor timeline' by time\n"
	      "  --capture FILE       also write the trace port's bytes to FILE (every byte is\n"
	      "                       kept when spoor virt is stopped by any signal it can catch)\n"
	      "  --capture-limit SIZE stop writing the capture at SIZE bytes (suffix k, M, G)\n"
	      "  --probe-buffer SIZE  bytes queued for a probe on the trace port that cannot\n"
	      "                       keep up; one further behind is disconnected (default 4M)\n"
	      "  --exit               exit when the program exits (with its code)\n"
	      "  --wait-probe         hold the hart until a probe connects to the trace port\n"
	      "  -h, --help           this help\n"
	      "Prints the ports it listens on (127.0.0.1 only), then the UART output.\n"
	      "The trace port serves up to 64 probes at once, each from the point it joins\n"
	      "to the end (given up to a second to take the rest when spoor virt stops); one\n"
	      "that falls --probe-buffer behind is disconnected.  On the JTAG port a newcomer\n"
	      "takes over from a client silent for a second (closing it), and is closed at\n"
	      "once while the client is busy.  Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT) stops it.\n"
	      "\nExit status: with --exit, the program's exit code; else 0, or 2 after an\n"
	      "error (bad usage, program or board, a port in use, a failed capture write).\n",
	      out);
}

enum {
	OPT_BOARD = 256, OPT_JTAG_PORT, OPT_TRACE_PORT, OPT_HALT, OPT_TRACE_ON, OPT_CAPTURE,
	OPT_EXIT, OPT_WAIT_PROBE, OPT_CAPTURE_LIMIT, OPT_PROBE_BUFFER, OPT_TIMESTAMPS,
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
		{ "capture-limit", required_argument, NULL, OPT_CAPTURE_LIMIT },
		{ "probe-buffer", required_argument, NULL, OPT_PROBE_BUFFER },
		{ "timestamps", no_argument, NULL, OPT_TIMESTAMPS },
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
			if (v->board_path) {
				fprintf(stderr, "spoor virt: --board given twice\n");
				return CLI_EXIT_ERROR;
			}
			v->board_path = optarg;
			if (spoor_board_load(&v->board, optarg, &diag)) {
				fprintf(stderr, "spoor virt: %s\n", diag.msg);
				return CLI_EXIT_ERROR;
			}
			break;
		case OPT_JTAG_PORT:
		case OPT_TRACE_PORT:
			if (!cli_parse_uint("virt", c == OPT_JTAG_PORT ? "--jtag-port" : "--trace-port",
					    optarg, 0, 65535, &n))
				return CLI_EXIT_ERROR;
			*(c == OPT_JTAG_PORT ? &v->jtag_port : &v->trace_port) = (unsigned)n;
			break;
		case OPT_HALT:
			v->halt_on_start = true;
			break;
		case OPT_TRACE_ON:
			v->trace_on_start = true;
			break;
		case OPT_TIMESTAMPS:
			v->timestamps = true;
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
		case OPT_CAPTURE_LIMIT:
			if (!cli_parse_size("virt", "--capture-limit", optarg, &v->capture_limit))
				return CLI_EXIT_ERROR;
			break;
		case OPT_PROBE_BUFFER:
			if (!cli_parse_size("virt", "--probe-buffer", optarg, &v->probe_buffer))
				return CLI_EXIT_ERROR;
			if (v->probe_buffer > SIZE_MAX / 4) {
				fprintf(stderr, "spoor virt: --probe-buffer: '%s' is too big\n", optarg);
				return CLI_EXIT_ERROR;
			}
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
		return CLI_EXIT_ERROR;
	}
	if (v->capture_limit && !v->capture) {
		fprintf(stderr, "spoor virt: --capture-limit without --capture\n");
		return CLI_EXIT_ERROR;
	}
	if (v->timestamps && !v->trace_on_start) {
		fprintf(stderr, "spoor virt: --timestamps without --trace-on-start (a debugger "
			"turns the timestamp unit on with trTsControl)\n");
		return CLI_EXIT_ERROR;
	}
	v->elf = argv[optind];
	return 0;
}

/* ---- the trace port -------------------------------------------------------- */

/* Opens the trace port's listening socket on 127.0.0.1; returns 0 or -1 (errno set). */
static int trace_listen(struct virt *v)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int one = 1;

	v->trace_listen = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (v->trace_listen < 0)
		return -1;
	setsockopt(v->trace_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)v->trace_port);
	if (bind(v->trace_listen, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(v->trace_listen, SOMAXCONN) ||
	    getsockname(v->trace_listen, (struct sockaddr *)&a, &len))
		return -1;
	v->trace_port = ntohs(a.sin_port);
	return 0;
}

/* Closes client @i (the last one takes its place); @why (may be NULL) is said on stderr. */
static void client_drop(struct virt *v, unsigned i, const char *why)
{
	struct trace_client *c = &v->clients[i];

	if (why)
		fprintf(stderr, "spoor virt: trace client %s %s: disconnected\n", c->name, why);
	close(c->fd);
	free(c->buf);
	*c = v->clients[--v->nclients];
	memset(&v->clients[v->nclients], 0, sizeof(*c));
}

/* Accepts every probe waiting on the trace port. */
static void trace_accept(struct virt *v)
{
	struct sockaddr_in peer;
	socklen_t len = sizeof(peer);
	int fd, one = 1;

	while ((fd = accept4(v->trace_listen, (struct sockaddr *)&peer, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct trace_client *c;

		if (v->nclients == MAX_TRACE_CLIENTS) {
			fprintf(stderr, "spoor virt: trace port: already %d clients; one more "
				"refused\n", MAX_TRACE_CLIENTS);
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = &v->clients[v->nclients++];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		snprintf(c->name, sizeof(c->name), "127.0.0.1:%u", ntohs(peer.sin_port));
		len = sizeof(peer);
	}
}

/* Sends what client @i has pending; returns 0, or -1 when it was dropped. */
static int client_flush(struct virt *v, unsigned i)
{
	struct trace_client *c = &v->clients[i];

	while (c->off < c->len) {
		ssize_t w = send(c->fd, c->buf + c->off, c->len - c->off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w <= 0) {
			client_drop(v, i, NULL);	/* it went away */
			return -1;
		}
		c->off += (size_t)w;
	}
	c->off = c->len = 0;
	return 0;
}

/*
 * Queues @n bytes for client @i (trace_flush() sends them); a client more
 * than v->probe_buffer behind (what its socket does not take) is dropped.
 * Returns 0 or -1 (dropped).
 */
static int client_queue(struct virt *v, unsigned i, const uint8_t *b, size_t n)
{
	struct trace_client *c = &v->clients[i];
	char why[96];

	if (c->len - c->off + n > v->probe_buffer && client_flush(v, i) < 0)
		return -1;
	if (c->len - c->off + n > v->probe_buffer) {
		snprintf(why, sizeof(why), "fell more than %" PRIu64 " bytes behind the trace "
			 "(--probe-buffer)", v->probe_buffer);
		client_drop(v, i, why);
		return -1;
	}
	if (c->off && c->len + n > c->cap) {
		memmove(c->buf, c->buf + c->off, c->len - c->off);
		c->len -= c->off;
		c->off = 0;
	}
	if (c->len + n > c->cap) {
		size_t cap = c->cap ? c->cap : 65536;
		uint8_t *nb;

		while (cap < c->len + n)
			cap *= 2;
		if (cap > v->probe_buffer)
			cap = v->probe_buffer;	/* still >= len + n: see the test above */
		nb = realloc(c->buf, cap);
		if (!nb) {
			client_drop(v, i, "cannot be buffered (out of memory)");
			return -1;
		}
		c->buf = nb;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, b, n);
	c->len += n;
	return 0;
}

/* Sends every client what the socket takes of its queue (one call per batch, not per packet). */
static void trace_flush(struct virt *v)
{
	/* From the last: a dropped client is replaced by the last one. */
	for (unsigned i = v->nclients; i-- > 0;)
		if (v->clients[i].off != v->clients[i].len)
			client_flush(v, i);
}

/* Writes @n trace bytes to the capture file, within its limit. */
static void capture_write(struct virt *v, const uint8_t *b, size_t n)
{
	if (!v->capture_f || v->capture_full || v->capture_failed)
		return;
	if (v->capture_limit && v->captured + n > v->capture_limit) {
		v->capture_full = true;
		fprintf(stderr, "spoor virt: capture limit of %" PRIu64 " bytes reached; the rest "
			"of the trace is not saved in %s\n", v->capture_limit, v->capture);
		return;
	}
	if (fwrite(b, 1, n, v->capture_f) != n) {
		v->capture_failed = true;
		fprintf(stderr, "spoor virt: writing %s: %s\n", v->capture, strerror(errno));
		return;
	}
	v->captured += n;
}

/* The PIB sink's bytes: queued for every probe, and to the capture file. */
static void pib_out(void *ctx, const uint8_t *b, size_t n)
{
	struct virt *v = ctx;

	capture_write(v, b, n);
	if (!v->nclients) {
		v->dropped += n;	/* the pins toggle with no probe on them */
		return;
	}
	for (unsigned i = v->nclients; i-- > 0;)
		client_queue(v, i, b, n);
}

/* Serves the trace port for up to @timeout_ms: new probes, pending bytes, closed peers. */
static void trace_poll(struct virt *v, int timeout_ms)
{
	struct pollfd p[MAX_TRACE_CLIENTS + 1];
	unsigned n;
	uint8_t junk[512];

	trace_flush(v);
	n = v->nclients;
	p[0] = (struct pollfd){ .fd = v->trace_listen, .events = POLLIN };
	for (unsigned i = 0; i < n; i++)
		p[i + 1] = (struct pollfd){ .fd = v->clients[i].fd,
					    .events = POLLIN | (v->clients[i].len ? POLLOUT : 0) };
	if (poll(p, n + 1, timeout_ms) <= 0)
		return;
	/* From the last: a dropped client is replaced by the last one. */
	for (unsigned i = n; i-- > 0;) {
		if (!p[i + 1].revents)
			continue;
		if (p[i + 1].revents & POLLIN) {
			/* A probe sends nothing; a read of 0 is its close. */
			ssize_t r = recv(v->clients[i].fd, junk, sizeof(junk), 0);

			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
				client_drop(v, i, NULL);
				continue;
			}
		}
		if (p[i + 1].revents & (POLLERR | POLLHUP))
			client_drop(v, i, NULL);
		else if (p[i + 1].revents & POLLOUT)
			client_flush(v, i);
	}
	if (p[0].revents)
		trace_accept(v);
}

/*
 * At the end of the run: gives the probes up to DRAIN_MS to take the bytes
 * still queued for them (a further signal ends the wait), then disconnects
 * those that have not, with a message.
 */
static void trace_drain(struct virt *v)
{
	struct pollfd p[MAX_TRACE_CLIENTS];
	unsigned idx[MAX_TRACE_CLIENTS];
	sig_atomic_t signals = stop_signals;
	struct timespec t0, t;
	int left = DRAIN_MS;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (left > 0 && stop_signals == signals) {
		unsigned n = 0;
		int r;

		for (unsigned i = 0; i < v->nclients; i++) {
			if (v->clients[i].off == v->clients[i].len)
				continue;
			p[n] = (struct pollfd){ .fd = v->clients[i].fd, .events = POLLOUT };
			idx[n++] = i;
		}
		if (!n)
			return;
		r = poll(p, n, left);
		if (r < 0 && errno != EINTR)
			break;
		/* From the last: a dropped client is replaced by the last one. */
		for (unsigned k = r > 0 ? n : 0; k-- > 0;)
			if (p[k].revents)
				client_flush(v, idx[k]);
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = DRAIN_MS - (int)((t.tv_sec - t0.tv_sec) * 1000 +
					(t.tv_nsec - t0.tv_nsec) / 1000000);
	}
	for (unsigned i = v->nclients; i-- > 0;)
		if (v->clients[i].off != v->clients[i].len)
			client_drop(v, i, "did not take the end of the trace in time");
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
	if (v->timestamps)
		spoor_iss_bus_write(v->iss, base + SPOOR_VTRACE_TE + TR_TS_CONTROL, 4,
				    TR_TS_ACTIVE | TR_TS_COUNT | TR_TS_ENABLE);
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

/* Why program @path could not be used (@err: the ISS's error), for a message. */
static const char *elf_problem(const char *path, int err)
{
	static char msg[512];
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		snprintf(msg, sizeof(msg), "cannot open '%s': %s", path, strerror(errno));
	else if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		snprintf(msg, sizeof(msg), "'%s' is not a regular file", path);
	else
		snprintf(msg, sizeof(msg), "'%s': %s", path, spoor_errstr(err));
	if (fd >= 0)
		close(fd);
	return msg;
}

/* Builds the board; returns 0 or an exit status (message printed). */
static int build(struct virt *v)
{
	struct spoor_iss_config icfg = { .uart_out = stdout };
	struct spoor_vtrace_config tcfg = { 0 };
	struct spoor_iss_device dev = { .read = dev_read, .write = dev_write };
	int xlen = spoor_iss_elf_xlen(v->elf), err;
	uint64_t entry = 0;

	if (xlen < 0) {
		fprintf(stderr, "spoor virt: %s\n", elf_problem(v->elf, xlen));
		return CLI_EXIT_ERROR;
	}
	if (!v->board_path && (unsigned)xlen != v->board.xlen) {
		v->board.xlen = (unsigned)xlen;
		v->board.params.iaddress_width_p = (unsigned)xlen;
	}
	if ((unsigned)xlen != v->board.xlen) {
		fprintf(stderr, "spoor virt: '%s' is an RV%d program (ELFCLASS%d), but the board's "
			"ISA is %s (%s)\n", v->elf, xlen, xlen, v->board.isa, v->board_path);
		return CLI_EXIT_ERROR;
	}
	icfg.xlen = v->board.xlen;
	icfg.ram_size = v->board.ram_size;
	v->iss = spoor_iss_new(&icfg);
	if (!v->iss) {
		fprintf(stderr, "spoor virt: cannot build the board: out of memory\n");
		return CLI_EXIT_ERROR;
	}
	err = spoor_iss_load_elf(v->iss, v->elf, &entry);
	if (err) {
		fprintf(stderr, "spoor virt: %s\n", elf_problem(v->elf, err));
		return CLI_EXIT_ERROR;
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
		return CLI_EXIT_ERROR;
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

	while (!stop_signals) {
		int ev = spoor_bitbang_poll(bb, running ? 0 : IDLE_WAIT_MS);
		int r;

		trace_poll(v, v->wait_probe && !v->nclients ? IDLE_WAIT_MS : 0);
		if (v->capture_failed)
			return CLI_EXIT_ERROR;
		if (ev == SPOOR_BITBANG_TAKEOVER)
			fprintf(stderr, "spoor virt: jtag: a new client took over from one silent for "
				"%d ms (closed)\n", SPOOR_BITBANG_IDLE_MS);
		else if (ev == SPOOR_BITBANG_REFUSED)
			fprintf(stderr, "spoor virt: jtag: a new client was refused: the port is in "
				"use\n");
		if (v->wait_probe && !v->nclients)
			continue;	/* the hart waits for a probe */
		if (v->wait_probe && v->trace_on_start) {
			v->trace_on_start = false;
			trace_on(v);
		}
		if (ev < 0) {
			fprintf(stderr, "spoor virt: jtag: %s\n", spoor_errstr(ev));
			return CLI_EXIT_ERROR;
		}
		r = spoor_dm_run(dm, ev ? BATCH_BUSY : BATCH_QUIET);
		trace_flush(v);
		if (r < 0) {
			fprintf(stderr, "spoor virt: %s\n", spoor_errstr(r));
			return CLI_EXIT_ERROR;
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

	if (!v) {
		fprintf(stderr, "spoor virt: out of memory\n");
		return CLI_EXIT_ERROR;
	}
	v->trace_listen = -1;
	v->probe_buffer = PROBE_BUFFER;
	spoor_board_init(&v->board);
	status = parse_args(v, argc, argv);
	if (status)
		goto out;
	/* Every signal that ends the run ends it through serve(): the capture is kept whole. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (v->capture) {
		v->capture_f = fopen(v->capture, "wb");
		if (!v->capture_f) {
			fprintf(stderr, "spoor virt: cannot write '%s': %s\n", v->capture,
				strerror(errno));
			status = CLI_EXIT_ERROR;
			goto out;
		}
	}
	status = build(v);
	if (status)
		goto out;
	status = CLI_EXIT_ERROR;
	dm = spoor_dm_new(v->iss);
	tap = dm ? spoor_jtag_new(dm, SPOOR_JTAG_IDCODE) : NULL;
	if (!tap) {
		fprintf(stderr, "spoor virt: cannot build the debug module: out of memory\n");
		goto out;
	}
	err = spoor_bitbang_open(tap, v->jtag_port, &bb);
	if (err) {
		fprintf(stderr, "spoor virt: cannot listen on 127.0.0.1:%u (--jtag-port): %s\n",
			v->jtag_port, err == SPOOR_E_IO ? strerror(errno) : spoor_errstr(err));
		goto out;
	}
	if (trace_listen(v)) {
		fprintf(stderr, "spoor virt: cannot listen on 127.0.0.1:%u (--trace-port): %s\n",
			v->trace_port, strerror(errno));
		goto out;
	}
	printf("jtag: 127.0.0.1:%u\ntrace: 127.0.0.1:%u (%s)\ntrace control: 0x%" PRIx64 "\n",
	       spoor_bitbang_port(bb), v->trace_port, spoor_encap_kind_name(v->board.encap.kind),
	       v->board.trace_base);
	fflush(stdout);
	status = serve(v, dm, bb);
	trace_drain(v);
	if (v->dropped && !v->capture_f)
		fprintf(stderr, "spoor virt: %" PRIu64 " trace bytes went out with no probe "
			"connected\n", v->dropped);
out:
	if (v->capture_f && fclose(v->capture_f) && !v->capture_failed) {
		fprintf(stderr, "spoor virt: writing '%s': %s\n", v->capture, strerror(errno));
		status = CLI_EXIT_ERROR;
	}
	while (v->nclients)
		client_drop(v, v->nclients - 1, NULL);
	if (v->trace_listen >= 0)
		close(v->trace_listen);
	spoor_bitbang_close(bb);
	spoor_jtag_free(tap);
	spoor_dm_free(dm);
	spoor_vtrace_free(v->tr);
	spoor_iss_free(v->iss);
	free(v);
	return status < 0 ? CLI_EXIT_CLEAN : status;
}
