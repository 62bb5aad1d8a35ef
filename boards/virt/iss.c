// SPDX-License-Identifier: MIT
/*
 * The virtual board's instruction-set simulator: hart state, the step loop
 * with its decoded-instruction cache, traps and interrupts, Debug Mode, and
 * the accessors a debug module uses.
 *
 * The step loop's fast path is a cache lookup, one indirect call and the
 * hook.  Everything rare (interrupts, stop requests, single-step, halts)
 * waits behind one comparison: cycle >= next_check, where next_check is the
 * cycle at which the timer fires, or 0 after anything that may change what
 * is pending or enabled (CSR writes, traps, xRET, CLINT writes).
 */
#include <stdlib.h>
#include <string.h>

#include "iss_priv.h"
#include "spoor/error.h"

/* Event kind and retirement flags of each enum exec_result. */
static const uint8_t ev_kind[R_DEBUG + 1] = {
	[R_SEQ] = SPOOR_ISS_EV_RETIRE, [R_NOT_TAKEN] = SPOOR_ISS_EV_RETIRE,
	[R_TAKEN] = SPOOR_ISS_EV_RETIRE, [R_JUMP] = SPOOR_ISS_EV_RETIRE,
	[R_IJUMP] = SPOOR_ISS_EV_RETIRE, [R_XRET] = SPOOR_ISS_EV_RETIRE,
	[R_TRAP] = SPOOR_ISS_EV_EXCEPTION, [R_DEBUG] = SPOOR_ISS_EV_DEBUG,
};
static const uint8_t ev_flags[R_DEBUG + 1] = {
	[R_NOT_TAKEN] = SPOOR_ISS_F_BRANCH,
	[R_TAKEN] = SPOOR_ISS_F_BRANCH | SPOOR_ISS_F_TAKEN,
	[R_JUMP] = SPOOR_ISS_F_JUMP,
	[R_IJUMP] = SPOOR_ISS_F_JUMP | SPOOR_ISS_F_INDIRECT,
	[R_XRET] = SPOOR_ISS_F_XRET,
};

void iss_flush_dcache(struct spoor_iss *s)
{
	for (unsigned i = 0; i < DC_SIZE; i++)
		s->dc[i].pc = DC_INVALID;
}

void iss_code_written(struct spoor_iss *s, uint64_t addr, uint64_t len)
{
	if (len > 64) {
		iss_flush_dcache(s);
		return;
	}
	for (uint64_t a = (addr - 2) & ~1ull; a < addr + len; a += 2) {
		struct dinsn *d = &s->dc[(a >> 1) & DC_MASK];

		if (d->pc == a)
			d->pc = DC_INVALID;
	}
}

uint64_t iss_mtime(const struct spoor_iss *s)
{
	return s->mtime_base + (s->cycle - s->mtime_cycle) / s->time_div;
}

void iss_set_mtime(struct spoor_iss *s, uint64_t v)
{
	s->mtime_base = v;
	s->mtime_cycle = s->cycle;
	s->next_check = 0;
}

uint64_t iss_mip(const struct spoor_iss *s)
{
	uint64_t mip = s->mip_sw;

	if (s->msip & 1)
		mip |= MIP_MSIP;
	if (iss_mtime(s) >= s->mtimecmp)
		mip |= MIP_MTIP;
	return mip;
}

/* Returns the cycle at which MTIP becomes pending with MTIE set, or UINT64_MAX. */
static uint64_t timer_deadline(const struct spoor_iss *s)
{
	uint64_t ticks;

	if (!(s->mie & MIP_MTIP) || iss_mtime(s) >= s->mtimecmp)
		return UINT64_MAX;
	ticks = s->mtimecmp - s->mtime_base;
	if (ticks > (UINT64_MAX - s->mtime_cycle) / s->time_div)
		return UINT64_MAX;
	return s->mtime_cycle + ticks * s->time_div;
}

/* Returns the trap vector for @cause in @tvec. */
static uint64_t trap_vector(uint64_t tvec, uint64_t cause, int irq)
{
	uint64_t base = tvec & ~3ull;

	if ((tvec & 1) && irq)
		return base + 4 * cause;
	return base;
}

/* Takes trap @cause (an interrupt if @irq) with epc @epc; returns nothing. */
static void take_trap(struct spoor_iss *s, uint64_t epc, uint64_t cause, uint64_t tval, int irq)
{
	uint64_t deleg = irq ? s->mideleg : s->medeleg;
	uint64_t bit = irq ? 1ull << (s->xlen - 1) : 0;

	if (s->priv <= SPOOR_ISS_PRV_S && cause < 64 && ((deleg >> cause) & 1)) {
		s->scause = cause | bit;
		s->sepc = epc;
		s->stval = tval & s->xmask;
		s->mstatus &= ~(MS_SPIE | MS_SPP);
		if (s->mstatus & MS_SIE)
			s->mstatus |= MS_SPIE;
		if (s->priv == SPOOR_ISS_PRV_S)
			s->mstatus |= MS_SPP;
		s->mstatus &= ~MS_SIE;
		s->priv = SPOOR_ISS_PRV_S;
		s->pc = trap_vector(s->stvec, cause, irq);
	} else {
		s->mcause = cause | bit;
		s->mepc = epc;
		s->mtval = tval & s->xmask;
		s->mstatus &= ~(MS_MPIE | MS_MPP);
		if (s->mstatus & MS_MIE)
			s->mstatus |= MS_MPIE;
		s->mstatus |= (uint64_t)s->priv << MS_MPP_SHIFT;
		s->mstatus &= ~MS_MIE;
		s->priv = SPOOR_ISS_PRV_M;
		s->pc = trap_vector(s->mtvec, cause, irq);
	}
	s->next_check = 0;
}

int iss_exception(struct spoor_iss *s, uint64_t pc, uint64_t cause, uint64_t tval)
{
	s->ev_cause = cause;
	s->ev_tval = tval;
	if (unlikely(s->debug_mode)) {
		/* Program buffer: no trap, spoor_iss_debug_exec() reports it. */
		s->pc = pc;
		return R_TRAP;
	}
	take_trap(s, pc, cause, tval, 0);
	return R_TRAP;
}

int iss_xret(struct spoor_iss *s, int from)
{
	int prv;

	if (from == SPOOR_ISS_PRV_M) {
		prv = (int)((s->mstatus & MS_MPP) >> MS_MPP_SHIFT);
		s->mstatus &= ~(MS_MIE | MS_MPP);
		if (s->mstatus & MS_MPIE)
			s->mstatus |= MS_MIE;
		s->mstatus |= MS_MPIE;
		s->pc = s->mepc;
	} else {
		prv = (s->mstatus & MS_SPP) ? SPOOR_ISS_PRV_S : SPOOR_ISS_PRV_U;
		s->mstatus &= ~(MS_SIE | MS_SPP);
		if (s->mstatus & MS_SPIE)
			s->mstatus |= MS_SIE;
		s->mstatus |= MS_SPIE;
		s->pc = s->sepc;
	}
	if (prv != SPOOR_ISS_PRV_M)
		s->mstatus &= ~MS_MPRV;
	s->priv = prv;
	s->next_check = 0;
	return R_XRET;
}

int iss_wfi(struct spoor_iss *s, uint64_t pc, unsigned len, uint32_t raw)
{
	uint64_t deadline;

	if (s->priv == SPOOR_ISS_PRV_U ||
	    (s->priv == SPOOR_ISS_PRV_S && (s->mstatus & MS_TW)))
		return iss_exception(s, pc, EXC_ILLEGAL, raw);
	s->pc = pc + len;
	s->next_check = 0;
	if (s->debug_mode || (iss_mip(s) & s->mie))
		return R_SEQ;
	/* Sleep until the timer fires (the only wake-up one hart can wait for). */
	deadline = timer_deadline(s);
	if (deadline == UINT64_MAX)
		s->stop = SPOOR_ISS_STOP_IDLE;
	else if (deadline > s->cycle + 1)
		s->cycle = deadline - 1;
	return R_SEQ;
}

/* Enters Debug Mode with pc @pc and dcsr.cause @cause; returns nothing. */
static void enter_debug(struct spoor_iss *s, uint64_t pc, unsigned cause)
{
	s->dpc = pc;
	s->dcsr &= ~(DCSR_CAUSE | SPOOR_ISS_DCSR_PRV);
	s->dcsr |= (uint64_t)cause << DCSR_CAUSE_SHIFT | (uint64_t)s->priv;
	s->priv = SPOOR_ISS_PRV_M;
	s->pc = pc;
	s->debug_mode = 1;
	s->step = STEP_NONE;
	s->next_check = 0;
}

/* Leaves Debug Mode as dret does; returns nothing. */
static void leave_debug(struct spoor_iss *s)
{
	s->pc = s->dpc;
	s->priv = (int)(s->dcsr & SPOOR_ISS_DCSR_PRV);
	if (s->priv != SPOOR_ISS_PRV_M)
		s->mstatus &= ~MS_MPRV;
	s->debug_mode = 0;
	s->step = (s->dcsr & SPOOR_ISS_DCSR_STEP) ? STEP_ARMED : STEP_NONE;
	s->next_check = 0;
}

int iss_ebreak(struct spoor_iss *s, uint64_t pc)
{
	static const uint64_t enable[4] = {
		SPOOR_ISS_DCSR_EBREAKU, SPOOR_ISS_DCSR_EBREAKS, 0, SPOOR_ISS_DCSR_EBREAKM,
	};

	if (s->debug_mode) {
		s->pc = pc;
		return R_DEBUG;
	}
	if (s->dcsr & enable[s->priv]) {
		enter_debug(s, pc, SPOOR_ISS_DEBUG_EBREAK);
		return R_DEBUG;
	}
	/* mtval: the privileged spec allows 0 or the pc; QEMU (our reference) writes 0. */
	return iss_exception(s, pc, EXC_BREAKPOINT, 0);
}

int iss_dret(struct spoor_iss *s, uint64_t pc, uint32_t raw)
{
	if (!s->debug_mode)
		return iss_exception(s, pc, EXC_ILLEGAL, raw);
	leave_debug(s);
	return R_XRET;
}

/* Reports a Debug Mode entry at the current pc to the hook; returns nothing. */
static void report_debug(struct spoor_iss *s, int prv)
{
	struct spoor_iss_event ev = {
		.pc = s->pc, .next_pc = s->pc, .kind = SPOOR_ISS_EV_DEBUG, .priv = (uint8_t)prv,
		.cause = (s->dcsr & DCSR_CAUSE) >> DCSR_CAUSE_SHIFT,
	};

	if (s->hook)
		s->hook(s->hook_ctx, &ev);
}

/* Finds the interrupt to take now; returns its cause, or -1. */
static int pending_irq(const struct spoor_iss *s)
{
	static const int order[] = { IRQ_MEI, IRQ_MSI, IRQ_MTI, IRQ_SEI, IRQ_SSI, IRQ_STI };
	uint64_t p = iss_mip(s) & s->mie, take = 0;
	uint64_t m = p & ~s->mideleg, sup = p & s->mideleg;

	if (m && (s->priv < SPOOR_ISS_PRV_M || (s->mstatus & MS_MIE)))
		take = m;
	else if (sup && (s->priv < SPOOR_ISS_PRV_S ||
			 (s->priv == SPOOR_ISS_PRV_S && (s->mstatus & MS_SIE))))
		take = sup;
	for (unsigned i = 0; take && i < sizeof(order) / sizeof(order[0]); i++)
		if (take & (1ull << order[i]))
			return order[i];
	return -1;
}

/* Takes a pending, enabled interrupt if there is one; returns nothing. */
static void check_irq(struct spoor_iss *s)
{
	struct spoor_iss_event ev = { .kind = SPOOR_ISS_EV_INTERRUPT };
	int irq = pending_irq(s);

	if (irq < 0)
		return;
	ev.pc = s->pc;
	ev.priv = (uint8_t)s->priv;
	ev.cause = (uint64_t)irq;
	take_trap(s, s->pc, (uint64_t)irq, 0, 1);
	ev.next_pc = s->pc;
	if (s->hook)
		s->hook(s->hook_ctx, &ev);
}

/* Handles stop requests, halts and the end of a single step; returns a stop reason or -1. */
static int check_stop(struct spoor_iss *s)
{
	int r = s->stop;

	if (r) {
		if (r == SPOOR_ISS_STOP_RESET) {
			spoor_iss_reset(s);
		} else if (r == SPOOR_ISS_STOP_IDLE) {
			s->stop = 0;
		}
		return r;
	}
	if (s->debug_mode)
		return SPOOR_ISS_STOP_HALTED;
	if (s->step == STEP_DONE) {
		int prv = s->priv;

		enter_debug(s, s->pc, SPOOR_ISS_DEBUG_STEP);
		report_debug(s, prv);
		return SPOOR_ISS_STOP_HALTED;
	}
	return -1;
}

/* The rare work before an instruction; returns a stop reason or -1 to go on. */
static int slow_check(struct spoor_iss *s)
{
	int r = check_stop(s);

	if (r >= 0)
		return r;
	if (s->step == STEP_ARMED) {
		s->step = STEP_DONE;
		s->next_check = 0;
		if (!(s->dcsr & SPOOR_ISS_DCSR_STEPIE))
			return -1;
	}
	check_irq(s);
	s->next_check = s->step ? 0 : timer_deadline(s);
	return -1;
}

/* Fetches and decodes the instruction at @pc into the cache; returns it, or NULL (trapped). */
static struct dinsn *lookup(struct spoor_iss *s, uint64_t pc)
{
	struct dinsn *d = &s->dc[(pc >> 1) & DC_MASK];
	uint16_t lo, hi;
	uint32_t raw;

	if (iss_fetch16(s, pc, &lo)) {
		iss_exception(s, pc, EXC_INSN_ACCESS, pc);
		return NULL;
	}
	raw = lo;
	if ((lo & 3) == 3) {
		if (iss_fetch16(s, pc + 2, &hi)) {
			iss_exception(s, pc, EXC_INSN_ACCESS, pc + 2);
			return NULL;
		}
		raw |= (uint32_t)hi << 16;
	}
	s->decode(d, raw);
	d->pc = pc;
	if (pc - s->ram_base < s->ram_size) {
		uint64_t off = pc - s->ram_base;

		s->code_pages[off >> CODE_PAGE_SHIFT] = 1;
		if (off + d->len - 1 < s->ram_size)
			s->code_pages[(off + d->len - 1) >> CODE_PAGE_SHIFT] = 1;
	}
	return d;
}

/* Reports an executed instruction (@d NULL: fetch fault) to the hook; returns nothing. */
static void report(struct spoor_iss *s, const struct dinsn *d, uint64_t pc, int prv, int r)
{
	struct spoor_iss_event ev;

	ev.pc = pc;
	ev.next_pc = s->pc;
	ev.cause = 0;
	ev.tval = 0;
	ev.insn = d ? d->raw : 0;
	ev.kind = ev_kind[r];
	ev.size = d ? d->len : 0;
	ev.priv = (uint8_t)prv;
	ev.flags = ev_flags[r];
	if (r == R_TRAP) {
		ev.cause = s->ev_cause;
		ev.tval = s->ev_tval;
	} else if (r == R_DEBUG) {
		ev.cause = (s->dcsr & DCSR_CAUSE) >> DCSR_CAUSE_SHIFT;
	}
	s->hook(s->hook_ctx, &ev);
}

int spoor_iss_step(struct spoor_iss *s, uint64_t n)
{
	int r;

	if (!s)
		return SPOOR_E_INVAL;
	while (n) {
		uint64_t pc;
		struct dinsn *d;
		int prv;

		if (unlikely(s->cycle >= s->next_check)) {
			r = slow_check(s);
			if (r >= 0)
				return r;
		}
		pc = s->pc;
		prv = s->priv;
		d = &s->dc[(pc >> 1) & DC_MASK];
		if (likely(d->pc == pc)) {
			r = d->fn(s, d);
		} else {
			d = lookup(s, pc);
			r = d ? d->fn(s, d) : R_TRAP;
		}
		s->cycle++;
		n--;
		if (likely(r < R_TRAP))
			s->instret++;
		if (s->hook)
			report(s, d, pc, prv, r);
	}
	r = check_stop(s);
	return r >= 0 ? r : SPOOR_ISS_STOP_COUNT;
}

int spoor_iss_exit_code(const struct spoor_iss *s)
{
	return s ? s->exit_code : 0;
}

unsigned spoor_iss_xlen(const struct spoor_iss *s)
{
	return s ? s->xlen : 0;
}

int spoor_iss_priv(const struct spoor_iss *s)
{
	return s ? s->priv : -1;
}

uint64_t spoor_iss_instret(const struct spoor_iss *s)
{
	return s ? s->instret : 0;
}

int spoor_iss_set_hook(struct spoor_iss *s, spoor_iss_hook_fn fn, void *ctx)
{
	if (!s)
		return SPOOR_E_INVAL;
	s->hook = fn;
	s->hook_ctx = ctx;
	return 0;
}

int spoor_iss_read_reg(const struct spoor_iss *s, unsigned reg, uint64_t *value)
{
	if (!s || !value || reg > SPOOR_ISS_REG_PC)
		return SPOOR_E_INVAL;
	*value = (reg == SPOOR_ISS_REG_PC ? s->pc : s->x[reg]) & s->xmask;
	return 0;
}

int spoor_iss_write_reg(struct spoor_iss *s, unsigned reg, uint64_t value)
{
	if (!s || reg > SPOOR_ISS_REG_PC)
		return SPOOR_E_INVAL;
	if (reg == SPOOR_ISS_REG_PC)
		s->pc = value & s->xmask & ~1ull;
	else if (reg)
		s->x[reg] = s->xlen == 32 ? sext32(value) : value;
	return 0;
}

int spoor_iss_read_csr(struct spoor_iss *s, unsigned csr, uint64_t *value)
{
	if (!s || !value)
		return SPOOR_E_INVAL;
	return iss_csr_read(s, csr, value);
}

int spoor_iss_write_csr(struct spoor_iss *s, unsigned csr, uint64_t value)
{
	if (!s)
		return SPOOR_E_INVAL;
	s->next_check = 0;
	return iss_csr_write(s, csr, value & s->xmask);
}

int spoor_iss_bus_read(struct spoor_iss *s, uint64_t addr, unsigned size, uint64_t *value)
{
	if (!s || !value || (size != 1 && size != 2 && size != 4 && size != 8))
		return SPOOR_E_INVAL;
	return iss_bus_read(s, addr, size, value);
}

int spoor_iss_bus_write(struct spoor_iss *s, uint64_t addr, unsigned size, uint64_t value)
{
	if (!s || (size != 1 && size != 2 && size != 4 && size != 8))
		return SPOOR_E_INVAL;
	return iss_bus_write(s, addr, size, value);
}

int spoor_iss_enter_debug(struct spoor_iss *s, unsigned cause)
{
	int prv;

	if (!s || s->debug_mode || cause < SPOOR_ISS_DEBUG_EBREAK ||
	    cause > SPOOR_ISS_DEBUG_RESETHALTREQ)
		return SPOOR_E_INVAL;
	prv = s->priv;
	enter_debug(s, s->pc, cause);
	report_debug(s, prv);
	return 0;
}

int spoor_iss_halted(const struct spoor_iss *s)
{
	if (!s)
		return SPOOR_E_INVAL;
	return s->debug_mode;
}

int spoor_iss_resume(struct spoor_iss *s)
{
	if (!s || !s->debug_mode)
		return SPOOR_E_INVAL;
	leave_debug(s);
	return 0;
}

int spoor_iss_debug_exec(struct spoor_iss *s, uint64_t addr, unsigned max)
{
	if (!s || !s->debug_mode)
		return SPOOR_E_INVAL;
	s->pc = addr & s->xmask;
	for (unsigned i = 0; i < max; i++) {
		struct dinsn *d = &s->dc[(s->pc >> 1) & DC_MASK];
		int r;

		if (d->pc != s->pc)
			d = lookup(s, s->pc);
		if (!d)
			return SPOOR_E_ACCESS;
		r = d->fn(s, d);
		if (r == R_TRAP) {
			uint64_t c = s->ev_cause;

			return (c == EXC_ILLEGAL || c == EXC_BREAKPOINT || c >= EXC_ECALL_U) ?
				SPOOR_E_BAD_INSN : SPOOR_E_ACCESS;
		}
		if (r == R_DEBUG)
			return 0;
		if (!s->debug_mode)
			return 1;
	}
	return SPOOR_E_RANGE;
}

int spoor_iss_reset(struct spoor_iss *s)
{
	if (!s)
		return SPOOR_E_INVAL;
	memset(s->x, 0, sizeof(s->x));
	s->pc = SPOOR_ISS_ROM_BASE;
	s->priv = SPOOR_ISS_PRV_M;
	s->cycle = 0;
	s->instret = 0;
	s->res_valid = 0;
	s->stop = 0;
	s->exited = 0;
	s->exit_code = 0;
	s->debug_mode = 0;
	s->step = STEP_NONE;
	iss_csr_reset(s);
	iss_devices_reset(s);
	iss_build_rom(s);
	iss_flush_dcache(s);
	s->next_check = 0;
	return 0;
}

struct spoor_iss *spoor_iss_new(const struct spoor_iss_config *cfg)
{
	static const struct spoor_iss_config defaults;
	struct spoor_iss *s;
	unsigned xlen;
	uint64_t ram;

	if (!cfg)
		cfg = &defaults;
	xlen = cfg->xlen ? cfg->xlen : 64;
	ram = cfg->ram_size ? cfg->ram_size : SPOOR_ISS_RAM_DEFAULT;
	if ((xlen != 32 && xlen != 64) || (ram & 0xfff) ||
	    ram > (xlen == 32 ? 1ull << 31 : 1ull << 36))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->xlen = xlen;
	s->xmask = xlen == 32 ? 0xffffffffull : ~0ull;
	s->decode = xlen == 32 ? iss_decode_32 : iss_decode_64;
	s->ram_base = SPOOR_ISS_RAM_BASE;
	s->ram_size = ram;
	s->time_div = cfg->time_divisor ? cfg->time_divisor : 1;
	s->hartid = cfg->hartid;
	s->fdt_addr = cfg->fdt_addr;
	s->start_addr = SPOOR_ISS_RAM_BASE;
	s->misaligned_traps = cfg->misaligned_traps;
	s->uart_tx = cfg->uart_tx;
	s->uart_ctx = cfg->uart_ctx;
	s->uart_out = cfg->uart_out;
	s->ram = calloc(1, ram);
	s->code_pages = calloc(ram >> CODE_PAGE_SHIFT, 1);
	s->dc = malloc(DC_SIZE * sizeof(*s->dc));
	if (!s->ram || !s->code_pages || !s->dc) {
		spoor_iss_free(s);
		return NULL;
	}
	memset(s->dc, 0, DC_SIZE * sizeof(*s->dc));
	spoor_iss_reset(s);
	return s;
}

void spoor_iss_free(struct spoor_iss *s)
{
	if (!s)
		return;
	free(s->ram);
	free(s->code_pages);
	free(s->dc);
	free(s);
}
