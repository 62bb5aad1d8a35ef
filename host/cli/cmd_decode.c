// SPDX-License-Identifier: MIT
/*
 * spoor decode: reconstruct the retired instructions of a trace stream;
 * spoor stream: the same, live from a probe, printed or served over TCP.
 */
#define _GNU_SOURCE	/* fopencookie(): the decoded stream to TCP clients */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_analysis.h"
#include "cli_probe.h"
#include "cli_serve.h"
#include "cli_stream.h"
#include "spoor/board.h"
#include "spoor/decoder.h"
#include "spoor/disasm.h"
#include "spoor/error.h"
#include "spoor/image.h"
#include "spoor/sink.h"
#include "spoor/te_inst.h"
#include "spoor/trace.h"

enum out_format { OUT_PCS, OUT_TEXT, OUT_JSON };

#define OUTBUF 65536

enum serve_format { SERVE_DECODED, SERVE_RAW };

/* The analyses spoor stream can run at once: coverage, profile, calls, timeline. */
#define MAX_ANALYSES 4

/* What the inputs amounted to, over every input of an analysis command. */
struct totals {
	uint64_t instructions, gaps, sync_losses, bad_packets, truncated, bytes, frames, packets;
};

struct decode {
	struct cli_stream in;
	FILE *fo;			/* the output: stdout, or the clients of --serve */
	/* spoor stream */
	bool live;
	struct cli_probe probe;
	const char *capture_out;	/* -o: a capture file too */
	const char *serve_addr;		/* --serve */
	enum serve_format serve_format;
	struct cli_serve *serve;
	int live_err;			/* the pipeline's error during streaming */
	struct spoor_image *img;
	struct spoor_disasm *dis;	/* --format text: made on the first line */
	enum out_format format;
	uint32_t options;
	uint32_t compat;
	bool stats, quiet, spike_rom;
	uint64_t mtvec, stvec;		/* trap vectors for implicit exception mode */
	struct spoor_trace *trace;	/* the library pipeline */
	/* Buffered output: pcs lines are written by hand, not printf. */
	char out[OUTBUF];
	size_t outlen;
	int out_errno;			/* errno of the first failed write */
	int progress_shown;
	/*
	 * Analyses (cli_analysis.h): the command's own (spoor coverage ...),
	 * or spoor stream's --coverage FILE ...; their sinks, a tee of them.
	 */
	bool analysis;			/* an analysis command: its options, several inputs */
	const struct cli_analysis *an[MAX_ANALYSES];
	void *an_st[MAX_ANALYSES];
	const char *an_out[MAX_ANALYSES];	/* spoor stream: the file of each */
	size_t nan;
	struct spoor_funcs *funcs;	/* the program's functions, for every analysis */
	struct spoor_sink *sinks[MAX_ANALYSES];
	struct spoor_sink *sink;	/* what the pipeline feeds (NULL: print instead) */
	struct totals tot;
};

static void decode_usage(FILE *out)
{
	fputs("usage: spoor decode --elf FILE[@OFFSET] [--elf ...] [OPTIONS] TRACE|-\n"
	      "Reconstruct every retired instruction of a trace stream against the program.\n\n"
	      "  --elf FILE[@OFFSET]  a program image (any number; OFFSET shifts it)\n"
	      "  --raw FILE@ADDR      raw bytes of code at ADDR (e.g. a boot ROM)\n"
	      "  --spike-rom          spike's boot ROM at 0x1000 (the reference flow's traces)\n"
	      "  --options LIST       run-time options until a support packet says otherwise:\n"
	      "                       implicit-return, implicit-exception, full-address,\n"
	      "                       jump-target-cache, branch-prediction, sijump (comma list)\n"
	      "  --spec-rules         x1/x5 call/return rules and privilege checks of the spec\n"
	      "                       (default: the reference flow's behaviour)\n"
	      "  --mtvec V, --stvec V trap vectors (CSR values) for implicit exception mode\n", out);
	fputs(cli_stream_usage, out);
	fputs("  --format FMT         pcs (one address per line, as the reference decoder)\n"
	      "                       | text | json (one object per block or event)\n"
	      "  --stats              instructions, branches, packets, bits per instruction\n"
	      "  -q, --quiet          no warnings about stream problems on stderr\n"
	      "  -h, --help           this help\n", out);
	fputs(cli_exit_usage, out);
}

static void stream_usage(FILE *out)
{
	fputs("usage: spoor stream --probe SOURCE --elf FILE[@OFFSET] [OPTIONS]\n"
	      "       spoor stream --probe SOURCE --serve [HOST:]PORT --serve-format raw [OPTIONS]\n"
	      "Decode a probe's trace live and print it as 'spoor decode' does, or serve the\n"
	      "decoded (or the raw) stream to any number of TCP clients at once: each gets it\n"
	      "from the moment it joins; one that falls 64 MiB behind is dropped with a message\n"
	      "and never slows the capture. Runs until Ctrl-C, --duration, --size or the end\n"
	      "of a file source; with -o the capture is kept in a capture file as well.\n\n"
	      "  -o, --output FILE    keep the capture in FILE too (spoor capture's format)\n"
	      "  --serve [HOST:]PORT  serve instead of printing (HOST defaults to 127.0.0.1)\n"
	      "  --serve-format F     decoded (in --format, default) | raw (the trace bytes)\n"
	      "  --coverage FILE, --profile FILE, --calls FILE, --timeline FILE\n"
	      "                       analyse instead of printing: a top-like view of the\n"
	      "                       hottest functions and the coverage so far, refreshed\n"
	      "                       every second; at the end the files are written as\n"
	      "                       'spoor coverage -o FILE' (lcov), 'spoor profile -o FILE'\n"
	      "                       (format from the name), 'spoor calls -o FILE' and\n"
	      "                       'spoor timeline -o FILE' write them\n",
	      out);
	fputs(cli_probe_usage, out);
	fputs("  --elf, --raw, --spike-rom, --options, --spec-rules, --mtvec, --stvec,\n"
	      "  --format, --stats, -q: as 'spoor decode' (see 'spoor decode --help');\n"
	      "  --unsynced for a probe joining a running trace port\n", out);
	fputs(cli_stream_usage, out);
	fputs(cli_exit_usage, out);
}

enum {
	OPT_ELF = CLI_OPT_OWN, OPT_RAW, OPT_SPIKE_ROM, OPT_OPTIONS, OPT_SPEC_RULES, OPT_FORMAT,
	OPT_STATS, OPT_MTVEC, OPT_STVEC, OPT_SERVE, OPT_SERVE_FORMAT, OPT_COVERAGE, OPT_PROFILE,
	OPT_CALLS, OPT_TIMELINE,
};

static const struct option decode_own_options[] = {
	{ "elf", required_argument, NULL, OPT_ELF },
	{ "raw", required_argument, NULL, OPT_RAW },
	{ "spike-rom", no_argument, NULL, OPT_SPIKE_ROM },
	{ "options", required_argument, NULL, OPT_OPTIONS },
	{ "spec-rules", no_argument, NULL, OPT_SPEC_RULES },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "mtvec", required_argument, NULL, OPT_MTVEC },
	{ "stvec", required_argument, NULL, OPT_STVEC },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* spoor stream's own options; decode's follow them. */
#define STREAM_NOPTS 7
static const struct option stream_own_options[STREAM_NOPTS] = {
	{ "output", required_argument, NULL, 'o' },
	{ "serve", required_argument, NULL, OPT_SERVE },
	{ "serve-format", required_argument, NULL, OPT_SERVE_FORMAT },
	{ "coverage", required_argument, NULL, OPT_COVERAGE },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "calls", required_argument, NULL, OPT_CALLS },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
};

/* The usage of analysis command @an. */
static void analysis_usage(const struct cli_analysis *an, FILE *out)
{
	fprintf(out, "usage: spoor %s --elf FILE[@OFFSET] [OPTIONS] CAPTURE|- [CAPTURE ...]\n"
		"%s\nSeveral captures (of one program) are merged.\n\n", an->name, an->summary);
	fputs(an->usage, out);
	fputs("  --elf FILE[@OFFSET], --raw FILE@ADDR, --spike-rom, --options LIST,\n"
	      "  --spec-rules, --mtvec V, --stvec V, --stats, -q: as 'spoor decode'\n"
	      "                       (see 'spoor decode --help')\n", out);
	fputs(cli_stream_usage, out);
	fputs("  -h, --help           this help\n", out);
	fputs(cli_exit_usage, out);
}

/* Adds analysis @an writing @path (spoor stream); returns false after a message. */
static bool add_analysis(struct decode *d, const struct cli_analysis *an, const char *path)
{
	for (size_t i = 0; i < d->nan; i++) {
		if (d->an[i] == an) {
			fprintf(stderr, "spoor stream: --%s given twice\n", an->name);
			return false;
		}
	}
	if (!*path || !strcmp(path, "-")) {
		fprintf(stderr, "spoor stream: --%s needs a FILE (standard output shows the live "
			"view)\n", an->name);
		return false;
	}
	if (d->nan == MAX_ANALYSES || !an->new) {
		fprintf(stderr, "spoor stream: --%s: not available in this build\n", an->name);
		return false;
	}
	d->an_st[d->nan] = an->new();
	if (!d->an_st[d->nan]) {
		fprintf(stderr, "spoor stream: out of memory\n");
		return false;
	}
	d->an[d->nan] = an;
	d->an_out[d->nan++] = path;
	return !an->option(d->an_st[d->nan - 1], 'o', path);
}

/* Whether getopt_long result @c is an option of analysis @an. */
static bool analysis_option(const struct cli_analysis *an, int c)
{
	if (c >= CLI_OPT_ANALYSIS)
		return true;
	return c > 0 && c < 128 && c != ':' && c != '?' && an->shortopts &&
	       strchr(an->shortopts, c);
}

/* Prints "spoor CMD: " and the message (printf-style) on stderr. */
static void __attribute__((format(printf, 2, 3))) say(const struct decode *d, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "spoor %s: ", d->in.cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* Splits "PATH@NUMBER"; returns false after an error message. */
static bool split_at(const struct decode *d, const char *opt, const char *arg, char *path,
		     size_t size, uint64_t *num, bool need)
{
	const char *at = strrchr(arg, '@');
	char *end;

	*num = 0;
	if (!at) {
		if (need) {
			say(d, "%s: expected FILE@ADDRESS, got '%s'\n", opt,
				arg);
			return false;
		}
		at = arg + strlen(arg);
	} else {
		errno = 0;
		*num = strtoull(at + 1, &end, 0);
		if (errno || end == at + 1 || *end) {
			say(d, "%s: '%s' is not a number\n", opt, at + 1);
			return false;
		}
	}
	if ((size_t)(at - arg) >= size || at == arg) {
		say(d, "%s: bad file name '%s'\n", opt, arg);
		return false;
	}
	memcpy(path, arg, (size_t)(at - arg));
	path[at - arg] = '\0';
	return true;
}

/* Adds an ELF image; returns false after an error message. */
static bool add_elf(struct decode *d, const char *arg)
{
	struct spoor_diag diag;
	char path[4096];
	uint64_t off;

	if (!split_at(d, "--elf", arg, path, sizeof(path), &off, false))
		return false;
	if (spoor_image_add_elf(d->img, path, (int64_t)off, &diag)) {
		say(d, "%s\n", diag.msg);
		return false;
	}
	return true;
}

/* Adds a raw image from a file; returns 0, or the exit status after an error message. */
static int add_raw(struct decode *d, const char *arg)
{
	enum { MAX_RAW = 16 << 20 };
	char path[4096];
	uint8_t *bytes = NULL;
	uint64_t base;
	struct stat st;
	ssize_t n = 0;
	int fd, ret = CLI_EXIT_ERROR;

	if (!split_at(d, "--raw", arg, path, sizeof(path), &base, true))
		return CLI_EXIT_ERROR;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		say(d, "--raw: cannot open '%s': %s\n", path,
			strerror(errno));
		return CLI_EXIT_ERROR;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		say(d, "--raw: '%s' is not a regular file\n", path);
		goto out;
	}
	if (st.st_size == 0 || st.st_size > MAX_RAW) {
		say(d, "--raw: '%s' has %lld bytes (1 to %d allowed)\n",
			path, (long long)st.st_size, MAX_RAW);
		goto out;
	}
	bytes = malloc((size_t)st.st_size);
	if (bytes)
		n = pread(fd, bytes, (size_t)st.st_size, 0);
	if (!bytes || n != st.st_size) {
		say(d, "--raw: reading '%s': %s\n", path,
			bytes ? n < 0 ? strerror(errno) : "short read" : "out of memory");
		goto out;
	}
	if (base + (uint64_t)n < base || (base & 1)) {
		say(d, "--raw %s: the bytes must lie at an even address "
			"inside the address space\n", arg);
		goto out;
	}
	ret = spoor_image_add_raw(d->img, path, base, bytes, (size_t)n);
	if (ret) {
		say(d, "--raw %s: %s\n", arg, spoor_errstr(ret));
		ret = CLI_EXIT_ERROR;
	}
out:
	free(bytes);
	close(fd);
	return ret;
}

/* Parses "implicit-return,full-address,..."; returns false after an error message. */
static bool parse_options(struct decode *d, const char *arg)
{
	const char *bad = arg;
	uint32_t bits;

	if (spoor_board_parse_options(arg, &bits, &bad)) {
		say(d, "--options: unknown option '%.*s'\n",
			(int)strcspn(bad, " \t,"), bad);
		return false;
	}
	d->options |= bits;
	return true;
}

/* Parses the command line into @d; returns 0, -1 (help shown) or an exit status. */
static int parse_args(struct decode *d, int argc, char **argv)
{
	enum { DECODE = sizeof(decode_own_options) / sizeof(decode_own_options[0]) };
	struct option stream[STREAM_NOPTS + DECODE], own[CLI_PROBE_NOPTS + STREAM_NOPTS + DECODE];
	struct option opts[CLI_STREAM_NOPTS + CLI_PROBE_NOPTS + STREAM_NOPTS + DECODE];
	enum { AN_MAX = 16 };
	struct option an_own[DECODE + AN_MAX], an_opts[CLI_STREAM_NOPTS + DECODE + AN_MAX];
	const struct cli_analysis *an = d->analysis ? d->an[0] : NULL;
	char shortopts[32] = ":qh";
	int c, ret;

	if (d->live) {
		memcpy(stream, stream_own_options, sizeof(stream_own_options));
		memcpy(stream + STREAM_NOPTS, decode_own_options, sizeof(decode_own_options));
		cli_probe_options(stream, own);
	}
	cli_stream_options(d->live ? own : decode_own_options, opts);
	if (an) {
		/* decode's options but --format, then the command's own. */
		size_t n = 0, k = 0;

		while (an->options && an->options[n].name)
			n++;
		if (n > AN_MAX)
			return CLI_EXIT_ERROR;
		for (size_t i = 0; i + 1 < DECODE; i++)
			if (strcmp(decode_own_options[i].name, "format"))
				an_own[k++] = decode_own_options[i];
		if (n)
			memcpy(an_own + k, an->options, n * sizeof(an_own[0]));
		memset(&an_own[k + n], 0, sizeof(an_own[0]));
		cli_stream_options(an_own, an_opts);
		snprintf(shortopts, sizeof(shortopts), ":qh%s", an->shortopts ? an->shortopts : "");
	} else if (d->live) {
		snprintf(shortopts, sizeof(shortopts), ":o:qh");
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, an ? an_opts : opts, NULL)) != -1) {
		if (an && analysis_option(an, c)) {
			ret = an->option(d->an_st[0], c, optarg);
			if (ret)
				return ret;
			continue;
		}
		ret = cli_stream_option(&d->in, c, optarg);
		if (!ret && d->live)
			ret = cli_probe_option(&d->probe, c, optarg);
		if (ret < 0)	/* a bad file, or a bad value */
			return CLI_EXIT_ERROR;
		if (ret > 0)
			continue;
		switch (c) {
		case 'o':
			d->capture_out = optarg;
			break;
		case OPT_SERVE:
			d->serve_addr = optarg;
			break;
		case OPT_COVERAGE:
		case OPT_PROFILE:
		case OPT_CALLS:
		case OPT_TIMELINE: {
			static const struct cli_analysis *const by_opt[] = {
				&cli_coverage, &cli_profile, &cli_calls, &cli_timeline,
			};

			if (!add_analysis(d, by_opt[c - OPT_COVERAGE], optarg))
				return CLI_EXIT_ERROR;
			break;
		}
		case OPT_SERVE_FORMAT: {
			static const char *const names[] = { "decoded", "raw" };
			int i = cli_choice(d->in.cmd, "--serve-format", optarg, names, 2);

			if (i < 0)
				return CLI_EXIT_ERROR;
			d->serve_format = (enum serve_format)i;
			break;
		}
		case OPT_ELF:
			if (!add_elf(d, optarg))
				return CLI_EXIT_ERROR;
			break;
		case OPT_RAW:
			ret = add_raw(d, optarg);
			if (ret)
				return ret;
			break;
		case OPT_SPIKE_ROM:
			d->spike_rom = true;	/* added after the ELFs: its xlen follows them */
			break;
		case OPT_OPTIONS:
			if (!parse_options(d, optarg))
				return CLI_EXIT_ERROR;
			break;
		case OPT_SPEC_RULES:
			d->compat &= ~SPOOR_COMPAT_REFERENCE;
			break;
		case OPT_FORMAT: {
			static const char *const names[] = { "pcs", "text", "json" };
			int i = cli_choice("decode", "--format", optarg, names, 3);

			if (i < 0)
				return CLI_EXIT_ERROR;
			d->format = (enum out_format)i;
			break;
		}
		case OPT_STATS:
			d->stats = true;
			break;
		case OPT_MTVEC:
		case OPT_STVEC: {
			unsigned long long v;
			char *end;

			errno = 0;
			v = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end) {
				say(d, "%s: '%s' is not an address\n",
					c == OPT_MTVEC ? "--mtvec" : "--stvec", optarg);
				return CLI_EXIT_ERROR;
			}
			*(c == OPT_MTVEC ? &d->mtvec : &d->stvec) = v;
			break;
		}
		case 'q':
			d->quiet = true;
			break;
		case 'h':
			if (an)
				analysis_usage(an, stdout);
			else if (d->live)
				stream_usage(stdout);
			else
				decode_usage(stdout);
			return -1;
		default:
			return cli_bad_option(d->in.cmd, c, argv);
		}
	}
	if (d->live && d->serve_format == SERVE_RAW) {
		if (!d->serve_addr) {
			fprintf(stderr, "spoor stream: --serve-format raw needs --serve [HOST:]PORT\n");
			return CLI_EXIT_ERROR;
		}
		if (optind != argc) {
			fprintf(stderr, "spoor stream: unexpected argument '%s'\n", argv[optind]);
			return CLI_EXIT_ERROR;
		}
		return cli_stream_apply(&d->in);
	}
	if (d->spike_rom) {
		unsigned xlen = spoor_image_xlen(d->img);

		ret = spoor_image_add_spike_rom(d->img, xlen ? xlen : 64);
		if (ret) {
			say(d, "--spike-rom: %s\n", spoor_errstr(ret));
			return CLI_EXIT_ERROR;
		}
	}
	if (!spoor_image_xlen(d->img)) {
		fprintf(stderr, "spoor %s: no program: give it with --elf FILE\n", d->in.cmd);
		return CLI_EXIT_ERROR;
	}
	if (d->live) {
		if (optind != argc) {
			fprintf(stderr, "spoor stream: unexpected argument '%s' (the probe is "
				"--probe SOURCE)\n", argv[optind]);
			return CLI_EXIT_ERROR;
		}
		if (d->nan && (d->serve_addr || d->format != OUT_PCS)) {
			fprintf(stderr, "spoor stream: --%s analyses the trace instead of printing "
				"it: --serve and --format do not go with it\n", d->an[0]->name);
			return CLI_EXIT_ERROR;
		}
		return cli_stream_apply(&d->in);
	}
	if (an) {
		if (optind >= argc) {
			fprintf(stderr, "spoor %s: expected one or more capture FILEs (or - for "
				"stdin); try 'spoor %s --help'\n", an->name, an->name);
			return CLI_EXIT_ERROR;
		}
		return cli_stream_apply(&d->in);
	}
	return cli_stream_open(&d->in, argc, argv);
}

/* ---- output ------------------------------------------------------------ */

/* Writes the pcs buffer out; a failed write shows in ferror(stdout). */
static void out_flush(struct decode *d)
{
	if (d->outlen && fwrite(d->out, 1, d->outlen, d->fo) != d->outlen && !d->out_errno)
		d->out_errno = errno;
	d->outlen = 0;
}

/* Appends @addr in lowercase hex without leading zeros and a newline. */
static void out_hex_line(struct decode *d, uint64_t addr)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[17];
	int n = 0;

	if (d->outlen > OUTBUF - 20)
		out_flush(d);
	do {
		tmp[n++] = digits[addr & 15];
		addr >>= 4;
	} while (addr);
	while (n)
		d->out[d->outlen++] = tmp[--n];
	d->out[d->outlen++] = '\n';
}

static const char *const end_names[] = {
	[SPOOR_BLK_TAKEN] = "taken", [SPOOR_BLK_NOT_TAKEN] = "not-taken",
	[SPOOR_BLK_JUMP] = "jump", [SPOOR_BLK_UNINFERABLE] = "uninferable",
	[SPOOR_BLK_ECALL] = "ecall", [SPOOR_BLK_TRAP] = "trap", [SPOOR_BLK_END] = "end",
	[SPOOR_BLK_OPEN] = "open",
};

/* One text line per instruction: address, symbol+offset, file:line, raw bits
 * (padded to 8 characters) and objdump's disassembly ("add\tsp,sp,-16"). */
static void text_insn(struct decode *d, struct spoor_decoder *dec, uint64_t addr,
		      const struct spoor_insn *in)
{
	const uint8_t bytes[4] = { (uint8_t)in->raw, (uint8_t)(in->raw >> 8),
				   (uint8_t)(in->raw >> 16), (uint8_t)(in->raw >> 24) };
	const char *sym, *file;
	char text[256];
	uint64_t off;
	int line;

	out_flush(d);
	fprintf(d->fo, "%016" PRIx64, addr);
	if (!spoor_image_symbol(d->img, addr, &sym, &off))
		fprintf(d->fo, "  %s+0x%" PRIx64, sym, off);
	if (!spoor_image_line(d->img, addr, &file, &line))
		fprintf(d->fo, "  %s:%d", file, line);
	if (in->len == 2)
		fprintf(d->fo, "  %04" PRIx32 "    ", in->raw & 0xffff);
	else
		fprintf(d->fo, "  %08" PRIx32, in->raw);
	/* The disassembler, made on the first line: the XLEN of the ELF files
	 * (all added by now), 64 with raw images only. */
	if (!d->dis)
		d->dis = spoor_disasm_new(spoor_image_xlen(d->img) == 32 ? 32 : 64, d->img);
	if (d->dis && (spoor_disasm_insn(d->dis, addr, bytes, in->len, text, sizeof(text)) > 0 ||
		       text[0]))
		fprintf(d->fo, "  %s", text);
	else if (in->cls != SPOOR_INSN_SEQ)
		fprintf(d->fo, "  %s", spoor_insn_class_name(in->cls));
	fputc('\n', d->fo);
	(void)dec;
}

/* Walks the instructions of @b; pcs and text formats. */
static void block_insns(struct decode *d, struct spoor_decoder *dec, const struct spoor_block *b)
{
	struct spoor_insn in;
	uint64_t addr = b->start;

	for (uint64_t i = 0; i < b->ninsn; i++) {
		if (spoor_decoder_insn(dec, addr, &in)) {
			in.len = 2;	/* reported but not decodable: cannot happen in a block */
			in.cls = SPOOR_INSN_INVALID;
			in.raw = 0;
		}
		if (d->format == OUT_PCS)
			out_hex_line(d, addr);
		else
			text_insn(d, dec, addr, &in);
		addr += in.len;
	}
}

static void json_block(struct decode *d, const struct spoor_dec_item *it)
{
	const struct spoor_block *b = &it->block;

	out_flush(d);
	fprintf(d->fo, "{\"block\":{\"source\":%" PRIu32 ",\"offset\":%" PRIu64 ",\"start\":\"0x%" PRIx64
	       "\",\"last\":\"0x%" PRIx64 "\",\"ninsn\":%" PRIu64 ",\"end\":\"%s\",\"priv\":%u",
	       it->source, it->offset, b->start, b->last, b->ninsn, end_names[b->end], b->priv);
	if (b->next)
		fprintf(d->fo, ",\"next\":\"0x%" PRIx64 "\"", b->next);
	fputs("}}\n", d->fo);
}

static const char *const event_names[] = {
	[SPOOR_EV_SYNC] = "sync", [SPOOR_EV_TRAP] = "trap", [SPOOR_EV_PRIV] = "privilege",
	[SPOOR_EV_CONTEXT] = "context", [SPOOR_EV_TIME] = "time", [SPOOR_EV_START] = "start",
	[SPOOR_EV_STOP] = "stop", [SPOOR_EV_LOST] = "lost", [SPOOR_EV_GAP] = "gap",
};

/* An event line (text) or object (json); gaps also warn on stderr for pcs. */
static void print_event(struct decode *d, const struct spoor_dec_item *it)
{
	const struct spoor_event *e = &it->event;

	if (d->format == OUT_PCS) {
		if (e->kind == SPOOR_EV_GAP && !d->quiet)
			say(d, "source %" PRIu32 ", packet at offset %" PRIu64
				": %s at 0x%" PRIx64 "; resuming at the next sync\n", it->source,
				it->offset, spoor_errstr(e->reason), e->address);
		return;
	}
	out_flush(d);
	if (d->format == OUT_JSON) {
		fprintf(d->fo, "{\"event\":{\"kind\":\"%s\",\"source\":%" PRIu32 ",\"offset\":%" PRIu64
		       ",\"priv\":%u", event_names[e->kind], it->source, it->offset, e->priv);
		if (e->kind == SPOOR_EV_TRAP) {
			fprintf(d->fo, ",\"cause\":%" PRIu64 ",\"interrupt\":%s,\"tval\":\"0x%" PRIx64 "\"",
			       e->cause, e->interrupt ? "true" : "false", e->tval);
			if (e->has_epc)
				fprintf(d->fo, ",\"epc\":\"0x%" PRIx64 "\"", e->epc);
		}
		if (e->kind == SPOOR_EV_GAP)
			fprintf(d->fo, ",\"reason\":\"%s\"", spoor_errstr(e->reason));
		if (e->kind == SPOOR_EV_SYNC || e->kind == SPOOR_EV_TRAP || e->kind == SPOOR_EV_GAP)
			fprintf(d->fo, ",\"address\":\"0x%" PRIx64 "\"", e->address);
		if (e->kind == SPOOR_EV_CONTEXT)
			fprintf(d->fo, ",\"context\":\"0x%" PRIx64 "\"", e->context);
		if (e->kind == SPOOR_EV_START)
			fprintf(d->fo, ",\"options\":%" PRIu32, e->options);
		if (e->kind == SPOOR_EV_TIME)
			fprintf(d->fo, ",\"time\":%" PRIu64, e->time);
		fputs("}}\n", d->fo);
		return;
	}
	fprintf(d->fo, "-- %s", event_names[e->kind]);
	switch (e->kind) {
	case SPOOR_EV_TRAP:
		fprintf(d->fo, " %s %" PRIu64, e->interrupt ? "interrupt" : "exception", e->cause);
		if (e->has_epc)
			fprintf(d->fo, " epc 0x%" PRIx64, e->epc);
		if (!e->interrupt)
			fprintf(d->fo, " tval 0x%" PRIx64, e->tval);
		if (e->address)
			fprintf(d->fo, " handler 0x%" PRIx64, e->address);
		break;
	case SPOOR_EV_SYNC:
		fprintf(d->fo, " at 0x%" PRIx64, e->address);
		break;
	case SPOOR_EV_PRIV:
		fprintf(d->fo, " %u", e->priv);
		break;
	case SPOOR_EV_CONTEXT:
		fprintf(d->fo, " 0x%" PRIx64, e->context);
		break;
	case SPOOR_EV_TIME:
		fprintf(d->fo, " %" PRIu64, e->time);
		break;
	case SPOOR_EV_GAP:
		fprintf(d->fo, ": %s at 0x%" PRIx64 " (packet at offset %" PRIu64 "); resuming at the next sync",
		       spoor_errstr(e->reason), e->address, it->offset);
		break;
	default:
		break;
	}
	fprintf(d->fo, " (source %" PRIu32 ")\n", it->source);
}

/* ---- pipeline callbacks --------------------------------------------------- */

/* Blocks of @source, from the packet at @offset. */
static void on_blocks(void *ctx, uint32_t source, uint64_t offset, const struct spoor_block *b,
		      size_t n)
{
	struct decode *d = ctx;
	struct spoor_decoder *dec = spoor_trace_decoder(d->trace, source);
	struct spoor_dec_item it = { .kind = SPOOR_DEC_BLOCK, .source = source, .offset = offset };

	if (d->sink) {
		spoor_sink_blocks(d->sink, source, b, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (d->format == OUT_JSON) {
			it.block = b[i];
			json_block(d, &it);
		} else {
			block_insns(d, dec, &b[i]);
		}
	}
}

static void on_event(void *ctx, const struct spoor_dec_item *it)
{
	struct decode *d = ctx;

	/* (With a sink the format is pcs: only gaps are told, on stderr.) */
	if (d->sink)
		spoor_sink_event(d->sink, it);
	print_event(d, it);
}

static void on_bad_packet(void *ctx, uint32_t source, uint64_t offset, int err)
{
	struct decode *d = ctx;

	if (!d->quiet)
		say(d, "source %" PRIu32 ", offset %" PRIu64
			": bad te_inst packet: %s\n", source, offset, spoor_errstr(err));
}

static void on_stream(void *ctx, const struct spoor_deframe_item *it)
{
	struct decode *d = ctx;

	if (d->quiet || it->kind == SPOOR_DF_SYNC)
		return;
	if (it->kind == SPOOR_DF_SYNC_LOST)
		say(d, "stream offset %" PRIu64 ": sync lost (%s)\n",
			it->offset, spoor_errstr(it->reason));
	else if (it->kind == SPOOR_DF_TRUNCATED)
		say(d, "stream ends inside a packet at offset %" PRIu64
			" (%" PRIu64 " bytes)\n", it->offset, it->bytes);
	else if (it->kind == SPOOR_DF_GAP && it->bytes == SPOOR_DEFRAME_LOST_UNKNOWN)
		say(d, "stream offset %" PRIu64 ": trace lost (the probe "
			"was away); decoding resumes at the next sync\n", it->offset);
	else if (it->kind == SPOOR_DF_GAP)
		say(d, "stream offset %" PRIu64 ": %" PRIu64 " bytes lost "
			"(the probe's buffer overflowed); decoding resumes at the next sync\n",
			it->offset, it->bytes);
}

/* A loss in the input (a capture's LOSS record): the pipeline resynchronises after it. */
static int on_gap(void *ctx, uint64_t lost)
{
	struct decode *d = ctx;
	int ret = spoor_trace_gap(d->trace, lost);

	if (ret) {
		say(d, "%s\n", spoor_errstr(ret));
		return CLI_EXIT_ERROR;
	}
	return 0;
}

/* One chunk of the input into the pipeline; returns 0 or an exit status. */
static int on_chunk(void *ctx, const uint8_t *buf, size_t len)
{
	struct decode *d = ctx;
	int ret = spoor_trace_feed(d->trace, buf, len);

	if (ret) {
		say(d, "%s\n", spoor_errstr(ret));
		return CLI_EXIT_ERROR;
	}
	/*
	 * Stop at the first failed write (a full disk), ours or an analysis
	 * sink's: do not decode on for nothing (the sink's finish() says what).
	 */
	if (d->sink && spoor_sink_error(d->sink))
		return CLI_EXIT_ERROR;
	if (!ferror(d->fo))
		return 0;
	return cli_output_check(d->in.cmd, d->fo, d->out_errno ? d->out_errno : errno);
}

/* A progress bar on stderr for large inputs when stderr is a terminal. */
static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct decode *d = ctx;
	int pct;

	if (total < (16u << 20) || !isatty(STDERR_FILENO))
		return;
	pct = (int)(done * 100 / total);
	if (pct == d->progress_shown)
		return;
	d->progress_shown = pct;
	fprintf(stderr, "\r[%-50.*s] %3d%%", pct / 2,
		"##################################################", pct);
	if (done == total)
		fputs("\r\033[K", stderr);
}

static void print_stats(struct decode *d)
{
	struct spoor_trace_stats st;

	spoor_trace_stats(d->trace, &st, sizeof(st));
	fprintf(stderr, "instructions: %" PRIu64 "\nblocks: %" PRIu64 "\nbranches: %" PRIu64
		"\ntraps: %" PRIu64 "\npackets: %" PRIu64 " (%" PRIu64 " bad)\nbytes: %" PRIu64
		"\nbits per instruction: %.3f\ngaps: %" PRIu64 " (decoder) + %" PRIu64
		" (stream sync losses)\nsources: %u\n", st.decoder.instructions, st.decoder.blocks,
		st.decoder.branches, st.decoder.traps, st.packets, st.bad_packets, st.deframe.bytes,
		st.decoder.instructions ? (double)st.payload_bits / (double)st.decoder.instructions :
		0.0, st.decoder.gaps, st.deframe.sync_losses, st.sources);
}

/* The pipeline of the command line's options; returns 0 or an exit status. */
static int make_trace(struct decode *d)
{
	static const struct spoor_trace_ops ops = {
		.blocks = on_blocks, .event = on_event, .stream = on_stream,
		.bad_packet = on_bad_packet,
	};
	struct spoor_trace_config cfg;
	struct spoor_diag diag;
	int ret;

	spoor_trace_config_init(&cfg);
	cfg.params = d->in.params;
	cfg.deframe = d->in.dcfg;
	cfg.atid = d->in.atid;
	cfg.image = d->img;
	cfg.options = d->options;
	cfg.compat = d->compat;
	cfg.mtvec = d->mtvec;
	cfg.stvec = d->stvec;
	cfg.only_source = d->in.only_source;
	memcpy(cfg.isa, d->in.isa, sizeof(cfg.isa));
	ret = spoor_trace_config_check(&cfg, &diag);
	if (ret) {
		say(d, "%s\n", diag.msg);
		return CLI_EXIT_ERROR;
	}
	d->trace = spoor_trace_new(&cfg, &ops, d);
	if (!d->trace) {
		say(d, "cannot set up the decoder: out of memory\n");
		return CLI_EXIT_ERROR;
	}
	return 0;
}

/* Adds what the pipeline's input amounted to into the totals. */
static void add_totals(struct decode *d)
{
	struct spoor_trace_stats st;

	if (spoor_trace_stats(d->trace, &st, sizeof(st)))
		return;
	d->tot.instructions += st.decoder.instructions;
	d->tot.gaps += st.decoder.gaps;
	d->tot.sync_losses += st.deframe.sync_losses;
	d->tot.bad_packets += st.bad_packets;
	d->tot.truncated += st.deframe.truncated_bytes != 0;
	d->tot.bytes += st.deframe.bytes;
	d->tot.frames += st.deframe.frames;
	d->tot.packets += st.packets;
}

/*
 * What complete reads of the trace (every input) amounted to:
 * CLI_EXIT_CLEAN, or CLI_EXIT_GAPS after one line on stderr counting the
 * problems.
 */
static int trace_verdict(struct decode *d)
{
	const struct totals *t = &d->tot;
	const char *cmd = d->in.cmd;
	uint64_t problems;

	problems = t->gaps + t->sync_losses + t->bad_packets + t->truncated + d->in.damaged;
	if (!t->instructions) {
		fprintf(stderr, "spoor %s: no instruction decoded from %" PRIu64 " bytes (%s)\n",
			cmd, t->bytes, !t->bytes ? "empty input" :
			!t->frames ? "no packet found: wrong encapsulation, or no sync" :
			!t->packets ? "no te_inst packet decoded: wrong parameters?" :
			"no synchronisation packet, or none that fits the program");
		return CLI_EXIT_GAPS;
	}
	if (!problems)
		return CLI_EXIT_CLEAN;
	fprintf(stderr, "spoor %s: completed with %" PRIu64 " problem%s: %" PRIu64 " gap%s "
		"(trace inconsistent with the program, or lost), %" PRIu64 " stream sync loss%s, %"
		PRIu64 " bad packet%s%s", cmd, problems, problems == 1 ? "" : "s", t->gaps,
		t->gaps == 1 ? "" : "s", t->sync_losses, t->sync_losses == 1 ? "" : "es",
		t->bad_packets, t->bad_packets == 1 ? "" : "s",
		t->truncated ? ", the stream ends inside a packet" : "");
	cli_stream_losses(&d->in, stderr);
	fputc('\n', stderr);
	return CLI_EXIT_GAPS;
}

/* ---- spoor stream ---------------------------------------------------------- */

/* Trace bytes from the probe: into the pipeline, or to the clients as they are. */
static void live_data(void *ctx, uint64_t offset, const uint8_t *buf, size_t len)
{
	struct decode *d = ctx;
	int ret;

	(void)offset;
	if (d->serve && d->serve_format == SERVE_RAW) {
		cli_serve_write(d->serve, buf, len);
		return;
	}
	ret = spoor_trace_feed(d->trace, buf, len);
	if (ret && !d->live_err)
		d->live_err = ret;
}

static void live_loss(void *ctx, uint64_t offset, uint64_t lost)
{
	struct decode *d = ctx;

	(void)offset;
	cli_stream_count_loss(&d->in, lost);
	if (d->trace)
		spoor_trace_gap(d->trace, lost);
}

/* The decoded text to every client of --serve. */
static ssize_t serve_cookie_write(void *cookie, const char *buf, size_t len)
{
	cli_serve_write(cookie, buf, len);
	return (ssize_t)len;
}

/* A monotonic clock in milliseconds, for the live view's refresh. */
static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The live view: what every analysis has so far (the open blocks handed out first). */
static void analyses_view(struct decode *d)
{
	spoor_trace_flush(d->trace);
	if (isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	else
		fputs("----\n", stdout);
	for (size_t i = 0; i < d->nan; i++)
		if (d->an[i]->refresh)
			d->an[i]->refresh(d->an_st[i], stdout);
	fflush(stdout);
}

/* Makes the analyses' sinks once the options are parsed; returns 0 or an exit status. */
static int analyses_start(struct decode *d)
{
	d->funcs = spoor_funcs_new(d->img);
	if (!d->funcs) {
		fprintf(stderr, "spoor %s: out of memory\n", d->in.cmd);
		return CLI_EXIT_ERROR;
	}
	for (size_t i = 0; i < d->nan; i++) {
		if (!d->an[i]->start) {
			fprintf(stderr, "spoor %s: not available in this build\n", d->an[i]->name);
			return CLI_EXIT_ERROR;
		}
		d->sinks[i] = d->an[i]->start(d->an_st[i], d->funcs);
		if (!d->sinks[i])
			return CLI_EXIT_ERROR;
	}
	d->sink = d->nan == 1 ? d->sinks[0] : spoor_sink_tee_new(d->sinks, d->nan);
	if (!d->sink) {
		fprintf(stderr, "spoor %s: out of memory\n", d->in.cmd);
		return CLI_EXIT_ERROR;
	}
	d->format = OUT_PCS;	/* only gaps are told, on stderr */
	return 0;
}

/* Writes every analysis's results; returns 0 or the first exit status. */
static int analyses_finish(struct decode *d)
{
	int status = 0, ret;

	/*
	 * A sink that failed other than by a write has only part of the trace
	 * (out of memory): said here, its output dropped by free().  Each
	 * reports its own write failures (naming its file).
	 */
	for (size_t i = 0; i < d->nan; i++) {
		ret = spoor_sink_error(d->sinks[i]);
		if (ret && ret != SPOOR_E_IO) {
			fprintf(stderr, "spoor %s: %s\n", d->an[i]->name, spoor_errstr(ret));
			ret = CLI_EXIT_ERROR;
		} else {
			ret = d->an[i]->finish(d->an_st[i]);
		}
		if (ret && !status)
			status = ret;
	}
	return status;
}

/* Frees the analyses and their sinks. */
static void analyses_free(struct decode *d)
{
	if (d->nan > 1)
		spoor_sink_free(d->sink);
	for (size_t i = 0; i < d->nan; i++)
		d->an[i]->free(d->an_st[i]);
	spoor_funcs_free(d->funcs);	/* after the sinks over it */
}

/* Reads an analysis command's inputs in turn into its sink; returns 0 or an exit status. */
static int analysis_read(struct decode *d, int argc, char **argv)
{
	static const struct cli_read_ops read_ops = {
		.chunk = on_chunk, .gap = on_gap, .progress = on_progress,
	};
	struct spoor_deframe_config dcfg = d->in.dcfg;
	int status = 0, ret;

	for (int i = optind; i < argc && !status; i++) {
		if (i > optind)
			spoor_sink_restart(d->sink);	/* an unrelated trace follows */
		d->in.dcfg = dcfg;
		status = cli_stream_open_input(&d->in, argv[i]);
		if (!status)
			status = make_trace(d);
		if (!status)
			status = cli_stream_read(&d->in, &read_ops, d);
		cli_stream_close(&d->in);
		if (!d->trace)
			break;
		/* End of this trace: a frame cut off, every source's last block. */
		ret = spoor_trace_finish(d->trace);
		if (ret && !status) {
			fprintf(stderr, "spoor %s: %s\n", d->in.cmd, spoor_errstr(ret));
			status = CLI_EXIT_ERROR;
		}
		if (d->stats)
			print_stats(d);
		add_totals(d);
		spoor_trace_free(d->trace);
		d->trace = NULL;
	}
	return status;
}

/* Reads the probe until the end; returns 0 or an exit status. */
static int stream_run(struct decode *d)
{
	static const struct spoor_source_ops ops = { .data = live_data, .loss = live_loss };
	char text[4200] = "";
	uint64_t next_view;
	int status, ret;

	if (d->serve_addr) {
		d->serve = cli_serve_new("stream", d->serve_addr);
		if (!d->serve)
			return CLI_EXIT_ERROR;
		if (d->serve_format == SERVE_DECODED) {
			d->fo = fopencookie(d->serve, "w", (cookie_io_functions_t){
						    .write = serve_cookie_write });
			if (!d->fo) {
				d->fo = stdout;
				fprintf(stderr, "spoor stream: out of memory\n");
				return CLI_EXIT_ERROR;
			}
		}
	}
	if (d->in.board_path)
		snprintf(text, sizeof(text), "board=%s\n", d->in.board_path);
	status = cli_probe_start(&d->probe, &d->in.dcfg.encap, d->capture_out, text);
	next_view = now_ms() + 1000;
	while (!status) {
		ret = cli_probe_poll(&d->probe, d->serve ? 10 : 50, &ops, d);
		if (d->nan && now_ms() >= next_view) {
			analyses_view(d);
			next_view = now_ms() + 1000;
		}
		if (d->live_err) {
			fprintf(stderr, "spoor stream: %s\n", spoor_errstr(d->live_err));
			status = CLI_EXIT_ERROR;
			break;
		}
		out_flush(d);
		fflush(d->fo);
		if (d->serve)
			cli_serve_poll(d->serve, 0);
		else if (ferror(d->fo))
			status = cli_output_check("stream", d->fo, errno);
		if (ret == 1)
			break;
		if (ret)
			status = ret;
	}
	ret = cli_probe_finish(&d->probe, d->quiet);
	return status ? status : ret;
}

/* decode and stream: the options, the pipeline, the input, the verdict. */
static int decode_main(struct decode *d, int argc, char **argv)
{
	static const struct cli_read_ops read_ops = {
		.chunk = on_chunk, .gap = on_gap, .progress = on_progress,
	};
	int status, ret, live_status = 0;

	d->fo = stdout;
	status = parse_args(d, argc, argv);
	if (status)
		return status;
	if (d->nan) {
		status = analyses_start(d);
		if (status)
			return status;
	}
	if (d->analysis) {
		status = analysis_read(d, argc, argv);
		/* (After a sink's failed write its finish() says what failed.) */
		if (!status || spoor_sink_error(d->sink)) {
			ret = analyses_finish(d);
			status = status ? status : ret;
		}
		return status ? status : trace_verdict(d);
	}
	if (!(d->live && d->serve_format == SERVE_RAW)) {
		status = make_trace(d);
		if (status)
			return status;
	}
	if (d->live) {
		live_status = status = stream_run(d);
		if (status == CLI_EXIT_GAPS)
			status = 0;	/* judged with the trace below */
	} else {
		status = cli_stream_read(&d->in, &read_ops, d);
	}
	if (!d->trace) {
		if (d->serve)
			cli_serve_drain(d->serve, 1000);
		return live_status;
	}
	/* End of the trace: a frame cut off, every source's last block. */
	ret = spoor_trace_finish(d->trace);
	if (ret && !status) {
		fprintf(stderr, "spoor %s: %s\n", d->in.cmd, spoor_errstr(ret));
		status = CLI_EXIT_ERROR;
	}
	out_flush(d);
	if (d->stats)
		print_stats(d);
	if (d->serve) {
		fflush(d->fo);
		cli_serve_drain(d->serve, 1000);
	}
	if (!status && !d->serve)
		status = cli_output_check(d->in.cmd, d->fo, d->out_errno);
	if (d->nan && (!status || spoor_sink_error(d->sink))) {
		ret = analyses_finish(d);
		status = status ? status : ret;
	}
	add_totals(d);
	if (!status)
		status = trace_verdict(d);
	if (!status && live_status)
		status = live_status;
	return status;
}

/* Runs decode (@live false), stream, or analysis command @an. */
static int decode_cmd(int argc, char **argv, bool live, const struct cli_analysis *an)
{
	const char *cmd = an ? an->name : live ? "stream" : "decode";
	struct decode *d = calloc(1, sizeof(*d));
	int status;

	if (!d)
		goto nomem;
	d->img = spoor_image_new();
	if (!d->img)
		goto nomem;
	if (an) {
		if (!an->new) {
			fprintf(stderr, "spoor %s: not available in this build\n", cmd);
			spoor_image_free(d->img);
			free(d);
			return CLI_EXIT_ERROR;
		}
		d->analysis = true;
		d->an[0] = an;
		d->an_st[0] = an->new();
		if (!d->an_st[0])
			goto nomem;
		d->nan = 1;
	}
	cli_stream_init(&d->in, cmd);
	cli_probe_init(&d->probe, "stream");
	d->live = live;
	d->compat = SPOOR_COMPAT_REFERENCE;
	status = decode_main(d, argc, argv);
	cli_stream_close(&d->in);
	if (d->fo && d->fo != stdout)
		fclose(d->fo);
	cli_serve_free(d->serve);
	spoor_trace_free(d->trace);
	analyses_free(d);
	spoor_disasm_free(d->dis);
	spoor_image_free(d->img);
	free(d);
	return status < 0 ? CLI_EXIT_CLEAN : status;
nomem:
	fprintf(stderr, "spoor %s: out of memory\n", cmd);
	if (d)
		spoor_image_free(d->img);
	free(d);
	return CLI_EXIT_ERROR;
}

int cmd_decode(int argc, char **argv)
{
	return decode_cmd(argc, argv, false, NULL);
}

int cmd_stream(int argc, char **argv)
{
	return decode_cmd(argc, argv, true, NULL);
}

int cli_analysis_main(const struct cli_analysis *an, int argc, char **argv)
{
	return decode_cmd(argc, argv, false, an);
}

int cmd_coverage(int argc, char **argv)
{
	return cli_analysis_main(&cli_coverage, argc, argv);
}

int cmd_profile(int argc, char **argv)
{
	return cli_analysis_main(&cli_profile, argc, argv);
}

int cmd_calls(int argc, char **argv)
{
	return cli_analysis_main(&cli_calls, argc, argv);
}

int cmd_timeline(int argc, char **argv)
{
	return cli_analysis_main(&cli_timeline, argc, argv);
}
