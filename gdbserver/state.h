/* SPDX-License-Identifier: MIT */
/*
 * The trace behind the server, shared by its GDB sessions: the library
 * pipeline (spoor/trace.h) feeding the bounded history (spoor/history.h),
 * the raw bytes received (for "monitor trace save"), and the live readers:
 * a thread that decodes a trace port's TCP byte stream continuously, or
 * one that drives a probe (spoor/source.h) and decodes what it sends,
 * losses as gaps.  One lock
 * guards all of it; a condition variable tells waiters that the decoder has
 * seen the end of a trace (the encoder's support packet when the hart
 * halted).
 */
#ifndef SPOOR_GS_STATE_H
#define SPOOR_GS_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "spoor/history.h"
#include "spoor/source.h"
#include "spoor/trace.h"

struct gs_state {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct spoor_trace_config tcfg;
	struct spoor_trace *trace;
	struct spoor_history *hist;
	uint64_t stops;		/* ends of trace decoded (SPOOR_EV_STOP) */
	uint64_t bytes;		/* bytes fed */
	uint64_t gaps;		/* decoder gaps and stream sync losses */
	FILE *raw;		/* every byte fed from a live source, in order */
	bool raw_failed;	/* writing it failed: save reports it */
	bool raw_full;		/* it reached GS_RAW_MAX: save reports it */
	const char *replay;	/* the capture file fed whole (no copy in raw) */
	bool replay_capture;	/* it is a capture file, not a raw stream */
	bool replay_damaged;	/* it goes bad before its end: read up to there */
	uint64_t losses;	/* LOSS records of the capture, overflows of the probe */
	/* The live reader: the trace port's or the probe's. */
	int tcp_fd;
	pthread_t thread;
	bool thread_started;
	bool source_closed;	/* the trace port closed or failed, the probe is gone */
	char source_error[256];
	/* The probe (--probe), used by its reader thread only once started. */
	struct spoor_source *probe;
	atomic_int probe_stop;	/* set to end the reader */
	uint64_t probe_next;	/* the trace offset the next data should have */
	uint64_t probe_bytes;	/* trace bytes the probe sent */
};

/*
 * Sets up @s with a fresh pipeline of @tcfg and a history of @blocks
 * blocks per source.  Returns 0, SPOOR_E_INVAL (bad pipeline configuration)
 * or SPOOR_E_NOMEM.
 */
int gs_state_init(struct gs_state *s, const struct spoor_trace_config *tcfg, size_t blocks);
void gs_state_free(struct gs_state *s);

/* Runs @len bytes through the pipeline (takes the lock).  Returns 0 or an error. */
int gs_state_feed(struct gs_state *s, const uint8_t *buf, size_t len);

/* At most this many bytes of a live trace are kept for 'monitor trace save'. */
#define GS_RAW_MAX (UINT64_C(1) << 30)

/*
 * Feeds the regular file @path whole and ends the stream (a FIFO, device or
 * directory is refused without reading it): a capture file (host/CAPTURE.md;
 * its LOSS records become gaps; a damaged one is read up to the bad record,
 * with a warning on stderr) or a raw stream.  Returns 0, or SPOOR_E_IO,
 * SPOOR_E_NOT_REGULAR, a capture's error or a pipeline error with @err
 * (@size bytes) saying why, the file named.
 */
int gs_state_load_file(struct gs_state *s, const char *path, char *err, size_t size);

/*
 * Connects to the trace port at @host_port ("HOST:PORT") and starts the
 * reader thread.  Returns 0, or SPOOR_E_IO with @err (@size bytes) saying why.
 */
int gs_state_start_tcp(struct gs_state *s, const char *host_port, char *err, size_t size);

/* Stops the trace port's reader thread, if any. */
void gs_state_stop_tcp(struct gs_state *s);

/* Waiting for an unplugged probe to come back, at most. */
#define GS_PROBE_RECONNECT_MS 10000
/* After STOP at shutdown: waiting for the probe's END, at most. */
#define GS_PROBE_DRAIN_MS 2000

/*
 * Opens the probe @spec (spoor_source_open(): usb[:SERIAL], ftdi[:SERIAL],
 * tcp:HOST:PORT), configures it with @pcfg, starts it and starts the reader
 * thread: data into the pipeline (and the raw copy), a loss as a gap with a
 * message, an unplug waited for GS_PROBE_RECONNECT_MS.  Returns 0, or a
 * negative spoor_error with @err (@size bytes) saying why, the probe named.
 */
int gs_state_start_probe(struct gs_state *s, const char *spec,
			 const struct spoor_probe_config *pcfg, char *err, size_t size);

/* Stops the probe (STOP, its END awaited GS_PROBE_DRAIN_MS at most), its reader, closes it. */
void gs_state_stop_probe(struct gs_state *s);

/*
 * Waits up to @timeout_ms for more than @stops ends of trace in total.
 * Returns true when they came.
 */
bool gs_state_wait_stops(struct gs_state *s, uint64_t stops, int timeout_ms);

/*
 * Writes every byte received so far to @path: the replayed file as it is (a
 * capture file stays one, its losses and header kept), or the live trace's
 * raw bytes (a probe's losses are not marked in them).  Returns 0,
 * SPOOR_E_IO (errno set) or SPOOR_E_TOO_BIG (a live trace longer than
 * GS_RAW_MAX).
 */
int gs_state_save(struct gs_state *s, const char *path);

/*
 * Resolves "HOST:PORT" (numeric IPv4 or a name) and connects; returns the
 * socket or -1 with @err set.
 */
int gs_connect(const char *host_port, char *err, size_t size);

#endif
