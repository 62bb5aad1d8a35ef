// SPDX-License-Identifier: MIT
/*
 * spoor-probe-sim: the trace probe's firmware core as a process (the sim
 * port, sim.h), its trace port fed from spoor virt's trace port or a file,
 * served to a host over TCP (the host's tcp: transport) or, when built,
 * as an emulated USB device or FT2232H FIFO to a command.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_front.h"
#include "spoor/error.h"

enum sim_front { FRONT_TCP, FRONT_USB, FRONT_FTDI };

struct sim_args {
	struct sim_options opt;
	enum sim_front front;
	char host[256];		/* --listen */
	unsigned port;
	bool listen;
	char **command;		/* --usb / --ftdi: COMMAND... */
};

static volatile sig_atomic_t stop_requested;

/* Records a terminating signal. */
static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Prints the usage to @out. */
static void usage(FILE *out)
{
	fputs("usage: spoor-probe-sim [OPTIONS]\n"
	      "       spoor-probe-sim [OPTIONS] --usb -- COMMAND [ARGS...]\n"
	      "       spoor-probe-sim [OPTIONS] --ftdi -- COMMAND [ARGS...]\n"
	      "The spoor trace probe in software: its firmware core (capture buffer, requests,\n"
	      "bulk records, DFU over a two-slot flash) with a trace port fed from spoor\n"
	      "virt's trace port or a file, served over TCP as probe/PROTOCOL.md's \"TCP\n"
	      "binding\" (the host's tcp:HOST:PORT transport).\n\n"
	      "  --listen [HOST:]PORT  serve the TCP binding there (default 127.0.0.1:0; port 0:\n"
	      "                        any free one); prints \"listening on HOST:PORT\"\n"
	      "  --usb -- COMMAND...   instead, run COMMAND with the probe as a USB device\n"
	      "                        emulated under umockdev\n"
	      "  --ftdi -- COMMAND...  instead, run COMMAND with the probe as an emulated\n"
	      "                        FT2232H FIFO (raw trace bytes)\n"
	      "  --input tcp:HOST:PORT the trace port: spoor virt's trace port, connected at the\n"
	      "                        first START (spoor virt --wait-probe waits for it)\n"
	      "  --input FILE          ... or a capture file (its LOSS records lost again) or\n"
	      "                        a raw file, replayed from its start at every START\n"
	      "  --rate BYTES          trace port bytes per second (suffix k, M, G: 1000s);\n"
	      "                        0 (default): as fast as the host drains the buffer, no\n"
	      "                        byte lost; else at that rate, lost when the buffer is full\n"
	      "  --loop                replay the file again at its end (else the capture idles)\n"
	      "  --serial S            serial number (default SIM0001; printable, 1-32 chars)\n"
	      "  --flash FILE          the flash's two image slots (created with firmware 1.0.0\n"
	      "                        if missing or empty; default: in memory)\n"
	      "  --buffer SIZE         capture buffer, a power of two (suffix k, M, G: 1024s;\n"
	      "                        default 8M)\n"
	      "  --drop-at OFF:COUNT   the port loses COUNT bytes at trace offset OFF (once per\n"
	      "                        capture): the probe reports them as an OVERFLOW\n"
	      "  --unplug-after BYTES  unplug after sending that many bulk bytes (once)\n"
	      "  --replug-ms MS        ... and plug in again after MS ms (default: never)\n"
	      "  --stall-after N       stop answering control requests after N of them\n"
	      "                        (per connection; the host must time out)\n"
	      "  -h, --help            this help\n\n"
	      "A TCP connection is a USB plug-in: when the host disconnects, the probe resets\n"
	      "(a capture is dropped; after a DFU DETACH the next host finds it in DFU mode;\n"
	      "from DFU mode, the firmware committed last runs).  One host at a time.\n"
	      "Runs until SIGINT or SIGTERM.\n\n"
	      "Exit status: 0 stopped by a signal; 1 stopped, but the trace input failed while\n"
	      "serving (reported on stderr); 2 error: bad usage, an unreadable input or flash\n"
	      "file, a port in use"
	      "; with --usb or --ftdi, COMMAND's exit status"
	      ".\n", out);
}

enum {
	OPT_LISTEN = 256, OPT_INPUT, OPT_RATE, OPT_LOOP, OPT_SERIAL, OPT_FLASH, OPT_BUFFER,
	OPT_DROP_AT, OPT_UNPLUG_AFTER, OPT_REPLUG_MS, OPT_STALL_AFTER, OPT_USB, OPT_FTDI,
};

/*
 * Parses a number with an optional suffix k, M or G (@unit: 1000 or 1024)
 * up to @max; returns 0 or SPOOR_E_BAD_VALUE.
 */
static int parse_num(const char *s, uint64_t unit, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	uint64_t mul = 1;
	char *end;

	if (!s || !*s || *s == '-')
		return SPOOR_E_BAD_VALUE;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return SPOOR_E_BAD_VALUE;
	if (*end == 'k' || *end == 'K')
		mul = unit;
	else if (*end == 'M' || *end == 'm')
		mul = unit * unit;
	else if (*end == 'G' || *end == 'g')
		mul = unit * unit * unit;
	if (mul != 1)
		end++;
	if (*end || v > max / mul)
		return SPOOR_E_BAD_VALUE;
	*out = v * mul;
	return 0;
}

/* Parses "[HOST:]PORT" into @a; returns 0 or SPOOR_E_BAD_VALUE. */
static int parse_listen(const char *s, struct sim_args *a)
{
	const char *colon = strrchr(s, ':');
	const char *port = colon ? colon + 1 : s;
	size_t hl = colon ? (size_t)(colon - s) : 0;
	uint64_t v;

	if (parse_num(port, 1, 65535, &v) || hl >= sizeof(a->host))
		return SPOOR_E_BAD_VALUE;
	a->port = (unsigned)v;
	if (!colon)
		return 0;
	if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {	/* [::1]:PORT */
		s++;
		hl -= 2;
	}
	if (!hl)
		return SPOOR_E_BAD_VALUE;
	memcpy(a->host, s, hl);
	a->host[hl] = 0;
	return 0;
}

/* Complains about option @opt's value @val; returns 2 (bad usage). */
static int bad_value(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "spoor-probe-sim: %s '%s': %s (try --help)\n", opt, val, want);
	return 2;
}

/* Parses the command line into @a; returns 0, 1 for --help, or 2 (bad usage, reported). */
static int parse_args(int argc, char **argv, struct sim_args *a)
{
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "input", required_argument, NULL, OPT_INPUT },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "loop", no_argument, NULL, OPT_LOOP },
		{ "serial", required_argument, NULL, OPT_SERIAL },
		{ "flash", required_argument, NULL, OPT_FLASH },
		{ "buffer", required_argument, NULL, OPT_BUFFER },
		{ "drop-at", required_argument, NULL, OPT_DROP_AT },
		{ "unplug-after", required_argument, NULL, OPT_UNPLUG_AFTER },
		{ "replug-ms", required_argument, NULL, OPT_REPLUG_MS },
		{ "stall-after", required_argument, NULL, OPT_STALL_AFTER },
		{ "usb", no_argument, NULL, OPT_USB },
		{ "ftdi", no_argument, NULL, OPT_FTDI },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v, w;
	char *colon;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_LISTEN:
			if (parse_listen(optarg, a))
				return bad_value("--listen", optarg, "[HOST:]PORT, PORT 0 to 65535");
			a->listen = true;
			break;
		case OPT_INPUT:
			a->opt.input = optarg;
			break;
		case OPT_RATE:
			if (parse_num(optarg, 1000, UINT64_C(1) << 40, &a->opt.rate))
				return bad_value("--rate", optarg, "bytes per second (suffix k, M, G)");
			break;
		case OPT_LOOP:
			a->opt.loop = true;
			break;
		case OPT_SERIAL:
			a->opt.serial = optarg;
			break;
		case OPT_FLASH:
			a->opt.flash_path = optarg;
			break;
		case OPT_BUFFER:
			if (parse_num(optarg, 1024, UINT64_C(1) << 30, &v) || v < 64 || (v & (v - 1)))
				return bad_value("--buffer", optarg,
						 "a power of two from 64 to 1G (suffix k, M, G)");
			a->opt.buffer_size = (size_t)v;
			break;
		case OPT_DROP_AT:
			colon = strchr(optarg, ':');
			if (!colon)
				return bad_value("--drop-at", optarg, "OFF:COUNT");
			*colon = 0;
			if (parse_num(optarg, 1024, UINT64_MAX / 2, &v) ||
			    parse_num(colon + 1, 1024, UINT64_MAX / 2, &w) || !w) {
				*colon = ':';
				return bad_value("--drop-at", optarg, "OFF:COUNT, COUNT at least 1");
			}
			*colon = ':';
			a->opt.drop_at = v;
			a->opt.drop_count = w;
			break;
		case OPT_UNPLUG_AFTER:
			if (parse_num(optarg, 1024, UINT64_MAX / 2, &a->opt.unplug_after))
				return bad_value("--unplug-after", optarg, "bytes (suffix k, M, G)");
			break;
		case OPT_REPLUG_MS:
			if (parse_num(optarg, 1000, 86400000, &v))
				return bad_value("--replug-ms", optarg, "milliseconds, at most a day");
			a->opt.replug_ms = (unsigned)v;
			break;
		case OPT_STALL_AFTER:
			if (parse_num(optarg, 1000, UINT32_MAX, &v))
				return bad_value("--stall-after", optarg, "a number of requests");
			a->opt.stall_after = (uint32_t)v;
			break;
		case OPT_USB:
		case OPT_FTDI:
			if (a->front != FRONT_TCP) {
				fprintf(stderr, "spoor-probe-sim: --usb and --ftdi exclude each other\n");
				return 2;
			}
			a->front = c == OPT_USB ? FRONT_USB : FRONT_FTDI;
			break;
		case 'h':
			return 1;
		default:
			fprintf(stderr, "spoor-probe-sim: unknown option or missing value: '%s' "
				"(try --help)\n", argv[optind - 1]);
			return 2;
		}
	}
	if (a->front == FRONT_TCP && optind < argc) {
		fprintf(stderr, "spoor-probe-sim: unexpected argument '%s' (try --help)\n",
			argv[optind]);
		return 2;
	}
	if (a->front != FRONT_TCP) {
		if (a->listen) {
			fprintf(stderr, "spoor-probe-sim: --listen goes with the TCP front only\n");
			return 2;
		}
		if (optind >= argc) {
			fprintf(stderr, "spoor-probe-sim: %s needs -- COMMAND (try --help)\n",
				a->front == FRONT_USB ? "--usb" : "--ftdi");
			return 2;
		}
		a->command = argv + optind;
	}
	return 0;
}

/* Installs the handlers of the terminating signals (no restart: waits end). */
static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Serves the TCP binding until a signal; returns the exit status. */
static int run_tcp(struct sim_probe *p, const struct sim_args *a)
{
	const char *host = a->host[0] ? a->host : "127.0.0.1";
	struct sim_tcp *t;
	char why[512] = "";
	int err;

	err = sim_tcp_open(p, &a->opt, host, a->port, &t, why, sizeof(why));
	if (err) {
		fprintf(stderr, "spoor-probe-sim: %s\n", why[0] ? why : spoor_errstr(err));
		return 2;
	}
	printf("listening on %s%s%s:%u\n", strchr(host, ':') ? "[" : "", host,
	       strchr(host, ':') ? "]" : "", sim_tcp_port(t));
	fflush(stdout);
	err = sim_tcp_serve(t, &stop_requested);
	sim_tcp_close(t);
	return err ? 2 : 0;
}

int main(int argc, char **argv)
{
	struct sim_args a = { .front = FRONT_TCP };
	struct sim_probe *p;
	char why[512] = "";
	int r;

	r = parse_args(argc, argv, &a);
	if (r == 1) {
		usage(stdout);
		return 0;
	}
	if (r)
		return 2;
	install_signals();
	r = sim_probe_new(&a.opt, &p, why, sizeof(why));
	if (r) {
		fprintf(stderr, "spoor-probe-sim: %s\n", why[0] ? why : spoor_errstr(r));
		return 2;
	}
	r = sim_probe_run(p);
	if (r) {
		fprintf(stderr, "spoor-probe-sim: cannot start the trace port: %s\n",
			spoor_errstr(r));
		sim_probe_free(p);
		return 2;
	}
	switch (a.front) {
	case FRONT_TCP:
		r = run_tcp(p, &a);
		break;
	/*
	 * ---- The USB fronts (sim_usb.c, sim_ftdi.c) are dispatched here. ----
	 * Each runs COMMAND (a.command, NULL-terminated) against the model and
	 * returns spoor-probe-sim's exit status.
	 */
	case FRONT_USB:
		r = sim_usb_run(p, &a.opt, a.command);
		break;
	case FRONT_FTDI:
		r = sim_ftdi_run(p, &a.opt, a.command);
		break;
	}
	sim_probe_halt(p);
	if (!r && a.front == FRONT_TCP && sim_probe_input_errors(p))
		r = 1;
	sim_probe_free(p);
	fflush(stdout);
	return r;
}
