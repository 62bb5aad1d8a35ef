/* SPDX-License-Identifier: MIT */
/*
 * spoor gdbserver: a GDB remote-protocol server that serves the trace's
 * reconstructed execution as GDB's branch trace (record btrace, BTS
 * format), either as a proxy in front of OpenOCD's GDB port (every other
 * packet passes through unchanged) or, with no OpenOCD, as a
 * self-contained target replaying a capture file.
 */
#ifndef SPOOR_GDBSERVER_H
#define SPOOR_GDBSERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/image.h"
#include "spoor/probe.h"
#include "spoor/trace.h"

enum spoor_gs_source {
	SPOOR_GS_SRC_NONE,	/* no trace: btrace requests fail with a reason */
	SPOOR_GS_SRC_TCP,	/* a trace port's byte stream over TCP (spoor virt, a probe) */
	SPOOR_GS_SRC_RAM,	/* the RAM sink, read through OpenOCD when the target stops */
	SPOOR_GS_SRC_FILE,	/* a capture file (replay mode, no OpenOCD) */
	SPOOR_GS_SRC_PROBE,	/* a trace probe (spoor/source.h), read continuously */
};

struct spoor_gdbserver_config {
	const char *host;		/* address to listen on (default 127.0.0.1) */
	unsigned port;			/* 0: any free port */
	/* OpenOCD: its GDB port, or a configuration file to start it with. */
	const char *openocd;		/* HOST:PORT */
	const char *openocd_cfg;
	const char *const *openocd_cmds;	/* -c commands given before the file */
	size_t n_openocd_cmds;
	const char *openocd_bin;	/* default "openocd" */
	/* The trace. */
	enum spoor_gs_source source;
	const char *trace_port;		/* TCP: HOST:PORT */
	const char *replay;		/* FILE: a capture file or a raw stream */
	const char *probe;		/* PROBE: usb[:SERIAL], ftdi[:SERIAL], tcp:HOST:PORT */
	struct spoor_probe_config probe_cfg;	/* PROBE: port width, edges, encapsulation */
	struct spoor_trace_config trace;	/* the pipeline (image included) */
	uint32_t default_source;	/* the source of a thread GDB does not name */
	/* Replay mode's memory: the ELF files and their load offsets. */
	const char *const *elfs;
	const int64_t *elf_offsets;
	size_t nelf;
	unsigned xlen;
	/* Trace control through OpenOCD (proxy mode). */
	uint64_t trace_base;		/* Trace Control Interface registers */
	uint32_t te_features;		/* trTeInstFeatures written when spoor starts tracing */
	uint64_t ram_start, ram_size;	/* the RAM sink's buffer */
	size_t history_blocks;		/* blocks kept per hart */
	int stop_timeout_ms;		/* longest wait for a halt's end of trace */
	bool once;			/* exit after the first GDB connection */
	bool verbose;			/* log every packet on stderr */
};

/*
 * Listens, prints "gdb: HOST:PORT" on stdout, and serves GDB connections
 * one after the other until SIGINT/SIGTERM (or the first ends, with
 * @once).  Messages go to stderr.  Returns the exit status: 0, or 2 after
 * an error message (cannot listen, bad capture, OpenOCD did not start, the
 * probe cannot be opened or started).
 */
int spoor_gdbserver_run(const struct spoor_gdbserver_config *cfg);

#endif
