// SPDX-License-Identifier: MIT
/*
 * Tests of the virtual board's debug path: the JTAG TAP and DTM driven bit
 * by bit with the remote_bitbang byte protocol (in-process, exactly the
 * byte sequence OpenOCD sends), the Debug Module behind them on a real
 * simulator (RV32 and RV64), and the TCP server.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "spoor/error.h"
#include "bitbang.h"
#include "check.h"
#include "dm.h"
#include "iss.h"
#include "jtag.h"

/* A board with its debug path. */
struct rig {
	struct spoor_iss *iss;
	struct spoor_dm *dm;
	struct spoor_jtag *tap;
	unsigned xlen;
};

/* Instructions of the little test programs. */
#define ADDI_A0_1	0x00150513u	/* addi a0, a0, 1 */
#define EBREAK		0x00100073u
#define JUMP_SELF	0x0000006fu	/* j . */

#define RAM		0x80000000u
#define DCSR_CAUSE(v)	(((v) >> 6) & 7)

/* Builds a board of @xlen bits; returns 0 or -1. */
static int rig_open(struct rig *r, unsigned xlen)
{
	struct spoor_iss_config cfg = { .xlen = xlen, .ram_size = 1u << 20 };

	memset(r, 0, sizeof(*r));
	r->xlen = xlen;
	r->iss = spoor_iss_new(&cfg);
	r->dm = r->iss ? spoor_dm_new(r->iss) : NULL;
	r->tap = r->dm ? spoor_jtag_new(r->dm, SPOOR_JTAG_IDCODE) : NULL;
	return r->tap ? 0 : -1;
}

/* Frees the board; returns nothing. */
static void rig_close(struct rig *r)
{
	spoor_jtag_free(r->tap);
	spoor_dm_free(r->dm);
	spoor_iss_free(r->iss);
}

/* Feeds bitbang bytes @s; returns the number of answers (stored in @ans). */
static int feed(struct rig *r, const char *s, char *ans)
{
	uint8_t out[64];
	size_t len = strlen(s);
	int n;

	if (len > sizeof(out))
		return -1;
	n = spoor_bitbang_process(r->tap, (const uint8_t *)s, len, out, NULL);
	if (ans && n > 0) {
		memcpy(ans, out, (size_t)n);
		ans[n] = 0;
	}
	return n;
}

/* One TCK cycle as OpenOCD's bitbang driver does it; returns TDO before the edge. */
static int clock_bit(struct rig *r, int tms, int tdi)
{
	char seq[4] = { (char)('0' + (tms << 1 | tdi)), 'R', (char)('4' + (tms << 1 | tdi)), 0 };
	char ans[4] = "";

	if (feed(r, seq, ans) != 1)
		return -1;
	return ans[0] == '1';
}

/* Clocks the TMS bits @tms (LSB first, @n of them) with TDI 0; returns nothing. */
static void tms_seq(struct rig *r, unsigned tms, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		clock_bit(r, (tms >> i) & 1, 0);
}

/* Resets the TAP and goes to Run-Test/Idle; returns nothing. */
static void tap_reset(struct rig *r)
{
	tms_seq(r, 0x1f, 6);	/* five 1s, then a 0 */
}

/* Shifts @len bits of @out through the selected register (Shift state on
 * entry, Exit1 on return); returns the bits shifted out. */
static uint64_t shift_bits(struct rig *r, uint64_t out, unsigned len)
{
	uint64_t in = 0;

	for (unsigned i = 0; i < len; i++) {
		int last = i + 1 == len;

		in |= (uint64_t)clock_bit(r, last, (int)((out >> i) & 1)) << i;
	}
	return in;
}

/* Scans @ir into IR from Run-Test/Idle back to it; returns the captured IR bits. */
static unsigned ir_scan(struct rig *r, unsigned ir)
{
	unsigned in;

	tms_seq(r, 0x3, 4);	/* Select-DR, Select-IR, Capture-IR, Shift-IR */
	in = (unsigned)shift_bits(r, ir, SPOOR_JTAG_IR_LEN);
	tms_seq(r, 0x1, 2);	/* Update-IR, Run-Test/Idle */
	return in;
}

/* Scans @len bits of @out through the DR from Run-Test/Idle back to it; returns the captured bits. */
static uint64_t dr_scan(struct rig *r, uint64_t out, unsigned len)
{
	uint64_t in;

	tms_seq(r, 0x1, 3);	/* Select-DR, Capture-DR, Shift-DR */
	in = shift_bits(r, out, len);
	tms_seq(r, 0x1, 2);	/* Update-DR, Run-Test/Idle */
	return in;
}

/* Scans one DMI request; returns the captured (previous) result. */
static uint64_t dmi_scan(struct rig *r, unsigned op, unsigned addr, uint32_t data)
{
	uint64_t v = (uint64_t)addr << 34 | (uint64_t)data << 2 | op;

	return dr_scan(r, v, SPOOR_JTAG_DMI_LEN);
}

/* Reads DM register @addr over the DMI (IR must be DMI); returns its value. */
static uint32_t dmi_read(struct rig *r, unsigned addr)
{
	uint64_t in;

	dmi_scan(r, SPOOR_JTAG_DMI_READ, addr, 0);
	in = dmi_scan(r, SPOOR_JTAG_DMI_NOP, 0, 0);
	CHECK_EQ(in & 3, 0);
	CHECK_EQ((in >> 34) & 0x7f, addr);
	return (uint32_t)(in >> 2);
}

/* Writes @v to DM register @addr over the DMI; returns nothing. */
static void dmi_write(struct rig *r, unsigned addr, uint32_t v)
{
	uint64_t in;

	dmi_scan(r, SPOOR_JTAG_DMI_WRITE, addr, v);
	in = dmi_scan(r, SPOOR_JTAG_DMI_NOP, 0, 0);
	CHECK_EQ(in & 3, 0);
}

/* Resets the TAP, selects the DMI and activates the DM; returns nothing. */
static void dm_up(struct rig *r)
{
	tap_reset(r);
	ir_scan(r, SPOOR_JTAG_IR_DMI);
	dmi_write(r, SPOOR_DM_DMCONTROL, 0);
	dmi_write(r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE);
}

/* Returns abstractcs.cmderr. */
static unsigned cmderr(struct rig *r)
{
	return (dmi_read(r, SPOOR_DM_ABSTRACTCS) >> SPOOR_DM_ABSTRACTCS_CMDERR_SHIFT) & 7;
}

/* Clears cmderr; returns nothing. */
static void clear_cmderr(struct rig *r)
{
	dmi_write(r, SPOOR_DM_ABSTRACTCS, SPOOR_DM_ABSTRACTCS_CMDERR);
}

/* Returns the Access Register command for @regno of @bits with @flags. */
static uint32_t ac(unsigned regno, unsigned bits, uint32_t flags)
{
	return (bits == 64 ? SPOOR_DM_AC_AARSIZE_64 : SPOOR_DM_AC_AARSIZE_32) |
	       SPOOR_DM_AC_TRANSFER | flags | regno;
}

/* Reads register @regno with an abstract command; returns its value (cmderr in *@err). */
static uint64_t reg_get(struct rig *r, unsigned regno, unsigned *err)
{
	uint64_t v;

	dmi_write(r, SPOOR_DM_COMMAND, ac(regno, r->xlen, 0));
	*err = cmderr(r);
	v = dmi_read(r, SPOOR_DM_DATA0);
	if (r->xlen == 64)
		v |= (uint64_t)dmi_read(r, SPOOR_DM_DATA1) << 32;
	return v;
}

/* Writes @v to register @regno with an abstract command; returns cmderr. */
static unsigned reg_set(struct rig *r, unsigned regno, uint64_t v)
{
	dmi_write(r, SPOOR_DM_DATA0, (uint32_t)v);
	if (r->xlen == 64)
		dmi_write(r, SPOOR_DM_DATA1, (uint32_t)(v >> 32));
	dmi_write(r, SPOOR_DM_COMMAND, ac(regno, r->xlen, SPOOR_DM_AC_WRITE));
	return cmderr(r);
}

/* Returns dmstatus. */
static uint32_t status(struct rig *r)
{
	return dmi_read(r, SPOOR_DM_DMSTATUS);
}

/* Halts the hart with haltreq (and clears it); returns nothing. */
static void halt(struct rig *r)
{
	dmi_write(r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE | SPOOR_DM_DMCONTROL_HALTREQ);
	CHECK(status(r) & SPOOR_DM_DMSTATUS_ALLHALTED);
	dmi_write(r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE);
}

/* Resumes the hart with resumereq; returns nothing. */
static void resume(struct rig *r)
{
	dmi_write(r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE | SPOOR_DM_DMCONTROL_RESUMEREQ);
	CHECK(status(r) & SPOOR_DM_DMSTATUS_ALLRESUMEACK);
	dmi_write(r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE);
}

/* Stores the 32-bit words @w (@n of them) at @addr in RAM; returns nothing. */
static void put_words(struct rig *r, uint64_t addr, const uint32_t *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		CHECK_EQ(spoor_iss_bus_write(r->iss, addr + 4 * i, 4, w[i]), 0);
}

/* The TAP state machine: every state and transition reachable, TLR from anywhere. */
static void test_tap_states(void)
{
	/* From each state, TMS 0 and 1 (IEEE 1149.1). */
	static const uint8_t path[][3] = {
		{ SPOOR_JTAG_RESET, 0, SPOOR_JTAG_IDLE },
		{ SPOOR_JTAG_IDLE, 0, SPOOR_JTAG_IDLE },
		{ SPOOR_JTAG_IDLE, 1, SPOOR_JTAG_SELECT_DR },
		{ SPOOR_JTAG_SELECT_DR, 0, SPOOR_JTAG_CAPTURE_DR },
		{ SPOOR_JTAG_CAPTURE_DR, 0, SPOOR_JTAG_SHIFT_DR },
		{ SPOOR_JTAG_SHIFT_DR, 0, SPOOR_JTAG_SHIFT_DR },
		{ SPOOR_JTAG_SHIFT_DR, 1, SPOOR_JTAG_EXIT1_DR },
		{ SPOOR_JTAG_EXIT1_DR, 0, SPOOR_JTAG_PAUSE_DR },
		{ SPOOR_JTAG_PAUSE_DR, 0, SPOOR_JTAG_PAUSE_DR },
		{ SPOOR_JTAG_PAUSE_DR, 1, SPOOR_JTAG_EXIT2_DR },
		{ SPOOR_JTAG_EXIT2_DR, 0, SPOOR_JTAG_SHIFT_DR },
		{ SPOOR_JTAG_SHIFT_DR, 1, SPOOR_JTAG_EXIT1_DR },
		{ SPOOR_JTAG_EXIT1_DR, 1, SPOOR_JTAG_UPDATE_DR },
		{ SPOOR_JTAG_UPDATE_DR, 1, SPOOR_JTAG_SELECT_DR },
		{ SPOOR_JTAG_SELECT_DR, 1, SPOOR_JTAG_SELECT_IR },
		{ SPOOR_JTAG_SELECT_IR, 0, SPOOR_JTAG_CAPTURE_IR },
		{ SPOOR_JTAG_CAPTURE_IR, 1, SPOOR_JTAG_EXIT1_IR },
		{ SPOOR_JTAG_EXIT1_IR, 0, SPOOR_JTAG_PAUSE_IR },
		{ SPOOR_JTAG_PAUSE_IR, 1, SPOOR_JTAG_EXIT2_IR },
		{ SPOOR_JTAG_EXIT2_IR, 0, SPOOR_JTAG_SHIFT_IR },
		{ SPOOR_JTAG_SHIFT_IR, 1, SPOOR_JTAG_EXIT1_IR },
		{ SPOOR_JTAG_EXIT1_IR, 1, SPOOR_JTAG_UPDATE_IR },
		{ SPOOR_JTAG_UPDATE_IR, 0, SPOOR_JTAG_IDLE },
		{ SPOOR_JTAG_IDLE, 1, SPOOR_JTAG_SELECT_DR },
		{ SPOOR_JTAG_SELECT_DR, 1, SPOOR_JTAG_SELECT_IR },
		{ SPOOR_JTAG_SELECT_IR, 1, SPOOR_JTAG_RESET },
		{ SPOOR_JTAG_RESET, 1, SPOOR_JTAG_RESET },
	};
	/* TMS bits (LSB first) and their number from Test-Logic-Reset to each state. */
	static const uint8_t reach[16][2] = {
		[SPOOR_JTAG_RESET] = { 0x00, 0 },
		[SPOOR_JTAG_IDLE] = { 0x00, 1 },
		[SPOOR_JTAG_SELECT_DR] = { 0x02, 2 },
		[SPOOR_JTAG_CAPTURE_DR] = { 0x02, 3 },
		[SPOOR_JTAG_SHIFT_DR] = { 0x02, 4 },
		[SPOOR_JTAG_EXIT1_DR] = { 0x0a, 4 },
		[SPOOR_JTAG_PAUSE_DR] = { 0x0a, 5 },
		[SPOOR_JTAG_EXIT2_DR] = { 0x2a, 6 },
		[SPOOR_JTAG_UPDATE_DR] = { 0x1a, 5 },
		[SPOOR_JTAG_SELECT_IR] = { 0x06, 3 },
		[SPOOR_JTAG_CAPTURE_IR] = { 0x06, 4 },
		[SPOOR_JTAG_SHIFT_IR] = { 0x06, 5 },
		[SPOOR_JTAG_EXIT1_IR] = { 0x16, 5 },
		[SPOOR_JTAG_PAUSE_IR] = { 0x16, 6 },
		[SPOOR_JTAG_EXIT2_IR] = { 0x56, 7 },
		[SPOOR_JTAG_UPDATE_IR] = { 0x36, 6 },
	};
	struct rig r;

	if (rig_open(&r, 64)) {
		CHECK(0);
		return;
	}
	CHECK_EQ(spoor_jtag_state(r.tap), SPOOR_JTAG_RESET);
	for (size_t i = 0; i < sizeof(path) / sizeof(path[0]); i++) {
		CHECK_EQ(spoor_jtag_state(r.tap), path[i][0]);
		clock_bit(&r, path[i][1], 0);
		CHECK_EQ(spoor_jtag_state(r.tap), path[i][2]);
	}
	/* Five TMS 1s reach Test-Logic-Reset from every state. */
	for (unsigned s = 0; s < 16; s++) {
		tap_reset(&r);
		tms_seq(&r, 0x1f, 5);
		tms_seq(&r, reach[s][0], reach[s][1]);
		CHECK_EQ(spoor_jtag_state(r.tap), s);
		tms_seq(&r, 0x1f, 5);
		CHECK_EQ(spoor_jtag_state(r.tap), SPOOR_JTAG_RESET);
		CHECK_EQ(spoor_jtag_ir(r.tap), SPOOR_JTAG_IR_IDCODE);
	}
	/* Pins without a rising edge do nothing; TRST resets. */
	tap_reset(&r);
	CHECK_EQ(feed(&r, "2222", NULL), 0);
	CHECK_EQ(spoor_jtag_state(r.tap), SPOOR_JTAG_IDLE);
	CHECK_EQ(feed(&r, "26", NULL), 0);
	CHECK_EQ(spoor_jtag_state(r.tap), SPOOR_JTAG_SELECT_DR);
	CHECK_EQ(feed(&r, "tr", NULL), 0);
	CHECK_EQ(spoor_jtag_state(r.tap), SPOOR_JTAG_RESET);
	rig_close(&r);
}

/* IDCODE after reset, the IR capture value, BYPASS, DTMCS. */
static void test_tap_registers(void)
{
	struct rig r;
	uint32_t dtmcs;

	if (rig_open(&r, 64)) {
		CHECK(0);
		return;
	}
	tap_reset(&r);
	CHECK_EQ(dr_scan(&r, 0, 32), SPOOR_JTAG_IDCODE);
	CHECK_EQ(ir_scan(&r, SPOOR_JTAG_IR_BYPASS) & 3, 1);
	/* BYPASS: one bit, captured as 0, so the pattern comes out one late. */
	CHECK_EQ(dr_scan(&r, 0xa5, 9), 0xa5u << 1);
	CHECK_EQ(ir_scan(&r, 0x07), 0x01);	/* unknown instruction: BYPASS */
	CHECK_EQ(dr_scan(&r, 0x3, 3), 0x6);
	ir_scan(&r, SPOOR_JTAG_IR_IDCODE);
	CHECK_EQ(dr_scan(&r, 0xffffffff, 32), SPOOR_JTAG_IDCODE);
	ir_scan(&r, SPOOR_JTAG_IR_DTMCS);
	dtmcs = (uint32_t)dr_scan(&r, 0, 32);
	CHECK_EQ(dtmcs & 0xf, 1);			/* version 0.13 */
	CHECK_EQ((dtmcs >> 4) & 0x3f, SPOOR_JTAG_ABITS);
	CHECK_EQ((dtmcs >> 10) & 3, 0);			/* dmistat */
	CHECK((dtmcs >> 12) & 7);			/* idle hint */
	CHECK_EQ(dr_scan(&r, SPOOR_JTAG_DTMCS_DMIRESET, 32), dtmcs);
	/* Pause-DR in the middle of a scan keeps the shift register. */
	ir_scan(&r, SPOOR_JTAG_IR_IDCODE);
	tms_seq(&r, 0x1, 3);
	CHECK_EQ(shift_bits(&r, 0, 16), SPOOR_JTAG_IDCODE & 0xffff);
	tms_seq(&r, 0x2, 3);	/* Pause-DR, Exit2-DR, Shift-DR */
	CHECK_EQ(shift_bits(&r, 0, 16), SPOOR_JTAG_IDCODE >> 16);
	tms_seq(&r, 0x1, 2);
	CHECK_EQ(feed(&r, "BbR", NULL), 1);
	rig_close(&r);
}

/* dmcontrol/dmstatus: activation, hartsel, havereset, halt, resume. */
static void test_dm_control(void)
{
	struct rig r;
	uint32_t v;

	if (rig_open(&r, 64)) {
		CHECK(0);
		return;
	}
	tap_reset(&r);
	ir_scan(&r, SPOOR_JTAG_IR_DMI);
	CHECK_EQ(dmi_read(&r, SPOOR_DM_DMCONTROL), 0);
	dmi_write(&r, SPOOR_DM_DATA0, 0x1234);	/* ignored while inactive */
	dmi_write(&r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE);
	CHECK_EQ(dmi_read(&r, SPOOR_DM_DMCONTROL), SPOOR_DM_DMCONTROL_DMACTIVE);
	CHECK_EQ(dmi_read(&r, SPOOR_DM_DATA0), 0);
	v = status(&r);
	CHECK_EQ(v & SPOOR_DM_DMSTATUS_VERSION, 2);
	CHECK(v & SPOOR_DM_DMSTATUS_AUTHENTICATED);
	CHECK(v & SPOOR_DM_DMSTATUS_ALLRUNNING);
	CHECK(v & SPOOR_DM_DMSTATUS_ANYRUNNING);
	CHECK(!(v & SPOOR_DM_DMSTATUS_ANYHALTED));
	CHECK(v & SPOOR_DM_DMSTATUS_ALLHAVERESET);
	CHECK(!(v & SPOOR_DM_DMSTATUS_ANYNONEXISTENT));
	v = dmi_read(&r, SPOOR_DM_ABSTRACTCS);
	CHECK_EQ(v & SPOOR_DM_ABSTRACTCS_DATACOUNT, 2);
	CHECK_EQ(v >> SPOOR_DM_ABSTRACTCS_PROGBUFSIZE_SHIFT, 0);
	CHECK(!(v & SPOOR_DM_ABSTRACTCS_BUSY));

	/* hartsel: 10 bits, only hart 0 exists. */
	dmi_write(&r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE |
		  SPOOR_DM_DMCONTROL_HARTSELLO | SPOOR_DM_DMCONTROL_HARTSELHI);
	CHECK_EQ(dmi_read(&r, SPOOR_DM_DMCONTROL),
		 SPOOR_DM_DMCONTROL_DMACTIVE | SPOOR_DM_DMCONTROL_HARTSELLO);
	v = status(&r);
	CHECK(v & SPOOR_DM_DMSTATUS_ALLNONEXISTENT);
	CHECK(v & SPOOR_DM_DMSTATUS_ANYNONEXISTENT);
	CHECK(!(v & (SPOOR_DM_DMSTATUS_ANYRUNNING | SPOOR_DM_DMSTATUS_ANYHALTED)));
	dmi_write(&r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE | 1u << 16 |
		  SPOOR_DM_DMCONTROL_HALTREQ);
	CHECK_EQ(spoor_iss_halted(r.iss), 0);	/* hart 1 does not exist */

	/* ackhavereset. */
	dmi_write(&r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE |
		  SPOOR_DM_DMCONTROL_ACKHAVERESET);
	CHECK(!(status(&r) & SPOOR_DM_DMSTATUS_ANYHAVERESET));

	/* Halt, then resume: running again, resumeack set. */
	spoor_dm_run(r.dm, 100);
	halt(&r);
	CHECK_EQ(spoor_iss_halted(r.iss), 1);
	v = status(&r);
	CHECK(v & SPOOR_DM_DMSTATUS_ALLHALTED);
	CHECK(!(v & SPOOR_DM_DMSTATUS_ANYRUNNING));
	CHECK_EQ(dmi_read(&r, SPOOR_DM_HALTSUM0), 1);
	CHECK_EQ(spoor_dm_run(r.dm, 100), SPOOR_ISS_STOP_HALTED);
	resume(&r);
	v = status(&r);
	CHECK(v & SPOOR_DM_DMSTATUS_ALLRUNNING);
	CHECK(v & SPOOR_DM_DMSTATUS_ALLRESUMEACK);
	CHECK_EQ(dmi_read(&r, SPOOR_DM_HALTSUM0), 0);

	/* A haltreq left set halts the hart when it would run. */
	spoor_dm_write(r.dm, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE |
		       SPOOR_DM_DMCONTROL_HALTREQ);
	CHECK_EQ(spoor_dm_run(r.dm, 10), SPOOR_ISS_STOP_HALTED);
	/* resumereq is ignored while haltreq is set. */
	dmi_write(&r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE |
		  SPOOR_DM_DMCONTROL_HALTREQ | SPOOR_DM_DMCONTROL_RESUMEREQ);
	CHECK(status(&r) & SPOOR_DM_DMSTATUS_ALLHALTED);
	dmi_write(&r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE);

	/* dmactive = 0 resets the DM's registers, not the hart. */
	dmi_write(&r, SPOOR_DM_DATA0, 0x55);
	dmi_write(&r, SPOOR_DM_DMCONTROL, 0);
	dmi_write(&r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE);
	CHECK_EQ(dmi_read(&r, SPOOR_DM_DATA0), 0);
	CHECK(status(&r) & SPOOR_DM_DMSTATUS_ALLHALTED);
	rig_close(&r);
}

/* Abstract register access: GPRs, CSRs, errors (@xlen bits). */
static void test_abstract(unsigned xlen)
{
	uint64_t big = xlen == 64 ? 0x0123456789abcdefull : 0x89abcdefull;
	uint64_t v;
	unsigned err;
	struct rig r;

	if (rig_open(&r, xlen)) {
		CHECK(0);
		return;
	}
	dm_up(&r);

	/* A running hart: cmderr 4 (halt/resume). */
	dmi_write(&r, SPOOR_DM_COMMAND, ac(SPOOR_DM_REGNO_GPR0 + 10, 32, 0));
	CHECK_EQ(cmderr(&r), SPOOR_DM_CMDERR_HALT_RESUME);
	clear_cmderr(&r);
	CHECK_EQ(cmderr(&r), 0);

	halt(&r);
	/* GPRs. */
	CHECK_EQ(reg_set(&r, SPOOR_DM_REGNO_GPR0 + 10, big), 0);
	CHECK_EQ(spoor_iss_read_reg(r.iss, 10, &v), 0);
	CHECK_EQ(v, big);
	CHECK_EQ(spoor_iss_write_reg(r.iss, 11, 0x5a5a), 0);
	CHECK_EQ(reg_get(&r, SPOOR_DM_REGNO_GPR0 + 11, &err), 0x5a5a);
	CHECK_EQ(err, 0);
	CHECK_EQ(reg_set(&r, SPOOR_DM_REGNO_GPR0, 7), 0);	/* x0 stays 0 */
	CHECK_EQ(reg_get(&r, SPOOR_DM_REGNO_GPR0, &err), 0);
	/* A 32-bit read of a 64-bit register gives its low half. */
	dmi_write(&r, SPOOR_DM_COMMAND, ac(SPOOR_DM_REGNO_GPR0 + 10, 32, 0));
	CHECK_EQ(cmderr(&r), 0);
	CHECK_EQ(dmi_read(&r, SPOOR_DM_DATA0), (uint32_t)big);

	/* CSRs: mscratch, misa, dpc (the pc), dcsr. */
	CHECK_EQ(reg_set(&r, 0x340, big), 0);
	CHECK_EQ(reg_get(&r, 0x340, &err), big);
	v = reg_get(&r, 0x301, &err);
	CHECK_EQ(err, 0);
	CHECK_EQ(v >> (xlen - 2), xlen == 64 ? 2 : 1);	/* misa.MXL */
	CHECK(v & (1u << 8));				/* I */
	CHECK_EQ(reg_get(&r, SPOOR_ISS_CSR_DPC, &err), SPOOR_ISS_ROM_BASE);
	CHECK_EQ(err, 0);
	v = reg_get(&r, SPOOR_ISS_CSR_DCSR, &err);
	CHECK_EQ(err, 0);
	CHECK_EQ(DCSR_CAUSE(v), SPOOR_ISS_DEBUG_HALTREQ);
	CHECK_EQ(v & 3, SPOOR_ISS_PRV_M);
	CHECK_EQ(v >> 28 & 0xf, 4);			/* xdebugver */

	/* An unimplemented CSR: cmderr 3 (exception); commands are ignored
	 * until cmderr is cleared. */
	reg_get(&r, 0x003, &err);			/* fcsr: no F */
	CHECK_EQ(err, SPOOR_DM_CMDERR_EXCEPTION);
	dmi_write(&r, SPOOR_DM_COMMAND, ac(SPOOR_DM_REGNO_GPR0 + 11, xlen, 0));
	CHECK_EQ(cmderr(&r), SPOOR_DM_CMDERR_EXCEPTION);
	clear_cmderr(&r);
	CHECK_EQ(reg_set(&r, 0x800, 1), SPOOR_DM_CMDERR_EXCEPTION);
	clear_cmderr(&r);
	CHECK_EQ(reg_set(&r, 0xf14, 1), SPOOR_DM_CMDERR_EXCEPTION);	/* mhartid: read-only */
	clear_cmderr(&r);
	/* FPRs and non-standard numbers do not exist: exception too. */
	reg_get(&r, 0x1020, &err);
	CHECK_EQ(err, SPOOR_DM_CMDERR_EXCEPTION);
	clear_cmderr(&r);
	reg_get(&r, 0xc000, &err);
	CHECK_EQ(err, SPOOR_DM_CMDERR_EXCEPTION);
	clear_cmderr(&r);

	/* Not supported (cmderr 2): 64-bit on RV32, 128-bit, postexec, other commands. */
	dmi_write(&r, SPOOR_DM_COMMAND, ac(SPOOR_DM_REGNO_GPR0 + 8, 64, 0));
	CHECK_EQ(cmderr(&r), xlen == 64 ? 0 : SPOOR_DM_CMDERR_NOT_SUPPORTED);
	clear_cmderr(&r);
	dmi_write(&r, SPOOR_DM_COMMAND, 4u << 20 | SPOOR_DM_AC_TRANSFER | 0x1008);
	CHECK_EQ(cmderr(&r), SPOOR_DM_CMDERR_NOT_SUPPORTED);
	clear_cmderr(&r);
	dmi_write(&r, SPOOR_DM_COMMAND, ac(0x1008, 32, SPOOR_DM_AC_POSTEXEC));
	CHECK_EQ(cmderr(&r), SPOOR_DM_CMDERR_NOT_SUPPORTED);
	clear_cmderr(&r);
	dmi_write(&r, SPOOR_DM_COMMAND, 2u << 24);	/* Access Memory */
	CHECK_EQ(cmderr(&r), SPOOR_DM_CMDERR_NOT_SUPPORTED);
	clear_cmderr(&r);
	dmi_write(&r, SPOOR_DM_COMMAND, 1u << 24);	/* Quick Access */
	CHECK_EQ(cmderr(&r), SPOOR_DM_CMDERR_NOT_SUPPORTED);
	clear_cmderr(&r);
	dmi_write(&r, SPOOR_DM_COMMAND, SPOOR_DM_AC_AARSIZE_32);	/* no transfer: nothing */
	CHECK_EQ(cmderr(&r), 0);

	/* abstractauto with aarpostincrement: x5, x6, x7 from data0 writes. */
	dmi_write(&r, SPOOR_DM_ABSTRACTAUTO, 0xffffffff);
	CHECK_EQ(dmi_read(&r, SPOOR_DM_ABSTRACTAUTO), 3);
	dmi_write(&r, SPOOR_DM_ABSTRACTAUTO, 0);
	dmi_write(&r, SPOOR_DM_DATA0, 50);
	dmi_write(&r, SPOOR_DM_COMMAND, ac(SPOOR_DM_REGNO_GPR0 + 5, 32,
					  SPOOR_DM_AC_WRITE | SPOOR_DM_AC_POSTINCREMENT));
	dmi_write(&r, SPOOR_DM_ABSTRACTAUTO, 1);
	dmi_write(&r, SPOOR_DM_DATA0, 60);
	dmi_write(&r, SPOOR_DM_DATA0, 70);
	dmi_write(&r, SPOOR_DM_ABSTRACTAUTO, 0);
	CHECK_EQ(cmderr(&r), 0);
	for (unsigned i = 0; i < 3; i++) {
		CHECK_EQ(spoor_iss_read_reg(r.iss, 5 + i, &v), 0);
		CHECK_EQ(v, 50 + 10 * i);
	}
	rig_close(&r);
}

/* Single step, resume, ebreak into Debug Mode, ndmreset (@xlen bits). */
static void test_run_control(unsigned xlen)
{
	static const uint32_t prog[] = { ADDI_A0_1, ADDI_A0_1, ADDI_A0_1, EBREAK, JUMP_SELF };
	unsigned err;
	uint64_t dcsr;
	struct rig r;

	if (rig_open(&r, xlen)) {
		CHECK(0);
		return;
	}
	put_words(&r, RAM, prog, 5);
	dm_up(&r);
	halt(&r);
	CHECK_EQ(reg_set(&r, SPOOR_ISS_CSR_DPC, RAM), 0);
	CHECK_EQ(reg_set(&r, SPOOR_DM_REGNO_GPR0 + 10, 0), 0);

	/* Step: halts after one instruction with cause 4. */
	dcsr = reg_get(&r, SPOOR_ISS_CSR_DCSR, &err);
	CHECK_EQ(reg_set(&r, SPOOR_ISS_CSR_DCSR, dcsr | SPOOR_ISS_DCSR_STEP |
			 SPOOR_ISS_DCSR_EBREAKM), 0);
	resume(&r);
	CHECK(status(&r) & SPOOR_DM_DMSTATUS_ALLHALTED);
	CHECK_EQ(reg_get(&r, SPOOR_ISS_CSR_DPC, &err), RAM + 4);
	CHECK_EQ(DCSR_CAUSE(reg_get(&r, SPOOR_ISS_CSR_DCSR, &err)), SPOOR_ISS_DEBUG_STEP);
	CHECK_EQ(reg_get(&r, SPOOR_DM_REGNO_GPR0 + 10, &err), 1);
	resume(&r);
	CHECK_EQ(reg_get(&r, SPOOR_ISS_CSR_DPC, &err), RAM + 8);
	CHECK_EQ(reg_get(&r, SPOOR_DM_REGNO_GPR0 + 10, &err), 2);

	/* Resume without step: runs to the ebreak (cause 1, dpc at it). */
	dcsr = reg_get(&r, SPOOR_ISS_CSR_DCSR, &err);
	CHECK_EQ(reg_set(&r, SPOOR_ISS_CSR_DCSR, dcsr & ~(uint64_t)SPOOR_ISS_DCSR_STEP), 0);
	resume(&r);
	CHECK(status(&r) & SPOOR_DM_DMSTATUS_ALLRUNNING);
	CHECK_EQ(spoor_dm_run(r.dm, 100), SPOOR_ISS_STOP_HALTED);
	CHECK(status(&r) & SPOOR_DM_DMSTATUS_ALLHALTED);
	CHECK_EQ(reg_get(&r, SPOOR_ISS_CSR_DPC, &err), RAM + 12);
	CHECK_EQ(DCSR_CAUSE(reg_get(&r, SPOOR_ISS_CSR_DCSR, &err)), SPOOR_ISS_DEBUG_EBREAK);
	CHECK_EQ(reg_get(&r, SPOOR_DM_REGNO_GPR0 + 10, &err), 3);

	/* Past the ebreak: the hart spins in j . until halted. */
	CHECK_EQ(reg_set(&r, SPOOR_ISS_CSR_DPC, RAM + 16), 0);
	resume(&r);
	CHECK_EQ(spoor_dm_run(r.dm, 1000), SPOOR_ISS_STOP_COUNT);
	halt(&r);
	CHECK_EQ(reg_get(&r, SPOOR_ISS_CSR_DPC, &err), RAM + 16);

	/* ndmreset with haltreq: out of reset halted at the reset vector, havereset set. */
	dmi_write(&r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE |
		  SPOOR_DM_DMCONTROL_ACKHAVERESET);
	dmi_write(&r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE |
		  SPOOR_DM_DMCONTROL_HALTREQ | SPOOR_DM_DMCONTROL_NDMRESET);
	CHECK(status(&r) & SPOOR_DM_DMSTATUS_ALLUNAVAIL);
	CHECK_EQ(spoor_dm_run(r.dm, 10), SPOOR_ISS_STOP_IDLE);
	dmi_write(&r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE |
		  SPOOR_DM_DMCONTROL_HALTREQ);
	CHECK(status(&r) & SPOOR_DM_DMSTATUS_ALLHALTED);
	CHECK(status(&r) & SPOOR_DM_DMSTATUS_ALLHAVERESET);
	dmi_write(&r, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE |
		  SPOOR_DM_DMCONTROL_ACKHAVERESET);
	CHECK_EQ(reg_get(&r, SPOOR_ISS_CSR_DPC, &err), SPOOR_ISS_ROM_BASE);
	/* srst does the same (through the bitbang 's'/'r' bytes). */
	resume(&r);
	CHECK_EQ(feed(&r, "s", NULL), 0);
	CHECK(status(&r) & SPOOR_DM_DMSTATUS_ALLUNAVAIL);
	CHECK_EQ(feed(&r, "r", NULL), 0);
	CHECK(status(&r) & SPOOR_DM_DMSTATUS_ALLRUNNING);
	CHECK(status(&r) & SPOOR_DM_DMSTATUS_ALLHAVERESET);
	rig_close(&r);
}

/* Sets sbcs to access size 2^@access with @flags; returns nothing. */
static void sb_setup(struct rig *r, unsigned access, uint32_t flags)
{
	dmi_write(r, SPOOR_DM_SBCS, access << SPOOR_DM_SBCS_SBACCESS_SHIFT | flags);
}

/* Writes sbaddress (high word first if there is one); returns nothing. */
static void sb_address(struct rig *r, uint64_t addr)
{
	if (r->xlen == 64)
		dmi_write(r, SPOOR_DM_SBADDRESS1, (uint32_t)(addr >> 32));
	dmi_write(r, SPOOR_DM_SBADDRESS0, (uint32_t)addr);
}

/* Returns sbcs.sberror. */
static unsigned sberror(struct rig *r)
{
	return (dmi_read(r, SPOOR_DM_SBCS) & SPOOR_DM_SBCS_SBERROR) >> SPOOR_DM_SBCS_SBERROR_SHIFT;
}

/* System Bus Access: fields, autoincrement bursts, sizes, errors (@xlen bits). */
static void test_sba(unsigned xlen)
{
	const uint64_t base = RAM + 0x1000;
	uint32_t sbcs, w;
	uint64_t v;
	struct rig r;

	if (rig_open(&r, xlen)) {
		CHECK(0);
		return;
	}
	dm_up(&r);
	sbcs = dmi_read(&r, SPOOR_DM_SBCS);
	CHECK_EQ(sbcs >> SPOOR_DM_SBCS_SBVERSION_SHIFT, 1);
	CHECK_EQ((sbcs & SPOOR_DM_SBCS_SBASIZE) >> SPOOR_DM_SBCS_SBASIZE_SHIFT, xlen);
	CHECK_EQ(sbcs & 0x1f, xlen == 64 ? 0xf : 0x7);
	CHECK(!(sbcs & SPOOR_DM_SBCS_SBBUSY));

	/* A 32-bit burst write with autoincrement, while the hart runs. */
	sb_setup(&r, 2, SPOOR_DM_SBCS_SBAUTOINCREMENT);
	sb_address(&r, base);
	for (unsigned i = 0; i < 4; i++)
		dmi_write(&r, SPOOR_DM_SBDATA0, 0x11111111u * (i + 1));
	CHECK_EQ(dmi_read(&r, SPOOR_DM_SBADDRESS0), (uint32_t)base + 16);
	for (unsigned i = 0; i < 4; i++) {
		CHECK_EQ(spoor_iss_bus_read(r.iss, base + 4 * i, 4, &v), 0);
		CHECK_EQ(v, 0x11111111u * (i + 1));
	}
	CHECK_EQ(sberror(&r), 0);

	/* Burst read: sbreadonaddr starts it, each sbdata0 read the next. */
	sb_setup(&r, 2, SPOOR_DM_SBCS_SBAUTOINCREMENT | SPOOR_DM_SBCS_SBREADONADDR |
		 SPOOR_DM_SBCS_SBREADONDATA);
	sb_address(&r, base);
	for (unsigned i = 0; i < 4; i++)
		CHECK_EQ(dmi_read(&r, SPOOR_DM_SBDATA0), 0x11111111u * (i + 1));
	CHECK_EQ(sberror(&r), 0);

	/* Bytes and halfwords. */
	sb_setup(&r, 0, 0);
	sb_address(&r, base + 1);
	dmi_write(&r, SPOOR_DM_SBDATA0, 0xabcdefaa);
	sb_setup(&r, 1, 0);
	sb_address(&r, base + 2);
	dmi_write(&r, SPOOR_DM_SBDATA0, 0xffff3333);
	sb_setup(&r, 1, SPOOR_DM_SBCS_SBREADONADDR);
	sb_address(&r, base + 2);
	CHECK_EQ(dmi_read(&r, SPOOR_DM_SBDATA0), 0x3333);
	sb_setup(&r, 2, SPOOR_DM_SBCS_SBREADONADDR);
	sb_address(&r, base);
	CHECK_EQ(dmi_read(&r, SPOOR_DM_SBDATA0), 0x3333aa11);

	/* 64-bit accesses on RV64 (sbdata1 is the high word); RV32: sberror 4. */
	sb_setup(&r, 3, SPOOR_DM_SBCS_SBAUTOINCREMENT);
	sb_address(&r, base + 8);
	dmi_write(&r, SPOOR_DM_SBDATA1, 0x01234567);
	dmi_write(&r, SPOOR_DM_SBDATA0, 0x89abcdef);
	if (xlen == 64) {
		CHECK_EQ(sberror(&r), 0);
		CHECK_EQ(spoor_iss_bus_read(r.iss, base + 8, 8, &v), 0);
		CHECK_EQ(v, 0x0123456789abcdefull);
		sb_setup(&r, 3, SPOOR_DM_SBCS_SBREADONADDR);
		sb_address(&r, base + 8);
		CHECK_EQ(dmi_read(&r, SPOOR_DM_SBDATA1), 0x01234567);
		CHECK_EQ(dmi_read(&r, SPOOR_DM_SBDATA0), 0x89abcdef);
	} else {
		CHECK_EQ(sberror(&r), SPOOR_DM_SBERROR_SIZE);
		dmi_write(&r, SPOOR_DM_SBCS, SPOOR_DM_SBCS_SBERROR);
	}
	CHECK_EQ(sberror(&r), 0);

	/* Nothing at 0: sberror 2; no access starts until it is cleared. */
	sb_setup(&r, 2, SPOOR_DM_SBCS_SBREADONADDR);
	sb_address(&r, 0);
	CHECK_EQ(sberror(&r), SPOOR_DM_SBERROR_BAD_ADDRESS);
	sb_address(&r, base);
	dmi_write(&r, SPOOR_DM_SBDATA0, 0xdead);
	CHECK_EQ(spoor_iss_bus_read(r.iss, base, 4, &v), 0);
	CHECK_EQ(v, 0x3333aa11);
	dmi_write(&r, SPOOR_DM_SBCS, SPOOR_DM_SBCS_SBERROR | 2u << SPOOR_DM_SBCS_SBACCESS_SHIFT);
	CHECK_EQ(sberror(&r), 0);
	/* Misaligned: sberror 3. */
	sb_address(&r, base + 2);
	dmi_write(&r, SPOOR_DM_SBDATA0, 0xdead);
	CHECK_EQ(sberror(&r), SPOOR_DM_SBERROR_ALIGNMENT);
	dmi_write(&r, SPOOR_DM_SBCS, SPOOR_DM_SBCS_SBERROR);
	/* The bus includes the devices: the UART's LSR. */
	sb_setup(&r, 0, SPOOR_DM_SBCS_SBREADONADDR);
	sb_address(&r, SPOOR_ISS_UART_BASE + 5);
	w = dmi_read(&r, SPOOR_DM_SBDATA0);
	CHECK_EQ(w & 0x60, 0x60);
	CHECK_EQ(sberror(&r), 0);
	rig_close(&r);
}

/* The DMI ignores nothing it should not: reads of unmapped registers give 0, NULL checks. */
static void test_api(void)
{
	struct rig r;
	uint32_t v = 1;
	uint8_t out[4];

	CHECK(spoor_dm_new(NULL) == NULL);
	CHECK(spoor_jtag_new(NULL, 1) == NULL);
	CHECK_EQ(spoor_dm_read(NULL, 0, &v), SPOOR_E_INVAL);
	CHECK_EQ(spoor_dm_write(NULL, 0, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_dm_run(NULL, 1), SPOOR_E_INVAL);
	CHECK_EQ(spoor_jtag_pins(NULL, 0, 0, 0), SPOOR_E_INVAL);
	CHECK_EQ(spoor_bitbang_process(NULL, NULL, 0, out, NULL), SPOOR_E_INVAL);
	CHECK_EQ(spoor_bitbang_open(NULL, 0, NULL), SPOOR_E_INVAL);
	if (rig_open(&r, 32)) {
		CHECK(0);
		return;
	}
	spoor_dm_write(r.dm, SPOOR_DM_DMCONTROL, SPOOR_DM_DMCONTROL_DMACTIVE);
	CHECK_EQ(spoor_dm_read(r.dm, SPOOR_DM_PROGBUF0, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(spoor_dm_read(r.dm, SPOOR_DM_HARTINFO, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(spoor_dm_read(r.dm, SPOOR_DM_SBADDRESS1, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(spoor_dm_read(r.dm, 0x7f, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(spoor_dm_read(r.dm, SPOOR_DM_NEXTDM, &v), 0);
	CHECK_EQ(v, 0);
	rig_close(&r);
}

/* Connects to 127.0.0.1:@port; returns the socket or -1. */
static int connect_local(unsigned port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Appends the bitbang bytes of one TCK cycle with a TDO read to @s; returns nothing. */
static void append_clock(char *s, int tms, int tdi)
{
	size_t n = strlen(s);

	s[n] = (char)('0' + (tms << 1 | tdi));
	s[n + 1] = 'R';
	s[n + 2] = (char)('4' + (tms << 1 | tdi));
	s[n + 3] = 0;
}

/* The TCP server: port 0 picks a port, IDCODE over a real socket, 'Q'. */
static void test_server(void)
{
	struct spoor_bitbang *bb = NULL;
	char req[512] = "";
	char ans[64];
	size_t got = 0;
	uint32_t id = 0;
	struct rig r;
	int fd, ev = 0;

	if (rig_open(&r, 64)) {
		CHECK(0);
		return;
	}
	CHECK_EQ(spoor_bitbang_open(r.tap, 0, &bb), 0);
	if (!bb) {
		rig_close(&r);
		return;
	}
	CHECK(spoor_bitbang_port(bb) != 0);
	CHECK_EQ(spoor_bitbang_poll(bb, 0), SPOOR_BITBANG_NONE);
	fd = connect_local(spoor_bitbang_port(bb));
	CHECK(fd >= 0);
	CHECK_EQ(spoor_bitbang_poll(bb, 1000), SPOOR_BITBANG_ACTIVE);
	/* Test-Logic-Reset, Idle, then the IDCODE DR scan. */
	strcpy(req, "t r");
	for (int i = 0; i < 5; i++)
		strcat(req, "2636");
	strcat(req, "0404");
	strcat(req, "26" "04" "04");	/* Select-DR, Capture-DR, Shift-DR */
	for (int i = 0; i < 32; i++)
		append_clock(req, i == 31, 0);
	strcat(req, "26" "04Q");
	CHECK_EQ(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	for (int i = 0; i < 100 && ev != SPOOR_BITBANG_QUIT; i++)
		ev = spoor_bitbang_poll(bb, 100);
	CHECK_EQ(ev, SPOOR_BITBANG_QUIT);
	while (got < 32) {
		ssize_t n = recv(fd, ans + got, sizeof(ans) - got, 0);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	CHECK_EQ(got, 32);
	for (size_t i = 0; i < got && i < 32; i++)
		id |= (uint32_t)(ans[i] == '1') << i;
	CHECK_EQ(id, SPOOR_JTAG_IDCODE);
	CHECK_EQ(recv(fd, ans, sizeof(ans), 0), 0);	/* closed after 'Q' */
	close(fd);
	/* The next client is served. */
	fd = connect_local(spoor_bitbang_port(bb));
	CHECK(fd >= 0);
	CHECK_EQ(spoor_bitbang_poll(bb, 1000), SPOOR_BITBANG_ACTIVE);
	close(fd);
	ev = 0;
	for (int i = 0; i < 10 && ev != SPOOR_BITBANG_QUIT; i++)
		ev = spoor_bitbang_poll(bb, 100);
	CHECK_EQ(ev, SPOOR_BITBANG_QUIT);
	spoor_bitbang_close(bb);
	rig_close(&r);
}

int main(int argc, char **argv)
{
	check_args(argc, argv,
		   "Tests of the virtual board's debug path: the JTAG TAP, DTM and debug module.");
	test_tap_states();
	test_tap_registers();
	test_dm_control();
	test_api();
	for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
		test_abstract(xlen);
		test_run_control(xlen);
		test_sba(xlen);
	}
	test_server();
	return check_done();
}
