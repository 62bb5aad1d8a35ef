/* SPDX-License-Identifier: MIT */
/*
 * The probe firmware's portable core: the capture buffer and its overflow
 * accounting, the capture state machine, the vendor control requests, and
 * the bulk IN stream's records (probe/PROTOCOL.md).  No allocation, no I/O:
 * a port gives it memory, feeds it the trace port's bytes (from its DMA or
 * interrupt handler) and asks it for control replies and bulk transfers
 * (from its USB stack).  One producer (trace_in) and one consumer (the USB
 * side) may run concurrently only if the port serialises them; the sim port
 * calls everything from one thread.
 */
#ifndef SPOOR_FW_H
#define SPOOR_FW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spoor/probe.h"

#define SPOOR_FW_MARKS 16	/* overflow events held between two drains */

struct spoor_fw_mark {
	uint64_t at;		/* buffer position (bytes written so far) where bytes were lost */
	uint64_t offset;	/* trace offset of the first lost byte */
	uint64_t lost;		/* bytes lost there */
};

struct spoor_fw {
	/* Fixed at init. */
	uint8_t *buf;
	size_t size;			/* a power of two */
	struct spoor_probe_info info;
	/* Configuration and state. */
	struct spoor_probe_config cfg;
	uint32_t state;			/* enum spoor_probe_state */
	uint64_t head, tail;		/* bytes written to / read from the buffer, ever */
	uint64_t captured, lost;	/* trace bytes of this capture; of those lost */
	uint32_t overflows, high_water;
	struct spoor_fw_mark marks[SPOOR_FW_MARKS];
	unsigned nmarks;
	uint8_t seq;			/* the next record's sequence number */
	bool end_due;			/* STOP: an END record once the buffer is empty */
};

/*
 * Sets @fw up with @size bytes at @buf (a power of two, at least 64) as the
 * capture buffer and @info as what GET_INFO answers.  Returns 0 or
 * SPOOR_E_INVAL.
 */
int spoor_fw_init(struct spoor_fw *fw, uint8_t *buf, size_t size,
		  const struct spoor_probe_info *info);

/*
 * The trace port delivered @n bytes: into the buffer while capturing
 * (what does not fit is counted as lost, at its trace offset), dropped
 * otherwise.  Returns the bytes kept.
 */
size_t spoor_fw_trace_in(struct spoor_fw *fw, const uint8_t *b, size_t n);

/*
 * The port lost @n trace bytes before they reached the buffer (its own
 * FIFO or DMA overran): they are reported like a full buffer's, at their
 * trace offset.
 */
void spoor_fw_trace_lost(struct spoor_fw *fw, uint64_t n);

/*
 * A vendor control request @request with @len bytes of data at @data (OUT
 * requests) or room for @len bytes there (IN requests).  Returns the bytes
 * of an IN reply, 0 for an OUT request taken, or -1 to STALL.
 */
int spoor_fw_control(struct spoor_fw *fw, uint8_t request, uint8_t *data, size_t len);

/*
 * Fills the next bulk IN transfer (at most @max bytes, at least
 * SPOOR_PROBE_REC_HEADER + SPOOR_PROBE_OVERFLOW_SIZE) with whole records
 * from the buffer: DATA up to the next loss, the OVERFLOW record there,
 * after STOP the END record.  Returns the bytes written (0: nothing to send).
 */
size_t spoor_fw_bulk_in(struct spoor_fw *fw, uint8_t *out, size_t max);

/* Fills @st (what GET_STATUS answers). */
void spoor_fw_status(const struct spoor_fw *fw, struct spoor_probe_status *st);

#endif
