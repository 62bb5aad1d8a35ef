/* SPDX-License-Identifier: MIT */
/*
 * What every stream-reading command (dump, decode) shares: the encoder
 * parameters, the encapsulation and alignment options, the input, and the
 * read-deframe loop.
 */
#ifndef SPOOR_CLI_STREAM_H
#define SPOOR_CLI_STREAM_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "spoor/deframe.h"
#include "spoor/params.h"
#include "spoor/source.h"

/* getopt_long values of the shared options; commands number theirs from CLI_OPT_OWN. */
enum {
	CLI_OPT_PARAMS = 256, CLI_OPT_PARAM, CLI_OPT_ENCAP, CLI_OPT_SRC_BITS, CLI_OPT_TS_BYTES,
	CLI_OPT_TYPE_BITS, CLI_OPT_ATID, CLI_OPT_SYNC_RUN, CLI_OPT_BLOCK_SIZE, CLI_OPT_UNSYNCED,
	CLI_OPT_SOURCE, CLI_OPT_BOARD, CLI_OPT_OWN = 300,
};

#define CLI_STREAM_NOPTS 12
#define CLI_MAX_PARAMS 64		/* --param options */

struct cli_stream {
	const char *cmd;		/* command name for messages */
	struct spoor_params params;
	struct spoor_deframe_config dcfg;
	unsigned atid;			/* ATB: the ATID of the file's bytes */
	long only_source;		/* -1: every source */
	long src_bits, ts_bytes, type_bits;	/* -1: the encapsulation's default */
	/* Gathered while parsing, applied by cli_stream_open() in a fixed order
	 * (board or parameter file, then --param, then the encapsulation
	 * options), so that the order of the options does not matter. */
	const char *board_path, *params_path;
	const char *param_args[CLI_MAX_PARAMS];
	unsigned nparams;
	int encap_kind;			/* -1: the board's, else raw */
	char isa[32];			/* the board's ISA, "" without --board */
	const char *path;
	struct spoor_source *src;	/* the input: a capture file or a raw stream */
	bool capture;			/* it is a capture file (its header was applied) */
	uint64_t size;			/* input size when known (regular file), else 0 */
	uint64_t losses, lost;		/* LOSS records (a probe's overflows); bytes they lost */
	bool damaged;			/* the capture file goes bad before its end */
};

/* The shared options' usage lines. */
extern const char cli_stream_usage[];

/* Sets the defaults: spec parameters, raw encapsulation, synchronised start. */
void cli_stream_init(struct cli_stream *s, const char *cmd);

/*
 * Builds a getopt_long table of the shared options followed by @own (which
 * ends with a zero entry) into @out (room for CLI_STREAM_NOPTS + own + 1).
 */
void cli_stream_options(const struct option *own, struct option *out);

/* Handles getopt_long result @c: 1 when it was a shared option, 0 when not,
 * or -1 after printing an error. */
int cli_stream_option(struct cli_stream *s, int c, const char *arg);

/* Prints the error for getopt's ':' and '?' results; returns 2. */
int cli_bad_option(const char *cmd, int c, char **argv);

/*
 * After option parsing: loads the board or parameter file, applies --param
 * and the encapsulation options over it and checks the result.  Returns 0 or
 * an exit status (a one-line message printed).  (cli_stream_open() does it.)
 */
int cli_stream_apply(struct cli_stream *s);

/*
 * After option parsing: loads the board or parameter file, applies --param
 * and the encapsulation options over it, takes the one remaining argument as
 * the input (FILE or - for stdin: a capture file, whose header gives the
 * encapsulation unless --encap does, or a raw stream), checks the options
 * and opens it.  Returns 0 or an exit status (a one-line message printed).
 */
int cli_stream_open(struct cli_stream *s, int argc, char **argv);

/*
 * Opens input @path (FILE or - for stdin) after cli_stream_apply(): a
 * capture file, whose header gives the encapsulation unless --encap does,
 * or a raw stream.  For several inputs in turn: save s->dcfg after
 * cli_stream_apply() and put it back before each.  Returns 0 or an exit
 * status (a one-line message printed).
 */
int cli_stream_open_input(struct cli_stream *s, const char *path);

struct cli_stream_ops {
	void (*frame)(void *ctx, const struct spoor_frame *frm);
	void (*event)(void *ctx, const struct spoor_deframe_item *it);
	/* called after each chunk read; may be NULL */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	/* called after each chunk: 0 to go on, or an exit status that stops; may be NULL */
	int (*check)(void *ctx);
};

struct cli_read_ops {
	/* The next @len trace bytes: returns 0, or an exit status that stops the reading. */
	int (*chunk)(void *ctx, const uint8_t *buf, size_t len);
	/* @lost bytes missing here (a capture's LOSS record; SPOOR_SOURCE_LOST_UNKNOWN). */
	int (*gap)(void *ctx, uint64_t lost);
	/* Bytes read so far of @total (0: unknown); may be NULL. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
};

/*
 * Reads the input to its end through @ops.  Closes the input.  Returns 0 or
 * an exit status (a read error is reported; a capture file that goes bad is
 * reported and read up to there, s->damaged set).
 */
int cli_stream_read(struct cli_stream *s, const struct cli_read_ops *ops, void *ctx);

/* Counts a loss of @lost bytes in the input (SPOOR_SOURCE_LOST_UNKNOWN: of unknown size). */
void cli_stream_count_loss(struct cli_stream *s, uint64_t lost);

/* Appends ", N losses in the capture (B bytes)" and ", the capture is damaged" to a verdict line. */
void cli_stream_losses(const struct cli_stream *s, FILE *out);

/* Closes the input (if still open). */
void cli_stream_close(struct cli_stream *s);

/*
 * Reads the input to its end through a deframer, handing frames of the
 * selected source(s) and events to @ops; fills @st.  Closes the input.
 * Returns 0 or an exit status.
 */
int cli_stream_run(struct cli_stream *s, const struct cli_stream_ops *ops, void *ctx,
		   struct spoor_deframe_stats *st);

#endif
