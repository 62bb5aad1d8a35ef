// SPDX-License-Identifier: MIT
/*
 * CSRs of the virtual board's ISS: the Zicsr instructions with their
 * privilege checks, and reads/writes with WARL legalisation (shared with
 * the debugger accessors).  satp is bare-only (reads 0, writes ignored),
 * PMP CSRs are stored but not enforced, there are no triggers and no
 * hardware performance counters (they read 0).
 */
#include <stdint.h>

#include "iss_priv.h"
#include "spoor/error.h"

enum {
	CSR_SSTATUS = 0x100, CSR_SIE = 0x104, CSR_STVEC = 0x105, CSR_SCOUNTEREN = 0x106,
	CSR_SENVCFG = 0x10a, CSR_SSCRATCH = 0x140, CSR_SEPC = 0x141, CSR_SCAUSE = 0x142,
	CSR_STVAL = 0x143, CSR_SIP = 0x144, CSR_SATP = 0x180,
	CSR_MSTATUS = 0x300, CSR_MISA = 0x301, CSR_MEDELEG = 0x302, CSR_MIDELEG = 0x303,
	CSR_MIE = 0x304, CSR_MTVEC = 0x305, CSR_MCOUNTEREN = 0x306, CSR_MENVCFG = 0x30a,
	CSR_MSTATUSH = 0x310, CSR_MENVCFGH = 0x31a, CSR_MCOUNTINHIBIT = 0x320,
	CSR_MHPMEVENT3 = 0x323, CSR_MHPMEVENT31 = 0x33f,
	CSR_MSCRATCH = 0x340, CSR_MEPC = 0x341, CSR_MCAUSE = 0x342, CSR_MTVAL = 0x343,
	CSR_MIP = 0x344, CSR_PMPCFG0 = 0x3a0, CSR_PMPCFG15 = 0x3af,
	CSR_PMPADDR0 = 0x3b0, CSR_PMPADDR63 = 0x3ef,
	CSR_TSELECT = 0x7a0, CSR_TDATA1 = 0x7a1, CSR_TDATA3 = 0x7a3,
	CSR_DCSR = 0x7b0, CSR_DPC = 0x7b1, CSR_DSCRATCH0 = 0x7b2, CSR_DSCRATCH1 = 0x7b3,
	CSR_MCYCLE = 0xb00, CSR_MINSTRET = 0xb02, CSR_MHPMCOUNTER3 = 0xb03,
	CSR_MHPMCOUNTER31 = 0xb1f, CSR_MCYCLEH = 0xb80, CSR_MINSTRETH = 0xb82,
	CSR_MHPMCOUNTER3H = 0xb83, CSR_MHPMCOUNTER31H = 0xb9f,
	CSR_CYCLE = 0xc00, CSR_TIME = 0xc01, CSR_INSTRET = 0xc02, CSR_HPMCOUNTER31 = 0xc1f,
	CSR_CYCLEH = 0xc80, CSR_TIMEH = 0xc81, CSR_INSTRETH = 0xc82, CSR_HPMCOUNTER31H = 0xc9f,
	CSR_MVENDORID = 0xf11, CSR_MARCHID = 0xf12, CSR_MIMPID = 0xf13, CSR_MHARTID = 0xf14,
	CSR_MCONFIGPTR = 0xf15,
};

#define MSTATUS_WMASK	(MS_SIE | MS_MIE | MS_SPIE | MS_MPIE | MS_SPP | MS_MPP | MS_MPRV | \
			 MS_SUM | MS_MXR | MS_TVM | MS_TW | MS_TSR)
#define SSTATUS_WMASK	(MS_SIE | MS_SPIE | MS_SPP | MS_SUM | MS_MXR)
#define SSTATUS_RMASK	(SSTATUS_WMASK | (3ull << 32))
#define S_IRQS		(MIP_SSIP | MIP_STIP | MIP_SEIP)
#define ALL_IRQS	(S_IRQS | MIP_MSIP | MIP_MTIP | MIP_MEIP)
#define MEDELEG_MASK	0xb3ffull	/* causes 0-9, 12, 13, 15 (not ecall from M) */
#define DCSR_WMASK	(SPOOR_ISS_DCSR_EBREAKM | SPOOR_ISS_DCSR_EBREAKS | \
			 SPOOR_ISS_DCSR_EBREAKU | SPOOR_ISS_DCSR_STEPIE | 0x600u | 0x10u | \
			 SPOOR_ISS_DCSR_STEP | SPOOR_ISS_DCSR_PRV)

/* misa extension bits: A, C, I, M, S, U. */
#define MISA_EXT	((1ull << 0) | (1ull << 2) | (1ull << 8) | (1ull << 12) | \
			 (1ull << 18) | (1ull << 20))

void iss_csr_reset(struct spoor_iss *s)
{
	s->mstatus = s->xlen == 64 ? MS_UXL64 | MS_SXL64 : 0;
	s->misa = (s->xlen == 64 ? 2ull << 62 : 1ull << 30) | MISA_EXT;
	s->medeleg = 0;
	s->mideleg = 0;
	s->mie = 0;
	s->mip_sw = 0;
	s->mtvec = 0;
	s->stvec = 0;
	s->mscratch = 0;
	s->sscratch = 0;
	s->mepc = 0;
	s->sepc = 0;
	s->mcause = 0;
	s->scause = 0;
	s->mtval = 0;
	s->stval = 0;
	s->mcounteren = 0;
	s->scounteren = 0;
	s->mcountinhibit = 0;
	s->mcycle_off = 0;
	memset(s->pmpcfg, 0, sizeof(s->pmpcfg));
	memset(s->pmpaddr, 0, sizeof(s->pmpaddr));
	s->dcsr = DCSR_XDEBUGVER4 | SPOOR_ISS_PRV_M;
	s->dpc = 0;
	s->dscratch[0] = 0;
	s->dscratch[1] = 0;
}

/* Reads a counter CSR (cycle/time/instret families); returns 0 or SPOOR_E_NO_CSR. */
static int read_counter(struct spoor_iss *s, unsigned csr, uint64_t *v)
{
	unsigned idx = csr & 0x1f;
	int high = (csr & 0x80) != 0;
	uint64_t val = 0;

	if (high && s->xlen != 32)
		return SPOOR_E_NO_CSR;
	if ((csr & 0xf00) == 0xb00 && idx == 1)
		return SPOOR_E_NO_CSR;	/* no mtime CSR */
	if (idx == 0)
		val = s->cycle + s->mcycle_off;
	else if (idx == 1)
		val = iss_mtime(s);
	else if (idx == 2)
		val = s->instret;
	*v = high ? val >> 32 : val & s->xmask;
	return 0;
}

int iss_csr_read(struct spoor_iss *s, unsigned csr, uint64_t *v)
{
	if ((csr >= CSR_MCYCLE && csr <= CSR_MHPMCOUNTER31) ||
	    (csr >= CSR_MCYCLEH && csr <= CSR_MHPMCOUNTER31H) ||
	    (csr >= CSR_CYCLE && csr <= CSR_HPMCOUNTER31) ||
	    (csr >= CSR_CYCLEH && csr <= CSR_HPMCOUNTER31H))
		return read_counter(s, csr, v);
	if (csr >= CSR_MHPMEVENT3 && csr <= CSR_MHPMEVENT31) {
		*v = 0;
		return 0;
	}
	if (csr >= CSR_PMPCFG0 && csr <= CSR_PMPCFG15) {
		if (s->xlen == 64 && (csr & 1))
			return SPOOR_E_NO_CSR;
		*v = s->pmpcfg[csr - CSR_PMPCFG0];
		return 0;
	}
	if (csr >= CSR_PMPADDR0 && csr <= CSR_PMPADDR63) {
		*v = s->pmpaddr[csr - CSR_PMPADDR0];
		return 0;
	}
	switch (csr) {
	case CSR_SSTATUS:	*v = s->mstatus & SSTATUS_RMASK; break;
	case CSR_SIE:		*v = s->mie & s->mideleg; break;
	case CSR_STVEC:		*v = s->stvec; break;
	case CSR_SCOUNTEREN:	*v = s->scounteren; break;
	case CSR_SSCRATCH:	*v = s->sscratch; break;
	case CSR_SEPC:		*v = s->sepc; break;
	case CSR_SCAUSE:	*v = s->scause; break;
	case CSR_STVAL:		*v = s->stval; break;
	case CSR_SIP:		*v = iss_mip(s) & s->mideleg; break;
	case CSR_MSTATUS:	*v = s->mstatus; break;
	case CSR_MISA:		*v = s->misa; break;
	case CSR_MEDELEG:	*v = s->medeleg; break;
	case CSR_MIDELEG:	*v = s->mideleg; break;
	case CSR_MIE:		*v = s->mie; break;
	case CSR_MTVEC:		*v = s->mtvec; break;
	case CSR_MCOUNTEREN:	*v = s->mcounteren; break;
	case CSR_MCOUNTINHIBIT:	*v = s->mcountinhibit; break;
	case CSR_MSCRATCH:	*v = s->mscratch; break;
	case CSR_MEPC:		*v = s->mepc; break;
	case CSR_MCAUSE:	*v = s->mcause; break;
	case CSR_MTVAL:		*v = s->mtval; break;
	case CSR_MIP:		*v = iss_mip(s); break;
	case CSR_DCSR:		*v = s->dcsr; break;
	case CSR_DPC:		*v = s->dpc; break;
	case CSR_DSCRATCH0:	*v = s->dscratch[0]; break;
	case CSR_DSCRATCH1:	*v = s->dscratch[1]; break;
	case CSR_MHARTID:	*v = s->hartid; break;
	case CSR_SENVCFG:
	case CSR_SATP:
	case CSR_MENVCFG:
	case CSR_TSELECT:
	case CSR_TDATA1:
	case CSR_TDATA1 + 1:
	case CSR_TDATA3:
	case CSR_MVENDORID:
	case CSR_MARCHID:
	case CSR_MIMPID:
	case CSR_MCONFIGPTR:
		*v = 0;
		break;
	case CSR_MSTATUSH:
	case CSR_MENVCFGH:
		if (s->xlen != 32)
			return SPOOR_E_NO_CSR;
		*v = 0;
		break;
	default:
		return SPOOR_E_NO_CSR;
	}
	*v &= s->xmask;
	return 0;
}

/* Writes a counter CSR; returns 0 or SPOOR_E_NO_CSR. */
static int write_counter(struct spoor_iss *s, unsigned csr, uint64_t v)
{
	unsigned idx = csr & 0x1f;
	uint64_t old;

	if ((csr & 0xf00) != 0xb00 || read_counter(s, csr, &old))
		return SPOOR_E_NO_CSR;
	if (idx != 0 && idx != 2)
		return 0;	/* hpm counters: read-only zero */
	old = idx == 0 ? s->cycle + s->mcycle_off : s->instret;
	if (csr & 0x80)
		v = (old & 0xffffffffull) | v << 32;
	else if (s->xlen == 32)
		v = (old & ~0xffffffffull) | (v & 0xffffffffull);
	if (idx == 0)
		s->mcycle_off = v - s->cycle;
	else
		s->instret = v;
	return 0;
}

/* Writes mstatus (or sstatus's bits, @mask); returns 0. */
static int write_status(struct spoor_iss *s, uint64_t v, uint64_t mask)
{
	/* MPP = 2 is reserved: keep the old value. */
	if (((v & MS_MPP) >> MS_MPP_SHIFT) == 2)
		v = (v & ~MS_MPP) | (s->mstatus & MS_MPP);
	s->mstatus = (s->mstatus & ~mask) | (v & mask);
	return 0;
}

/* Writes dcsr (prv 2 is reserved: kept); returns 0. */
static int write_dcsr(struct spoor_iss *s, uint64_t v)
{
	if ((v & SPOOR_ISS_DCSR_PRV) == 2)
		v = (v & ~(uint64_t)SPOOR_ISS_DCSR_PRV) | (s->dcsr & SPOOR_ISS_DCSR_PRV);
	s->dcsr = (s->dcsr & ~(uint64_t)DCSR_WMASK) | (v & DCSR_WMASK);
	return 0;
}

int iss_csr_write(struct spoor_iss *s, unsigned csr, uint64_t v)
{
	uint64_t old;

	v &= s->xmask;
	if ((csr & 0xc00) == 0xc00)
		return SPOOR_E_NO_CSR;	/* read-only */
	if ((csr >= CSR_MCYCLE && csr <= CSR_MHPMCOUNTER31) ||
	    (csr >= CSR_MCYCLEH && csr <= CSR_MHPMCOUNTER31H))
		return write_counter(s, csr, v);
	if (iss_csr_read(s, csr, &old))
		return SPOOR_E_NO_CSR;
	if (csr >= CSR_PMPCFG0 && csr <= CSR_PMPCFG15) {
		s->pmpcfg[csr - CSR_PMPCFG0] = v;
		return 0;
	}
	if (csr >= CSR_PMPADDR0 && csr <= CSR_PMPADDR63) {
		s->pmpaddr[csr - CSR_PMPADDR0] = v & (s->xlen == 64 ? (1ull << 54) - 1 : ~0ull);
		return 0;
	}
	switch (csr) {
	case CSR_SSTATUS:	return write_status(s, v, SSTATUS_WMASK);
	case CSR_MSTATUS:	return write_status(s, v, MSTATUS_WMASK);
	case CSR_SIE:		s->mie = (s->mie & ~s->mideleg) | (v & s->mideleg); break;
	case CSR_MIE:		s->mie = v & ALL_IRQS; break;
	case CSR_STVEC:		s->stvec = v & ~2ull; break;
	case CSR_MTVEC:		s->mtvec = v & ~2ull; break;
	case CSR_SCOUNTEREN:	s->scounteren = v & 0xffffffffull; break;
	case CSR_MCOUNTEREN:	s->mcounteren = v & 0xffffffffull; break;
	case CSR_SSCRATCH:	s->sscratch = v; break;
	case CSR_MSCRATCH:	s->mscratch = v; break;
	case CSR_SEPC:		s->sepc = v & ~1ull; break;
	case CSR_MEPC:		s->mepc = v & ~1ull; break;
	case CSR_SCAUSE:	s->scause = v; break;
	case CSR_MCAUSE:	s->mcause = v; break;
	case CSR_STVAL:		s->stval = v; break;
	case CSR_MTVAL:		s->mtval = v; break;
	case CSR_SIP:
		s->mip_sw = (s->mip_sw & ~(MIP_SSIP & s->mideleg)) | (v & MIP_SSIP & s->mideleg);
		break;
	case CSR_MIP:		s->mip_sw = (s->mip_sw & ~S_IRQS) | (v & S_IRQS); break;
	case CSR_MEDELEG:	s->medeleg = v & MEDELEG_MASK; break;
	case CSR_MIDELEG:	s->mideleg = v & S_IRQS; break;
	case CSR_DCSR:		return write_dcsr(s, v);
	case CSR_DPC:		s->dpc = v & ~1ull; break;
	case CSR_DSCRATCH0:	s->dscratch[0] = v; break;
	case CSR_DSCRATCH1:	s->dscratch[1] = v; break;
	default:
		/* WARL zero: misa, satp (bare only), envcfg, triggers, hpm events, ... */
		break;
	}
	return 0;
}

/* Checks whether the current privilege may access @csr; returns 1 if so. */
static int csr_allowed(const struct spoor_iss *s, unsigned csr, int write)
{
	unsigned bit = csr & 0x1f;

	if ((int)((csr >> 8) & 3) > s->priv)
		return 0;
	if (write && (csr & 0xc00) == 0xc00)
		return 0;
	if (csr >= CSR_DCSR && csr <= 0x7bf && !s->debug_mode)
		return 0;
	if (csr == CSR_SATP && s->priv == SPOOR_ISS_PRV_S && (s->mstatus & MS_TVM))
		return 0;
	if ((csr & 0xf60) == 0xc00 && s->priv < SPOOR_ISS_PRV_M) {
		if (!((s->mcounteren >> bit) & 1))
			return 0;
		if (s->priv == SPOOR_ISS_PRV_U && !((s->scounteren >> bit) & 1))
			return 0;
	}
	return 1;
}

int iss_csr_insn(struct spoor_iss *s, const struct dinsn *d, unsigned op)
{
	unsigned csr = (unsigned)d->imm & 0xfff;
	uint64_t src = (op & 4) ? d->rs1 : s->x[d->rs1] & s->xmask;
	int write = (op & 3) == 1 || d->rs1 != 0;
	uint64_t old, v;

	if (!csr_allowed(s, csr, write) || iss_csr_read(s, csr, &old))
		return iss_exception(s, d->pc, EXC_ILLEGAL, d->raw);
	if (write) {
		switch (op & 3) {
		case 1: v = src; break;
		case 2: v = old | src; break;
		default: v = old & ~src; break;
		}
		if (iss_csr_write(s, csr, v))
			return iss_exception(s, d->pc, EXC_ILLEGAL, d->raw);
		/* The step loop counts this instruction after the write. */
		if (csr == CSR_MCYCLE || csr == CSR_MCYCLEH)
			s->mcycle_off--;
		else if (csr == CSR_MINSTRET || csr == CSR_MINSTRETH)
			s->instret--;
	}
	s->x[d->rd] = s->xlen == 32 ? sext32(old) : old;
	s->pc = d->pc + d->len;
	s->next_check = 0;
	return R_SEQ;
}
