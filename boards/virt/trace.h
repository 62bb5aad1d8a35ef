/* SPDX-License-Identifier: MIT */
/*
 * The virtual board's trace subsystem: an E-Trace encoder fed from the
 * hart's retirement events, controlled through the RISC-V Trace Control
 * Interface registers (ratified 1.0), with two sinks:
 *
 *   base + 0x0000  Trace Encoder: trTeControl, trTeImpl, trTeInstFeatures
 *   base + 0x1000  RAM Sink (SMEM mode): trRamControl, trRamImpl,
 *                  trRamStart, trRamLimit, trRamWP (wrap flag in bit 0)
 *   base + 0x2000  PIB Sink: trPibControl, trPibImpl
 *
 * A debugger configures and starts tracing by writing these registers
 * (through OpenOCD's system bus access), and reads the RAM sink's buffer
 * back as memory.  The PIB sink hands the encapsulated byte stream to a
 * callback, as a probe receives it from the trace port pins.
 *
 * Tracing stops when the hart halts in Debug Mode: the encoder reports the
 * last retired instruction and an end-of-trace support packet, and it
 * starts again with a support and a sync packet when the hart resumes, so
 * a host decodes exactly up to the halted pc.
 */
#ifndef SPOOR_VIRT_TRACE_H
#define SPOOR_VIRT_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "iss.h"
#include "spoor/encap.h"
#include "spoor/encoder.h"
#include "spoor/params.h"

#define SPOOR_VTRACE_SIZE	0x3000u		/* the register window */
#define SPOOR_VTRACE_TE		0x0000u
#define SPOOR_VTRACE_RAM	0x1000u
#define SPOOR_VTRACE_PIB	0x2000u

/* Register offsets within a component. */
#define TR_CONTROL		0x000
#define TR_IMPL			0x004
#define TR_TE_INST_FEATURES	0x008
#define TR_RAM_START_LOW	0x010
#define TR_RAM_START_HIGH	0x014
#define TR_RAM_LIMIT_LOW	0x018
#define TR_RAM_LIMIT_HIGH	0x01c
#define TR_RAM_WP_LOW		0x020
#define TR_RAM_WP_HIGH		0x024
/* The encoder's timestamp unit (Trace Control Interface, "Timestamp"). */
#define TR_TS_CONTROL		0x040
#define TR_TS_COUNTER_LOW	0x044
#define TR_TS_COUNTER_HIGH	0x048

/* trTeControl fields. */
#define TR_TE_ACTIVE		(1u << 0)
#define TR_TE_ENABLE		(1u << 1)
#define TR_TE_INST_TRACING	(1u << 2)
#define TR_TE_EMPTY		(1u << 3)
#define TR_TE_INST_MODE_SHIFT	4	/* 3: baseline instruction trace */
#define TR_TE_INHIBIT_SRC	(1u << 15)
#define TR_TE_SYNC_MODE_SHIFT	16	/* 1: count packets */
#define TR_TE_SYNC_MAX_SHIFT	20	/* sync after 2^(max + 4) packets */
/* trTeInstFeatures fields. */
#define TR_TE_NO_ADDR_DIFF	(1u << 0)	/* full address */
#define TR_TE_NO_TRAP_ADDR	(1u << 1)	/* implicit exception */
#define TR_TE_EN_SIJUMP		(1u << 2)
#define TR_TE_EN_IMPLICIT_RET	(1u << 3)
#define TR_TE_EN_BRANCH_PRED	(1u << 4)
#define TR_TE_EN_JTC		(1u << 5)
#define TR_TE_SRC_ID_SHIFT	16
#define TR_TE_SRC_BITS_SHIFT	28
/*
 * trTsControl fields.  The unit is of the internal-core type: it counts the
 * hart's clock, one tick per retired instruction on this board (the ISS
 * retires one instruction a cycle), divided by 4^prescale; with
 * trTsEnable every te_inst frame carries its low ts_bytes bytes.
 */
#define TR_TS_ACTIVE		(1u << 0)
#define TR_TS_COUNT		(1u << 1)
#define TR_TS_RESET		(1u << 2)	/* write 1: the counter restarts at 0 */
#define TR_TS_RUN_IN_DEBUG	(1u << 3)
#define TR_TS_MODE_SHIFT	4		/* 3: internal core clock */
#define TR_TS_PRESCALE_SHIFT	8		/* 2 bits: divide by 1, 4, 16, 64 */
#define TR_TS_ENABLE		(1u << 15)	/* timestamps in the trace */
#define TR_TS_WIDTH_SHIFT	24		/* 6 bits: the counter's width */
/* Sink control fields. */
#define TR_SINK_ACTIVE		(1u << 0)
#define TR_SINK_ENABLE		(1u << 1)
#define TR_SINK_EMPTY		(1u << 3)
#define TR_RAM_MODE_SMEM	(1u << 4)
#define TR_RAM_STOP_ON_WRAP	(1u << 8)

struct spoor_vtrace_config {
	const struct spoor_params *params;	/* must outlive the trace unit */
	struct spoor_encap_config encap;	/* how packets are wrapped (srcID: trTeSrcID) */
	uint32_t features;	/* trTeInstFeatures option bits the hardware supports */
	unsigned xlen;		/* the hart's XLEN (for compressed instruction classes) */
	/* PIB sink output: called with each run of encapsulated bytes. */
	void (*pib_out)(void *ctx, const uint8_t *bytes, size_t len);
	void *pib_ctx;
};

struct spoor_vtrace;

/* Returns a new trace unit (inactive, as after reset) for @iss, or NULL. */
struct spoor_vtrace *spoor_vtrace_new(const struct spoor_vtrace_config *cfg, struct spoor_iss *iss);
void spoor_vtrace_free(struct spoor_vtrace *tr);

/* The hart's event hook: feeds the encoder while tracing. */
void spoor_vtrace_event(void *tr, const struct spoor_iss_event *ev);

/*
 * Register access at @offset within the window (32-bit registers; 64-bit
 * accesses read/write a low/high pair).  Returns 0 or SPOOR_E_ACCESS.
 */
int spoor_vtrace_read(struct spoor_vtrace *tr, uint64_t offset, unsigned size, uint64_t *value);
int spoor_vtrace_write(struct spoor_vtrace *tr, uint64_t offset, unsigned size, uint64_t value);

/* Returns the encoder options (enum spoor_option) that trTeInstFeatures @features selects. */
uint32_t spoor_vtrace_feature_options(uint32_t features);

/* Returns the trTeInstFeatures bits that select encoder options @options. */
uint32_t spoor_vtrace_option_features(uint32_t options);

/* Tells the trace unit the hart halted (tracing pauses, the trace so far is
 * completed and flushed) or resumed (tracing restarts with a sync). */
void spoor_vtrace_halted(struct spoor_vtrace *tr, bool halted);

struct spoor_vtrace_stats {
	uint64_t records;	/* ingress records given to the encoder */
	uint64_t packets;	/* te_inst packets sent */
	uint64_t bytes;		/* encapsulated bytes sent to the sinks */
	uint64_t ram_bytes;	/* bytes written to the RAM sink */
	uint64_t ram_wraps;
};

void spoor_vtrace_stats(const struct spoor_vtrace *tr, struct spoor_vtrace_stats *st);

#endif
