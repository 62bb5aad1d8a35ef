// SPDX-License-Identifier: MIT
/*
 * The virtual board's JTAG TAP and RISC-V DTM.  Capture and shift happen on
 * the rising TCK edge in the Capture and Shift states, update on entering
 * the Update states; TDO shows bit 0 of the shift register.
 */
#include <stdlib.h>

#include "spoor/error.h"
#include "jtag.h"

#define DMI_ADDR_MASK	((1u << SPOOR_JTAG_ABITS) - 1)
/* dtmcs.idle: Run-Test/Idle cycles a debugger should spend (a hint). */
#define DTMCS_IDLE	1

struct spoor_jtag {
	struct spoor_dm *dm;
	uint32_t idcode;
	enum spoor_jtag_state state;
	unsigned ir;
	uint64_t sr;		/* shift register of the selected IR or DR */
	unsigned sr_len;	/* its length in bits */
	int tck;		/* last TCK level */
	int trst;		/* TRST held */
	int tdo;
	/* DMI: the last operation's address, data and status. */
	unsigned dmi_addr;
	uint32_t dmi_data;
	unsigned dmi_status;	/* sticky dmistat */
};

/* Next state for each state, by TMS (IEEE 1149.1 figure 6-1). */
static const uint8_t next_state[16][2] = {
	[SPOOR_JTAG_RESET] = { SPOOR_JTAG_IDLE, SPOOR_JTAG_RESET },
	[SPOOR_JTAG_IDLE] = { SPOOR_JTAG_IDLE, SPOOR_JTAG_SELECT_DR },
	[SPOOR_JTAG_SELECT_DR] = { SPOOR_JTAG_CAPTURE_DR, SPOOR_JTAG_SELECT_IR },
	[SPOOR_JTAG_CAPTURE_DR] = { SPOOR_JTAG_SHIFT_DR, SPOOR_JTAG_EXIT1_DR },
	[SPOOR_JTAG_SHIFT_DR] = { SPOOR_JTAG_SHIFT_DR, SPOOR_JTAG_EXIT1_DR },
	[SPOOR_JTAG_EXIT1_DR] = { SPOOR_JTAG_PAUSE_DR, SPOOR_JTAG_UPDATE_DR },
	[SPOOR_JTAG_PAUSE_DR] = { SPOOR_JTAG_PAUSE_DR, SPOOR_JTAG_EXIT2_DR },
	[SPOOR_JTAG_EXIT2_DR] = { SPOOR_JTAG_SHIFT_DR, SPOOR_JTAG_UPDATE_DR },
	[SPOOR_JTAG_UPDATE_DR] = { SPOOR_JTAG_IDLE, SPOOR_JTAG_SELECT_DR },
	[SPOOR_JTAG_SELECT_IR] = { SPOOR_JTAG_CAPTURE_IR, SPOOR_JTAG_RESET },
	[SPOOR_JTAG_CAPTURE_IR] = { SPOOR_JTAG_SHIFT_IR, SPOOR_JTAG_EXIT1_IR },
	[SPOOR_JTAG_SHIFT_IR] = { SPOOR_JTAG_SHIFT_IR, SPOOR_JTAG_EXIT1_IR },
	[SPOOR_JTAG_EXIT1_IR] = { SPOOR_JTAG_PAUSE_IR, SPOOR_JTAG_UPDATE_IR },
	[SPOOR_JTAG_PAUSE_IR] = { SPOOR_JTAG_PAUSE_IR, SPOOR_JTAG_EXIT2_IR },
	[SPOOR_JTAG_EXIT2_IR] = { SPOOR_JTAG_SHIFT_IR, SPOOR_JTAG_UPDATE_IR },
	[SPOOR_JTAG_UPDATE_IR] = { SPOOR_JTAG_IDLE, SPOOR_JTAG_SELECT_DR },
};

/* Enters Test-Logic-Reset: IDCODE selected; returns nothing. */
static void tap_reset(struct spoor_jtag *tap)
{
	tap->state = SPOOR_JTAG_RESET;
	tap->ir = SPOOR_JTAG_IR_IDCODE;
}

struct spoor_jtag *spoor_jtag_new(struct spoor_dm *dm, uint32_t idcode)
{
	struct spoor_jtag *tap;

	if (!dm)
		return NULL;
	tap = calloc(1, sizeof(*tap));
	if (!tap)
		return NULL;
	tap->dm = dm;
	tap->idcode = idcode | 1;
	tap_reset(tap);
	return tap;
}

void spoor_jtag_free(struct spoor_jtag *tap)
{
	free(tap);
}

/* Returns the length in bits of the data register the IR selects. */
static unsigned dr_length(const struct spoor_jtag *tap)
{
	switch (tap->ir) {
	case SPOOR_JTAG_IR_IDCODE:
	case SPOOR_JTAG_IR_DTMCS:
		return 32;
	case SPOOR_JTAG_IR_DMI:
		return SPOOR_JTAG_DMI_LEN;
	}
	return 1;
}

/* Returns the dtmcs value. */
static uint32_t dtmcs(const struct spoor_jtag *tap)
{
	return DTMCS_IDLE << 12 | tap->dmi_status << 10 | SPOOR_JTAG_ABITS << 4 | 1;
}

/* Returns the value the selected data register captures. */
static uint64_t dr_capture(const struct spoor_jtag *tap)
{
	switch (tap->ir) {
	case SPOOR_JTAG_IR_IDCODE:
		return tap->idcode;
	case SPOOR_JTAG_IR_DTMCS:
		return dtmcs(tap);
	case SPOOR_JTAG_IR_DMI:
		return (uint64_t)tap->dmi_addr << 34 | (uint64_t)tap->dmi_data << 2 |
		       tap->dmi_status;
	}
	return 0;
}

/* Carries out the DMI operation in @dr at Update-DR; returns nothing. */
static void dmi_update(struct spoor_jtag *tap, uint64_t dr)
{
	unsigned op = dr & 3;
	uint32_t data = (uint32_t)(dr >> 2);
	unsigned addr = (unsigned)(dr >> 34) & DMI_ADDR_MASK;

	if (tap->dmi_status || op == SPOOR_JTAG_DMI_NOP)
		return;
	tap->dmi_addr = addr;
	if (op == SPOOR_JTAG_DMI_READ) {
		spoor_dm_read(tap->dm, addr, &tap->dmi_data);
	} else if (op == SPOOR_JTAG_DMI_WRITE) {
		tap->dmi_data = data;
		spoor_dm_write(tap->dm, addr, data);
	} else {
		tap->dmi_status = SPOOR_JTAG_DMI_FAILED;	/* reserved op */
	}
}

/* Carries out an Update-DR of @dr; returns nothing. */
static void dr_update(struct spoor_jtag *tap, uint64_t dr)
{
	if (tap->ir == SPOOR_JTAG_IR_DMI) {
		dmi_update(tap, dr);
	} else if (tap->ir == SPOOR_JTAG_IR_DTMCS) {
		if (dr & (SPOOR_JTAG_DTMCS_DMIRESET | SPOOR_JTAG_DTMCS_DMIHARDRESET))
			tap->dmi_status = 0;
	}
}

/* Shifts @tdi into the shift register's top bit; returns nothing. */
static void shift(struct spoor_jtag *tap, int tdi)
{
	tap->sr >>= 1;
	if (tdi)
		tap->sr |= 1ull << (tap->sr_len - 1);
}

/* Carries out the action of the current state at a rising TCK edge; returns nothing. */
static void rising_action(struct spoor_jtag *tap, int tdi)
{
	switch (tap->state) {
	case SPOOR_JTAG_CAPTURE_DR:
		tap->sr_len = dr_length(tap);
		tap->sr = dr_capture(tap);
		break;
	case SPOOR_JTAG_CAPTURE_IR:
		tap->sr_len = SPOOR_JTAG_IR_LEN;
		tap->sr = 1;	/* 0b00001: the low bits 01 as 1149.1 requires */
		break;
	case SPOOR_JTAG_SHIFT_DR:
	case SPOOR_JTAG_SHIFT_IR:
		shift(tap, tdi);
		break;
	default:
		break;
	}
}

/* Carries out the action of entering the new state; returns nothing. */
static void enter_action(struct spoor_jtag *tap)
{
	switch (tap->state) {
	case SPOOR_JTAG_RESET:
		tap_reset(tap);
		break;
	case SPOOR_JTAG_UPDATE_DR:
		dr_update(tap, tap->sr);
		break;
	case SPOOR_JTAG_UPDATE_IR:
		tap->ir = (unsigned)tap->sr & ((1u << SPOOR_JTAG_IR_LEN) - 1);
		break;
	default:
		break;
	}
}

/* Clocks the TAP on a rising TCK edge with @tms and @tdi; returns nothing. */
static void rising_edge(struct spoor_jtag *tap, int tms, int tdi)
{
	rising_action(tap, tdi);
	tap->state = next_state[tap->state][tms];
	enter_action(tap);
	if (tap->state == SPOOR_JTAG_SHIFT_DR || tap->state == SPOOR_JTAG_SHIFT_IR)
		tap->tdo = (int)(tap->sr & 1);
}

int spoor_jtag_pins(struct spoor_jtag *tap, int tck, int tms, int tdi)
{
	if (!tap)
		return SPOOR_E_INVAL;
	tck = !!tck;
	if (tck && !tap->tck && !tap->trst)
		rising_edge(tap, !!tms, !!tdi);
	tap->tck = tck;
	return tap->tdo;
}

int spoor_jtag_tdo(const struct spoor_jtag *tap)
{
	if (!tap)
		return SPOOR_E_INVAL;
	return tap->tdo;
}

int spoor_jtag_clock(struct spoor_jtag *tap, int tms, int tdi)
{
	int tdo = spoor_jtag_pins(tap, 0, tms, tdi);

	if (tdo < 0)
		return tdo;
	spoor_jtag_pins(tap, 1, tms, tdi);
	return tdo;
}

int spoor_jtag_reset(struct spoor_jtag *tap, int trst, int srst)
{
	if (!tap)
		return SPOOR_E_INVAL;
	tap->trst = !!trst;
	if (tap->trst)
		tap_reset(tap);
	return spoor_dm_set_reset(tap->dm, srst);
}

int spoor_jtag_state(const struct spoor_jtag *tap)
{
	if (!tap)
		return SPOOR_E_INVAL;
	return (int)tap->state;
}

int spoor_jtag_ir(const struct spoor_jtag *tap)
{
	if (!tap)
		return SPOOR_E_INVAL;
	return (int)tap->ir;
}
