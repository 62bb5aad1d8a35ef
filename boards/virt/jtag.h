/* SPDX-License-Identifier: MIT */
/*
 * The virtual board's JTAG TAP (IEEE 1149.1 state machine) and RISC-V Debug
 * Transport Module (debug spec 0.13, chapter 6): IR length 5, IDCODE (0x01),
 * DTMCS (0x10, version 1, abits 7), DMI (0x11, 41 bits) and BYPASS (0x1f
 * and every other instruction).  DMI operations reach the Debug Module at
 * Update-DR and complete at once, so the DTM never reports busy.
 */
#ifndef SPOOR_JTAG_H
#define SPOOR_JTAG_H

#include <stdint.h>

#include "dm.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_jtag;

/* The IDCODE the TAP answers by default (version 1, part 0x0e31, JEP106 0x489). */
#define SPOOR_JTAG_IDCODE	0x10e31913u

/* Instructions. */
#define SPOOR_JTAG_IR_LEN	5
#define SPOOR_JTAG_IR_IDCODE	0x01
#define SPOOR_JTAG_IR_DTMCS	0x10
#define SPOOR_JTAG_IR_DMI	0x11
#define SPOOR_JTAG_IR_BYPASS	0x1f

/* DTM parameters. */
#define SPOOR_JTAG_ABITS	7
#define SPOOR_JTAG_DMI_LEN	(SPOOR_JTAG_ABITS + 34)
#define SPOOR_JTAG_DTMCS_DMIRESET	(1u << 16)
#define SPOOR_JTAG_DTMCS_DMIHARDRESET	(1u << 17)

/* DMI op field values (requests, and results as captured). */
#define SPOOR_JTAG_DMI_NOP	0
#define SPOOR_JTAG_DMI_READ	1
#define SPOOR_JTAG_DMI_WRITE	2
#define SPOOR_JTAG_DMI_FAILED	2
#define SPOOR_JTAG_DMI_BUSY	3

/* TAP controller states. */
enum spoor_jtag_state {
	SPOOR_JTAG_RESET = 0,	/* Test-Logic-Reset */
	SPOOR_JTAG_IDLE,	/* Run-Test/Idle */
	SPOOR_JTAG_SELECT_DR,
	SPOOR_JTAG_CAPTURE_DR,
	SPOOR_JTAG_SHIFT_DR,
	SPOOR_JTAG_EXIT1_DR,
	SPOOR_JTAG_PAUSE_DR,
	SPOOR_JTAG_EXIT2_DR,
	SPOOR_JTAG_UPDATE_DR,
	SPOOR_JTAG_SELECT_IR,
	SPOOR_JTAG_CAPTURE_IR,
	SPOOR_JTAG_SHIFT_IR,
	SPOOR_JTAG_EXIT1_IR,
	SPOOR_JTAG_PAUSE_IR,
	SPOOR_JTAG_EXIT2_IR,
	SPOOR_JTAG_UPDATE_IR,
};

/* Returns a TAP in Test-Logic-Reset whose DTM drives @dm (which must
 * outlive it), answering @idcode (bit 0 forced to 1), or NULL (no memory,
 * NULL @dm). */
struct spoor_jtag *spoor_jtag_new(struct spoor_dm *dm, uint32_t idcode);
void spoor_jtag_free(struct spoor_jtag *tap);

/*
 * Sets the TCK, TMS and TDI pins (0 or nonzero); a rising TCK edge clocks
 * the TAP.  Returns the TDO level (0 or 1) afterwards, or SPOOR_E_INVAL.
 */
int spoor_jtag_pins(struct spoor_jtag *tap, int tck, int tms, int tdi);

/* Returns the TDO level (0 or 1), or SPOOR_E_INVAL. */
int spoor_jtag_tdo(const struct spoor_jtag *tap);

/* Clocks one TCK cycle (low then high) with @tms and @tdi.  Returns the
 * TDO level sampled before the rising edge, or SPOOR_E_INVAL. */
int spoor_jtag_clock(struct spoor_jtag *tap, int tms, int tdi);

/* Drives TRST (@asserted: the TAP is held in Test-Logic-Reset) and the
 * system reset (@srst, passed to the Debug Module).  Returns 0 or
 * SPOOR_E_INVAL. */
int spoor_jtag_reset(struct spoor_jtag *tap, int trst, int srst);

/* Returns the TAP state (enum spoor_jtag_state), or SPOOR_E_INVAL. */
int spoor_jtag_state(const struct spoor_jtag *tap);

/* Returns the instruction register, or SPOOR_E_INVAL. */
int spoor_jtag_ir(const struct spoor_jtag *tap);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_JTAG_H */
