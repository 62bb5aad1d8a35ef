/* SPDX-License-Identifier: MIT */
/*
 * The trace behind the server, shared by its GDB sessions: the library
 * pipeline (spoor/trace.h) feeding the bounded history (spoor/history.h),
 * the raw bytes received (for "monitor trace save"), and the trace port
 * reader: a thread that decodes a TCP byte stream continuously.  One lock
 * guards all of it; a condition variable tells waiters that the decoder has
 * seen the end of a trace (the encoder's support packet when the hart
 * halted).
 */
#ifndef SPOOR_GS_STATE_H
#define SPOOR_GS_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "spoor/history.h"
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
	/* The trace port reader. */
	int tcp_fd;
	pthread_t thread;
	bool thread_started;
	bool source_closed;	/* the trace port closed or failed */
	char source_error[256];
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
 * directory is refused without reading it).  Returns 0, SPOOR_E_IO (errno
 * set), SPOOR_E_NOT_REGULAR or a pipeline error.
 */
int gs_state_load_file(struct gs_state *s, const char *path);

/*
 * Connects to the trace port at @host_port ("HOST:PORT") and starts the
 * reader thread.  Returns 0, or SPOOR_E_IO with @err (@size bytes) saying why.
 */
int gs_state_start_tcp(struct gs_state *s, const char *host_port, char *err, size_t size);

/* Stops the reader thread, if any. */
void gs_state_stop_tcp(struct gs_state *s);

/*
 * Waits up to @timeout_ms for more than @stops ends of trace in total.
 * Returns true when they came.
 */
bool gs_state_wait_stops(struct gs_state *s, uint64_t stops, int timeout_ms);

/*
 * Writes every byte received so far to @path (the replayed file's bytes, or
 * the live trace's).  Returns 0, SPOOR_E_IO (errno set) or SPOOR_E_TOO_BIG
 * (a live trace longer than GS_RAW_MAX).
 */
int gs_state_save(struct gs_state *s, const char *path);

/*
 * Resolves "HOST:PORT" (numeric IPv4 or a name) and connects; returns the
 * socket or -1 with @err set.
 */
int gs_connect(const char *host_port, char *err, size_t size);

#endif
