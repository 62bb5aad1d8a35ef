/* SPDX-License-Identifier: MIT */
/*
 * What the commands that read a live probe share (capture, stream,
 * gdbserver --probe): the probe options, opening and configuring it, the
 * poll loop with reconnection after an unplug, a capture file written as
 * bytes come, stopping on a signal, a duration or a size, and the status
 * line.
 */
#ifndef SPOOR_CLI_PROBE_H
#define SPOOR_CLI_PROBE_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "spoor/capture_file.h"
#include "spoor/encap.h"
#include "spoor/source.h"

/* getopt_long values of the probe options (commands number theirs elsewhere). */
enum {
	CLI_OPT_PROBE = 400, CLI_OPT_PORT_WIDTH, CLI_OPT_DDR, CLI_OPT_FALLING, CLI_OPT_DURATION,
	CLI_OPT_SIZE, CLI_OPT_RECONNECT, CLI_OPT_STATUS, CLI_OPT_IDLE,
};

#define CLI_PROBE_NOPTS 9

/* The probe options' usage lines. */
extern const char cli_probe_usage[];

struct cli_probe {
	const char *cmd;
	const char *spec;		/* --probe */
	struct spoor_probe_config cfg;	/* port width (0: the probe's default), edges;
					 * the encapsulation is set at start */
	double duration;		/* --duration seconds (0: until stopped) */
	double idle;			/* --idle: stop after this long without a byte (0: never) */
	uint64_t size;			/* --size trace bytes (0: no limit) */
	unsigned reconnect_s;		/* --reconnect: seconds to wait for an unplugged probe */
	int status_line;		/* --status: 1 on, 0 off, -1 when stderr is a terminal */
	struct spoor_source *src;
	struct spoor_probe_info info;
	/* A capture file written as the bytes come (NULL: none). */
	struct spoor_capture_writer *cap;
	const char *cap_path;
	int cap_errno;			/* the first failed write's errno */
	/* Counters. */
	uint64_t bytes;			/* trace bytes received */
	uint64_t next_offset;		/* trace offset the next data should have */
	uint64_t losses, lost;		/* overflows and the bytes they lost */
	uint64_t unplugs, stream_errors;
	bool ended;			/* END came */
	bool gone;			/* unplugged and not back, or stopped answering */
	bool stop_sent;			/* STOP went out (a signal, a limit) */
	double t_stop;
	/* Status line. */
	double t_start, t_status, t_data;
	uint64_t bytes_status;
	const char *sync_state;		/* "synced", "searching" … (the consumer's) */
};

/* Defaults: port width 4, SDR rising edge, reconnect for 10 s, status line on a terminal. */
void cli_probe_init(struct cli_probe *p, const char *cmd);

/* Builds a getopt table of the probe options followed by @own into @out (room for CLI_PROBE_NOPTS + own + 1). */
void cli_probe_options(const struct option *own, struct option *out);

/* Handles getopt result @c: 1 when it was a probe option, 0 when not, -1 after an error. */
int cli_probe_option(struct cli_probe *p, int c, const char *arg);

/*
 * Opens --probe, reads its info, configures it for @encap and starts it;
 * with @cap_path also creates that capture file (its header: @encap, the
 * probe, @text — "key=value\n" lines, may be NULL).  Installs the handlers of
 * SIGINT, SIGTERM, SIGHUP (they end the capture cleanly).  Returns 0 or an
 * exit status after a message.
 */
int cli_probe_start(struct cli_probe *p, const struct spoor_encap_config *encap,
		    const char *cap_path, const char *text);

/*
 * Waits up to @timeout_ms for trace bytes and hands them to @ops (after
 * writing them to the capture file).  Deals with an unplugged probe
 * (message; waits --reconnect seconds for it; a loss of unknown size), the
 * duration and size limits, and a stop signal (STOP sent; the rest comes
 * until the probe's END).  Returns 0 to go on, 1 at the end, or an exit
 * status after a message.
 */
int cli_probe_poll(struct cli_probe *p, int timeout_ms, const struct spoor_source_ops *ops,
		   void *ctx);

/*
 * Closes the probe and the capture file (its END record).  Prints the
 * summary line unless @quiet.  Returns CLI_EXIT_CLEAN, CLI_EXIT_GAPS (losses,
 * an unplug, a bad stream) or CLI_EXIT_ERROR (a failed write).
 */
int cli_probe_finish(struct cli_probe *p, bool quiet);

/* Has a stop signal come (SIGINT, SIGTERM, SIGHUP)? */
bool cli_probe_stopping(void);

#endif
