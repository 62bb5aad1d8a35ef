// SPDX-License-Identifier: MIT
/* spoor gdbserver: the trace as GDB's branch trace, in front of OpenOCD or from a capture. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_stream.h"
#include "gdbserver.h"
#include "spoor/board.h"
#include "spoor/error.h"
#include "spoor/image.h"
#include "spoor/source.h"
#include "trace.h"

#define MAX_ELFS 16
#define MAX_OCD_CMDS 16
#define DEFAULT_HISTORY 1000000	/* blocks per hart: a few million instructions */

static void gdbserver_usage(FILE *out)
{
	fputs("usage: spoor gdbserver --elf FILE[@OFFSET] [--board FILE] [OPTIONS]\n"
	      "Serve the trace's reconstructed execution to GDB (record btrace, reverse\n"
	      "execution), in front of OpenOCD or, with --replay, from a capture alone.\n"
	      "One trace source: --trace-port, --probe, --ram-sink or --replay.\n\n"
	      "  --elf FILE[@OFFSET]  the program (any number; OFFSET shifts it)\n"
	      "  --board FILE         board descriptor: trace parameters, encapsulation,\n"
	      "                       trace control registers, options (boards/*.ini)\n"
	      "  --port N             GDB port on 127.0.0.1 (default 0: any free one; printed\n"
	      "                       as \"gdb: 127.0.0.1:PORT\")\n"
	      "  --host ADDR          listen on ADDR instead of 127.0.0.1\n"
	      "  --openocd HOST:PORT  OpenOCD's GDB port (default 127.0.0.1:3333)\n"
	      "  --openocd-cfg FILE   start OpenOCD with FILE (its GDB port on any free\n"
	      "                       loopback port) and stop it on exit\n"
	      "  --openocd-c CMD      a command for that OpenOCD before FILE (repeatable)\n"
	      "  --trace-port H:P     trace source: a trace port's byte stream over TCP\n"
	      "                       (spoor virt's), decoded continuously\n"
	      "  --probe SOURCE       trace source: a trace probe, usb[:SERIAL] | ftdi[:SERIAL]\n"
	      "                       | tcp:HOST:PORT ('spoor probes' lists them), configured\n"
	      "                       with the encapsulation (--board, --encap), started, and\n"
	      "                       decoded continuously; its overflows are gaps; unplugged,\n"
	      "                       it is waited for 10 s\n"
	      "  --port-width N       with --probe: trace port width in bits, 1, 2, 4, 8, 16\n"
	      "                       (default 4, or the probe's widest without a 4-bit port)\n"
	      "  --ram-sink [A,SIZE]  trace source: the on-chip RAM sink, read through OpenOCD\n"
	      "                       at every stop (default buffer: 1 MiB in the middle\n"
	      "                       of the board's RAM)\n"
	      "  --replay FILE        no OpenOCD: a target made of the capture FILE, stopped\n"
	      "                       at its last traced pc; each hart is a GDB thread.  FILE\n"
	      "                       is a capture file ('spoor capture -o'; its header gives\n"
	      "                       the encapsulation unless --encap does, its losses are\n"
	      "                       gaps) or a raw stream ('spoor virt --capture')\n"
	      "  --history N          blocks kept per hart (default 1000000; GDB's 'set record\n"
	      "                       btrace bts buffer-size' can raise it)\n"
	      "  --stop-timeout MS    longest wait for a halt's end of trace (default 1000)\n"
	      "  --once               exit when the first GDB connection ends\n"
	      "  -v, --verbose        log every packet to and from GDB and OpenOCD on stderr\n", out);
	fputs(cli_stream_usage, out);
	fputs("  -h, --help           this help\n", out);
	fputs(cli_exit_usage, out);
}

enum {
	OPT_ELF = CLI_OPT_OWN, OPT_PORT, OPT_HOST, OPT_OPENOCD, OPT_OPENOCD_CFG, OPT_OPENOCD_C,
	OPT_TRACE_PORT, OPT_RAM_SINK, OPT_REPLAY, OPT_HISTORY, OPT_STOP_TIMEOUT, OPT_ONCE,
	OPT_PROBE, OPT_PORT_WIDTH,
};

static const struct option gdbserver_own_options[] = {
	{ "elf", required_argument, NULL, OPT_ELF },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "openocd", required_argument, NULL, OPT_OPENOCD },
	{ "openocd-cfg", required_argument, NULL, OPT_OPENOCD_CFG },
	{ "openocd-c", required_argument, NULL, OPT_OPENOCD_C },
	{ "trace-port", required_argument, NULL, OPT_TRACE_PORT },
	{ "ram-sink", optional_argument, NULL, OPT_RAM_SINK },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "probe", required_argument, NULL, OPT_PROBE },
	{ "port-width", required_argument, NULL, OPT_PORT_WIDTH },
	{ "history", required_argument, NULL, OPT_HISTORY },
	{ "stop-timeout", required_argument, NULL, OPT_STOP_TIMEOUT },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct gdbserver_args {
	struct cli_stream in;
	struct spoor_board board;
	bool have_board;
	struct spoor_image *img;
	const char *elfs[MAX_ELFS];
	char elf_paths[MAX_ELFS][4096];
	int64_t elf_offsets[MAX_ELFS];
	size_t nelf;
	const char *ocd_cmds[MAX_OCD_CMDS];
	size_t nocd;
	const char *ram_arg;
	bool ram;
	const char *source_opt;		/* the trace source's option, for messages */
	const char *port_width;		/* --port-width */
};

/* Notes trace source option @opt; returns false (after a message) if another came before. */
static bool one_source(struct gdbserver_args *a, const char *opt)
{
	if (a->source_opt && strcmp(a->source_opt, opt)) {
		fprintf(stderr, "spoor gdbserver: %s and %s: give one trace source (--trace-port, "
			"--probe, --ram-sink or --replay)\n", a->source_opt, opt);
		return false;
	}
	a->source_opt = opt;
	return true;
}

/* Adds "FILE[@OFFSET]"; returns 0 or an exit status after a message. */
static int add_elf(struct gdbserver_args *a, const char *arg)
{
	const char *at = strrchr(arg, '@');
	size_t n = at ? (size_t)(at - arg) : strlen(arg);
	struct spoor_diag diag;
	unsigned long long off = 0;
	char *end;

	if (a->nelf == MAX_ELFS || !n || n >= sizeof(a->elf_paths[0])) {
		fprintf(stderr, "spoor gdbserver: --elf %s: too many programs or a bad name\n", arg);
		return CLI_EXIT_ERROR;
	}
	if (at) {
		errno = 0;
		off = strtoull(at + 1, &end, 0);
		if (errno || end == at + 1 || *end) {
			fprintf(stderr, "spoor gdbserver: --elf: '%s' is not a number\n", at + 1);
			return CLI_EXIT_ERROR;
		}
	}
	memcpy(a->elf_paths[a->nelf], arg, n);
	a->elf_paths[a->nelf][n] = '\0';
	if (spoor_image_add_elf(a->img, a->elf_paths[a->nelf], (int64_t)off, &diag)) {
		fprintf(stderr, "spoor gdbserver: %s\n", diag.msg);
		return CLI_EXIT_ERROR;
	}
	a->elfs[a->nelf] = a->elf_paths[a->nelf];
	a->elf_offsets[a->nelf++] = (int64_t)off;
	return 0;
}

/* Parses "ADDR,SIZE" of --ram-sink; returns false after a message. */
static bool parse_ram(const char *arg, uint64_t *start, uint64_t *size)
{
	char *end;

	errno = 0;
	*start = strtoull(arg, &end, 0);
	if (errno || end == arg || *end != ',')
		goto bad;
	*size = strtoull(end + 1, &end, 0);
	if (errno || *end || *size < 64 || (*start & 3) || (*size & 3))
		goto bad;
	return true;
bad:
	fprintf(stderr, "spoor gdbserver: --ram-sink: expected ADDRESS,SIZE (4-byte aligned, "
		"at least 64 bytes), got '%s'\n", arg);
	return false;
}

/* Parses the command line into @a and @cfg; returns 0, -1 (help shown) or an exit status. */
static int parse_args(struct gdbserver_args *a, struct spoor_gdbserver_config *cfg, int argc,
		      char **argv)
{
	struct option opts[CLI_STREAM_NOPTS + sizeof(gdbserver_own_options) /
			   sizeof(gdbserver_own_options[0])];
	struct spoor_diag diag;
	unsigned long v;
	int c, ret;

	cli_stream_options(gdbserver_own_options, opts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hv", opts, NULL)) != -1) {
		ret = cli_stream_option(&a->in, c, optarg);
		if (ret < 0)
			return CLI_EXIT_ERROR;
		if (ret > 0)
			continue;
		switch (c) {
		case OPT_ELF:
			ret = add_elf(a, optarg);
			if (ret)
				return ret;
			break;
		case OPT_PORT:
			if (!cli_parse_uint("gdbserver", "--port", optarg, 0, 65535, &v))
				return CLI_EXIT_ERROR;
			cfg->port = (unsigned)v;
			break;
		case OPT_HOST:
			cfg->host = optarg;
			break;
		case OPT_OPENOCD:
			cfg->openocd = optarg;
			break;
		case OPT_OPENOCD_CFG:
			cfg->openocd_cfg = optarg;
			break;
		case OPT_OPENOCD_C:
			if (a->nocd == MAX_OCD_CMDS) {
				fprintf(stderr, "spoor gdbserver: more than %d --openocd-c\n",
					MAX_OCD_CMDS);
				return CLI_EXIT_ERROR;
			}
			a->ocd_cmds[a->nocd++] = optarg;
			break;
		case OPT_TRACE_PORT:
			if (!one_source(a, "--trace-port"))
				return CLI_EXIT_ERROR;
			cfg->source = SPOOR_GS_SRC_TCP;
			cfg->trace_port = optarg;
			break;
		case OPT_RAM_SINK:
			if (!one_source(a, "--ram-sink"))
				return CLI_EXIT_ERROR;
			cfg->source = SPOOR_GS_SRC_RAM;
			a->ram = true;
			a->ram_arg = optarg;
			break;
		case OPT_REPLAY:
			if (!one_source(a, "--replay"))
				return CLI_EXIT_ERROR;
			cfg->source = SPOOR_GS_SRC_FILE;
			cfg->replay = optarg;
			break;
		case OPT_PROBE:
			if (!one_source(a, "--probe"))
				return CLI_EXIT_ERROR;
			cfg->source = SPOOR_GS_SRC_PROBE;
			cfg->probe = optarg;
			break;
		case OPT_PORT_WIDTH:
			if (!cli_parse_uint("gdbserver", "--port-width", optarg, 1, 16, &v))
				return CLI_EXIT_ERROR;
			if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16) {
				fprintf(stderr, "spoor gdbserver: --port-width: %lu is not 1, 2, 4, 8 "
					"or 16\n", v);
				return CLI_EXIT_ERROR;
			}
			cfg->probe_cfg.port_width = (uint8_t)v;
			a->port_width = optarg;
			break;
		case OPT_HISTORY:
			if (!cli_parse_uint("gdbserver", "--history", optarg, 1, 1ul << 28, &v))
				return CLI_EXIT_ERROR;
			cfg->history_blocks = v;
			break;
		case OPT_STOP_TIMEOUT:
			if (!cli_parse_uint("gdbserver", "--stop-timeout", optarg, 1, 600000, &v))
				return CLI_EXIT_ERROR;
			cfg->stop_timeout_ms = (int)v;
			break;
		case OPT_ONCE:
			cfg->once = true;
			break;
		case 'v':
			cfg->verbose = true;
			break;
		case 'h':
			gdbserver_usage(stdout);
			return -1;
		default:
			return cli_bad_option("gdbserver", c, argv);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "spoor gdbserver: unexpected argument '%s' (try 'spoor gdbserver "
			"--help')\n", argv[optind]);
		return CLI_EXIT_ERROR;
	}
	if (!a->nelf) {
		fprintf(stderr, "spoor gdbserver: no program: give it with --elf FILE\n");
		return CLI_EXIT_ERROR;
	}
	if (cfg->replay && (cfg->openocd || cfg->openocd_cfg)) {
		fprintf(stderr, "spoor gdbserver: --replay serves a capture alone: no OpenOCD\n");
		return CLI_EXIT_ERROR;
	}
	if (cfg->probe && !spoor_source_spec_live(cfg->probe)) {
		fprintf(stderr, "spoor gdbserver: --probe %s: not a probe (usb[:SERIAL], "
			"ftdi[:SERIAL], tcp:HOST:PORT); serve a file with --replay\n", cfg->probe);
		return CLI_EXIT_ERROR;
	}
	if (cfg->replay && spoor_source_spec_live(cfg->replay) && access(cfg->replay, F_OK)) {
		fprintf(stderr, "spoor gdbserver: --replay %s: that is a probe, not a file: trace "
			"from it with --probe %s\n", cfg->replay, cfg->replay);
		return CLI_EXIT_ERROR;
	}
	if (a->port_width && !cfg->probe) {
		fprintf(stderr, "spoor gdbserver: --port-width goes with --probe\n");
		return CLI_EXIT_ERROR;
	}
	if (cfg->openocd && cfg->openocd_cfg) {
		fprintf(stderr, "spoor gdbserver: --openocd or --openocd-cfg, not both\n");
		return CLI_EXIT_ERROR;
	}
	if (a->ram && a->ram_arg && !parse_ram(a->ram_arg, &cfg->ram_start, &cfg->ram_size))
		return CLI_EXIT_ERROR;
	/* The board's run-control facts (cli_stream_apply() takes its parameters). */
	if (a->in.board_path) {
		if (spoor_board_load(&a->board, a->in.board_path, &diag)) {
			fprintf(stderr, "spoor gdbserver: %s\n", diag.msg);
			return CLI_EXIT_ERROR;
		}
		a->have_board = true;
	}
	return 0;
}

/*
 * A capture file given to --replay says how its bytes are wrapped: its
 * header's encapsulation, unless --encap says otherwise (as for spoor
 * decode).  A raw file, or one that cannot be opened (load_replay() says
 * why), leaves it alone.  Returns 0 or an exit status after a message.
 */
static int capture_encap(struct gdbserver_args *a, const char *path,
			 struct spoor_encap_config *encap)
{
	struct spoor_capture_header h;
	struct spoor_source *src;
	struct spoor_diag diag;
	struct stat st;
	char *spec;
	int status = 0;

	if (a->in.encap_kind >= 0 || stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	spec = malloc(strlen(path) + 6);
	if (!spec) {
		fprintf(stderr, "spoor gdbserver: out of memory\n");
		return CLI_EXIT_ERROR;
	}
	sprintf(spec, "file:%s", path);
	if (spoor_source_open(spec, &src, &diag) < 0) {
		free(spec);
		return 0;
	}
	free(spec);
	if (!spoor_source_header(src, &h)) {
		*encap = h.encap;
		if (spoor_encap_config_check(encap)) {
			fprintf(stderr, "spoor gdbserver: %s: the capture's encapsulation options "
				"are not valid\n", path);
			status = CLI_EXIT_ERROR;
		}
	}
	spoor_source_close(src);
	return status;
}

/* The trace pipeline's configuration from the board and the stream options. */
static int make_trace_config(struct gdbserver_args *a, struct spoor_gdbserver_config *cfg)
{
	struct spoor_diag diag;
	int status = cli_stream_apply(&a->in);

	if (status)
		return status;
	spoor_trace_config_init(&cfg->trace);
	cfg->trace.params = a->in.params;
	cfg->trace.deframe = a->in.dcfg;
	cfg->trace.atid = a->in.atid;
	cfg->trace.image = a->img;
	cfg->trace.only_source = a->in.only_source;
	memcpy(cfg->trace.isa, a->in.isa, sizeof(cfg->trace.isa));
	if (a->have_board)
		cfg->trace.options = a->board.features;
	if (cfg->source == SPOOR_GS_SRC_FILE) {
		status = capture_encap(a, cfg->replay, &cfg->trace.deframe.encap);
		if (status)
			return status;
	}
	/* A trace port or a probe is joined mid-stream; the RAM sink starts with the trace. */
	if (cfg->source == SPOOR_GS_SRC_TCP || cfg->source == SPOOR_GS_SRC_PROBE)
		cfg->trace.deframe.start_synced = false;
	if (cfg->source == SPOOR_GS_SRC_PROBE) {
		/* (The port width, if not given, once the probe says what it has.) */
		spoor_source_config_for(&cfg->probe_cfg, &cfg->trace.deframe.encap, NULL);
	}
	if (cfg->source == SPOOR_GS_SRC_RAM)
		cfg->trace.deframe.start_synced = true;
	if (spoor_trace_config_check(&cfg->trace, &diag)) {
		fprintf(stderr, "spoor gdbserver: %s\n", diag.msg);
		return CLI_EXIT_ERROR;
	}
	return 0;
}

int cmd_gdbserver(int argc, char **argv)
{
	struct spoor_gdbserver_config cfg = {
		.stop_timeout_ms = 1000, .history_blocks = DEFAULT_HISTORY,
		.probe_cfg = { .port_width = 0 },	/* the probe's default */
	};
	struct gdbserver_args *a = calloc(1, sizeof(*a));
	int status;

	if (!a || !(a->img = spoor_image_new())) {
		fprintf(stderr, "spoor gdbserver: out of memory\n");
		free(a);
		return CLI_EXIT_ERROR;
	}
	cli_stream_init(&a->in, "gdbserver");
	spoor_board_init(&a->board);
	status = parse_args(a, &cfg, argc, argv);
	if (status)
		goto out;
	status = make_trace_config(a, &cfg);
	if (status)
		goto out;
	cfg.elfs = a->elfs;
	cfg.elf_offsets = a->elf_offsets;
	cfg.nelf = a->nelf;
	cfg.xlen = a->have_board ? a->board.xlen : spoor_image_xlen(a->img);
	cfg.trace_base = a->board.trace_base;
	cfg.te_features = a->board.src_id << TR_TE_SRC_ID_SHIFT |
			  spoor_vtrace_option_features(a->board.features);
	cfg.default_source = a->in.only_source >= 0 ? (uint32_t)a->in.only_source :
			     a->board.src_id;
	if (cfg.source == SPOOR_GS_SRC_RAM && !a->ram_arg) {
		/* 1 MiB in the middle of the board's RAM (at 0x80000000): away
		 * from the program at its start and the stack at its end. */
		cfg.ram_size = 1u << 20;
		cfg.ram_start = 0x80000000u + a->board.ram_size / 2;
	}
	cfg.openocd_cmds = a->ocd_cmds;
	cfg.n_openocd_cmds = a->nocd;
	status = spoor_gdbserver_run(&cfg);
out:
	spoor_image_free(a->img);
	free(a);
	return status < 0 ? CLI_EXIT_CLEAN : status;
}
