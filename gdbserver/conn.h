/* SPDX-License-Identifier: MIT */
/*
 * One end of a GDB remote-protocol link (to GDB, or to OpenOCD's GDB
 * port): a socket, the RSP decoder (protocols/rsp.h), the link's ack mode
 * and the last packet sent (resent on '-').  Reads wait with a time-out;
 * writes are bounded by the socket's send time-out.
 */
#ifndef SPOOR_GS_CONN_H
#define SPOOR_GS_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/rsp.h"

#define GS_CONN_BUF 65536

struct gs_conn {
	int fd;			/* -1 when closed */
	const char *name;	/* "GDB", "OpenOCD": for messages */
	struct spoor_rsp_decoder *rsp;
	bool noack;		/* QStartNoAckMode in force */
	bool pending;		/* inbuf holds a chunk the decoder has not finished */
	uint8_t inbuf[GS_CONN_BUF];
	uint8_t *last;		/* the last packet sent, as framed */
	size_t last_len, last_cap;
	uint64_t packets_in, packets_out, errors;
	bool log;		/* every packet to stderr (spoor gdbserver --verbose) */
};

/* Returns 0 after setting up @c on socket @fd (taken over), or SPOOR_E_NOMEM. */
int gs_conn_init(struct gs_conn *c, int fd, const char *name, size_t max_packet);

/* Closes the socket and frees the buffers; @c may be re-initialised. */
void gs_conn_close(struct gs_conn *c);

/*
 * Waits up to @timeout_ms (-1: no limit) for the next item from the peer.
 * Acknowledges packets in ack mode ('+', or '-' for a bad checksum) and
 * resends the last packet on '-'.  Returns the item's kind, 0 on time-out,
 * SPOOR_E_CLOSED (peer gone), SPOOR_E_IO.
 */
int gs_conn_next(struct gs_conn *c, struct spoor_rsp_item *it, int timeout_ms);

/* True when bytes from the peer are waiting to be decoded or read. */
bool gs_conn_ready(const struct gs_conn *c);

/* Sends "$@body#cc" (@len bytes).  Returns 0, SPOOR_E_IO or SPOOR_E_NOMEM. */
int gs_conn_send(struct gs_conn *c, const void *body, size_t len);

/* Sends the NUL-terminated @body as a packet. */
int gs_conn_send_str(struct gs_conn *c, const char *body);

/* Sends @len bytes as they are (a packet forwarded unchanged, an interrupt). */
int gs_conn_send_raw(struct gs_conn *c, const void *bytes, size_t len, bool is_packet);

#endif
