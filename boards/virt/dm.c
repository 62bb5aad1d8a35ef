// SPDX-License-Identifier: MIT
/*
 * The virtual board's Debug Module: the DMI registers of the RISC-V debug
 * spec 0.13 for one hart, carried out on the simulator at once.
 */
#include <stdlib.h>

#include "spoor/error.h"
#include "dm.h"

/* Implemented hartsel bits (hartsello only: HARTSELLEN 10). */
#define HARTSEL_MASK	0x3ffu
/* Abstract data registers. */
#define DATACOUNT	2
/* abstractauto.autoexecdata bits we keep (one per data register). */
#define AUTOEXEC_MASK	((1u << DATACOUNT) - 1)
/* sbcs bits the debugger sets and reads back. */
#define SBCS_RW		(SPOOR_DM_SBCS_SBREADONADDR | SPOOR_DM_SBCS_SBACCESS | \
			 SPOOR_DM_SBCS_SBAUTOINCREMENT | SPOOR_DM_SBCS_SBREADONDATA)
/* Instructions a single step may take (a wfi can need more than one call). */
#define STEP_TRIES	4

struct spoor_dm {
	struct spoor_iss *iss;
	unsigned xlen;
	int dmactive;
	uint32_t hartsel;
	int haltreq;		/* halt request pending for hart 0 */
	int ndmreset;		/* dmcontrol.ndmreset */
	int srst;		/* system reset line */
	int in_reset;		/* the hart is held in reset */
	int resumeack;
	int havereset;
	uint32_t data[DATACOUNT];
	uint32_t command;	/* the last command written (for autoexec) */
	uint32_t abstractauto;
	unsigned cmderr;
	uint32_t sbcs;		/* SBCS_RW bits */
	unsigned sberror;
	int sbbusyerror;
	uint64_t sbaddress;
	uint32_t sbdata[2];
};

/* Puts the DM registers in their reset state; returns nothing. */
static void dm_reset_regs(struct spoor_dm *dm)
{
	dm->dmactive = 0;
	dm->hartsel = 0;
	dm->haltreq = 0;
	dm->data[0] = 0;
	dm->data[1] = 0;
	dm->command = 0;
	dm->abstractauto = 0;
	dm->cmderr = 0;
	dm->sbcs = 0;
	dm->sberror = 0;
	dm->sbbusyerror = 0;
	dm->sbaddress = 0;
	dm->sbdata[0] = 0;
	dm->sbdata[1] = 0;
}

struct spoor_dm *spoor_dm_new(struct spoor_iss *iss)
{
	struct spoor_dm *dm;

	if (!iss)
		return NULL;
	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return NULL;
	dm->iss = iss;
	dm->xlen = spoor_iss_xlen(iss);
	dm->havereset = 1;
	dm_reset_regs(dm);
	return dm;
}

void spoor_dm_free(struct spoor_dm *dm)
{
	free(dm);
}

/* Returns nonzero if the selected hart exists (hartsel 0). */
static int hart_selected(const struct spoor_dm *dm)
{
	return dm->hartsel == 0;
}

/* Returns nonzero if the hart is halted (in Debug Mode, not in reset). */
static int hart_halted(const struct spoor_dm *dm)
{
	return !dm->in_reset && spoor_iss_halted(dm->iss) == 1;
}

/* Halts the hart for @cause if it runs; returns nothing. */
static void hart_halt(struct spoor_dm *dm, unsigned cause)
{
	if (!dm->in_reset && spoor_iss_halted(dm->iss) == 0)
		spoor_iss_enter_debug(dm->iss, cause);
}

/* Resumes the halted hart, completing a single step at once; returns nothing. */
static void hart_resume(struct spoor_dm *dm)
{
	uint64_t dcsr = 0;

	if (!hart_halted(dm))
		return;
	spoor_iss_read_csr(dm->iss, SPOOR_ISS_CSR_DCSR, &dcsr);
	if (spoor_iss_resume(dm->iss))
		return;
	dm->resumeack = 1;
	if (!(dcsr & SPOOR_ISS_DCSR_STEP))
		return;
	for (int i = 0; i < STEP_TRIES && !spoor_iss_halted(dm->iss); i++)
		if (spoor_iss_step(dm->iss, 1) == SPOOR_ISS_STOP_EXIT)
			break;
}

/* Applies the reset lines (ndmreset, srst) to the hart; returns nothing. */
static void update_reset(struct spoor_dm *dm)
{
	int reset = dm->ndmreset || dm->srst;

	if (reset == dm->in_reset)
		return;
	dm->in_reset = reset;
	if (reset) {
		spoor_iss_reset(dm->iss);
		dm->resumeack = 0;
		return;
	}
	dm->havereset = 1;
	if (dm->haltreq)
		hart_halt(dm, SPOOR_ISS_DEBUG_HALTREQ);
}

/* Returns the dmstatus value for the selected hart. */
static uint32_t dmstatus(const struct spoor_dm *dm)
{
	uint32_t v = 2 | SPOOR_DM_DMSTATUS_AUTHENTICATED;

	if (!hart_selected(dm))
		return v | SPOOR_DM_DMSTATUS_ALLNONEXISTENT | SPOOR_DM_DMSTATUS_ANYNONEXISTENT;
	if (dm->in_reset)
		v |= SPOOR_DM_DMSTATUS_ALLUNAVAIL | SPOOR_DM_DMSTATUS_ANYUNAVAIL;
	else if (hart_halted(dm))
		v |= SPOOR_DM_DMSTATUS_ALLHALTED | SPOOR_DM_DMSTATUS_ANYHALTED;
	else
		v |= SPOOR_DM_DMSTATUS_ALLRUNNING | SPOOR_DM_DMSTATUS_ANYRUNNING;
	if (dm->resumeack)
		v |= SPOOR_DM_DMSTATUS_ALLRESUMEACK | SPOOR_DM_DMSTATUS_ANYRESUMEACK;
	if (dm->havereset)
		v |= SPOOR_DM_DMSTATUS_ALLHAVERESET | SPOOR_DM_DMSTATUS_ANYHAVERESET;
	return v;
}

/* Returns the dmcontrol value (the readable fields). */
static uint32_t dmcontrol(const struct spoor_dm *dm)
{
	return dm->hartsel << SPOOR_DM_DMCONTROL_HARTSELLO_SHIFT |
	       (dm->ndmreset ? SPOOR_DM_DMCONTROL_NDMRESET : 0) |
	       (dm->dmactive ? SPOOR_DM_DMCONTROL_DMACTIVE : 0);
}

/* Carries out a dmcontrol write; returns nothing. */
static void write_dmcontrol(struct spoor_dm *dm, uint32_t v)
{
	if (!(v & SPOOR_DM_DMCONTROL_DMACTIVE)) {
		dm_reset_regs(dm);
		dm->ndmreset = 0;
		update_reset(dm);
		return;
	}
	dm->dmactive = 1;
	dm->hartsel = (v & SPOOR_DM_DMCONTROL_HARTSELLO) >> SPOOR_DM_DMCONTROL_HARTSELLO_SHIFT;
	dm->ndmreset = !!(v & SPOOR_DM_DMCONTROL_NDMRESET);
	if (hart_selected(dm)) {
		dm->haltreq = !!(v & SPOOR_DM_DMCONTROL_HALTREQ);
		if (v & SPOOR_DM_DMCONTROL_ACKHAVERESET)
			dm->havereset = 0;
	}
	update_reset(dm);
	if (!hart_selected(dm))
		return;
	if (dm->haltreq) {
		hart_halt(dm, SPOOR_ISS_DEBUG_HALTREQ);
	} else if (v & SPOOR_DM_DMCONTROL_RESUMEREQ) {
		dm->resumeack = 0;
		hart_resume(dm);
	}
}

/* Returns the abstractcs value. */
static uint32_t abstractcs(const struct spoor_dm *dm)
{
	return dm->cmderr << SPOOR_DM_ABSTRACTCS_CMDERR_SHIFT | DATACOUNT;
}

/* Returns nonzero if an access of @aarsize fits the hart's registers. */
static int aarsize_ok(const struct spoor_dm *dm, unsigned aarsize)
{
	return aarsize == 2 || (aarsize == 3 && dm->xlen == 64);
}

/* Reads register @regno into *@v; returns 0 or a negative error. */
static int reg_read(struct spoor_dm *dm, unsigned regno, uint64_t *v)
{
	if (regno < 0x1000)
		return spoor_iss_read_csr(dm->iss, regno, v);
	if (regno - SPOOR_DM_REGNO_GPR0 < 32)
		return spoor_iss_read_reg(dm->iss, regno - SPOOR_DM_REGNO_GPR0, v);
	return SPOOR_E_INVAL;
}

/* Writes @v to register @regno; returns 0 or a negative error. */
static int reg_write(struct spoor_dm *dm, unsigned regno, uint64_t v)
{
	if (regno < 0x1000)
		return spoor_iss_write_csr(dm->iss, regno, v);
	if (regno - SPOOR_DM_REGNO_GPR0 < 32)
		return spoor_iss_write_reg(dm->iss, regno - SPOOR_DM_REGNO_GPR0, v);
	return SPOOR_E_INVAL;
}

/* Moves register @regno to or from data0/1 (arg0); returns a cmderr value. */
static unsigned transfer(struct spoor_dm *dm, unsigned regno, unsigned aarsize, int write)
{
	uint64_t v = 0;

	if (write) {
		v = dm->data[0];
		if (aarsize == 3)
			v |= (uint64_t)dm->data[1] << 32;
		return reg_write(dm, regno, v) ? SPOOR_DM_CMDERR_EXCEPTION : 0;
	}
	if (reg_read(dm, regno, &v))
		return SPOOR_DM_CMDERR_EXCEPTION;
	dm->data[0] = (uint32_t)v;
	if (aarsize == 3)
		dm->data[1] = (uint32_t)(v >> 32);
	return 0;
}

/* Carries out an Access Register command; returns a cmderr value. */
static unsigned access_register(struct spoor_dm *dm, uint32_t cmd)
{
	unsigned aarsize = (cmd >> SPOOR_DM_AC_AARSIZE_SHIFT) & 7;
	unsigned regno = cmd & SPOOR_DM_AC_REGNO;
	unsigned err;

	if (cmd & SPOOR_DM_AC_POSTEXEC)
		return SPOOR_DM_CMDERR_NOT_SUPPORTED;	/* no program buffer */
	if (!(cmd & SPOOR_DM_AC_TRANSFER))
		return 0;
	if (!aarsize_ok(dm, aarsize))
		return SPOOR_DM_CMDERR_NOT_SUPPORTED;
	if (!hart_selected(dm) || !hart_halted(dm))
		return SPOOR_DM_CMDERR_HALT_RESUME;
	err = transfer(dm, regno, aarsize, !!(cmd & SPOOR_DM_AC_WRITE));
	if (!err && (cmd & SPOOR_DM_AC_POSTINCREMENT))
		dm->command = (cmd & ~SPOOR_DM_AC_REGNO) | ((regno + 1) & SPOOR_DM_AC_REGNO);
	return err;
}

/* Executes the command in dm->command, setting cmderr; returns nothing. */
static void execute(struct spoor_dm *dm)
{
	uint32_t cmd = dm->command;

	if (dm->cmderr)
		return;
	if (cmd >> 24 != 0)
		dm->cmderr = SPOOR_DM_CMDERR_NOT_SUPPORTED;
	else
		dm->cmderr = access_register(dm, cmd);
}

/* Re-executes the command if data register @i has autoexec set; returns nothing. */
static void autoexec(struct spoor_dm *dm, unsigned i)
{
	if (dm->abstractauto & (1u << i))
		execute(dm);
}

/* Returns the sbcs value. */
static uint32_t sbcs(const struct spoor_dm *dm)
{
	uint32_t v = 1u << SPOOR_DM_SBCS_SBVERSION_SHIFT | dm->sbcs |
		     dm->sberror << SPOOR_DM_SBCS_SBERROR_SHIFT |
		     dm->xlen << SPOOR_DM_SBCS_SBASIZE_SHIFT |
		     SPOOR_DM_SBCS_SBACCESS8 | SPOOR_DM_SBCS_SBACCESS16 | SPOOR_DM_SBCS_SBACCESS32;

	if (dm->sbbusyerror)
		v |= SPOOR_DM_SBCS_SBBUSYERROR;
	if (dm->xlen == 64)
		v |= SPOOR_DM_SBCS_SBACCESS64;
	return v;
}

/* Carries out an sbcs write; returns nothing. */
static void write_sbcs(struct spoor_dm *dm, uint32_t v)
{
	dm->sbcs = v & SBCS_RW;
	dm->sberror &= ~((v & SPOOR_DM_SBCS_SBERROR) >> SPOOR_DM_SBCS_SBERROR_SHIFT);
	if (v & SPOOR_DM_SBCS_SBBUSYERROR)
		dm->sbbusyerror = 0;
}

/* Returns the size in bytes sbcs.sbaccess selects, or 0 if unsupported. */
static unsigned sb_size(const struct spoor_dm *dm)
{
	unsigned a = (dm->sbcs & SPOOR_DM_SBCS_SBACCESS) >> SPOOR_DM_SBCS_SBACCESS_SHIFT;

	if (a > 3 || (a == 3 && dm->xlen != 64))
		return 0;
	return 1u << a;
}

/* Returns the address mask for sbasize bits. */
static uint64_t sb_mask(const struct spoor_dm *dm)
{
	return dm->xlen == 64 ? ~0ull : 0xffffffffull;
}

/* Checks a bus access of the selected size; returns the size, or 0 with sberror set. */
static unsigned sb_check(struct spoor_dm *dm)
{
	unsigned size = sb_size(dm);

	if (!size) {
		dm->sberror = SPOOR_DM_SBERROR_SIZE;
		return 0;
	}
	if (dm->sbaddress & (size - 1)) {
		dm->sberror = SPOOR_DM_SBERROR_ALIGNMENT;
		return 0;
	}
	return size;
}

/* Advances sbaddress after an access of @size if autoincrement is on; returns nothing. */
static void sb_advance(struct spoor_dm *dm, unsigned size)
{
	if (dm->sbcs & SPOOR_DM_SBCS_SBAUTOINCREMENT)
		dm->sbaddress = (dm->sbaddress + size) & sb_mask(dm);
}

/* Reads the bus at sbaddress into sbdata; returns nothing (errors go to sberror). */
static void sb_read(struct spoor_dm *dm)
{
	unsigned size;
	uint64_t v;

	if (dm->sberror || dm->sbbusyerror)
		return;
	size = sb_check(dm);
	if (!size)
		return;
	if (spoor_iss_bus_read(dm->iss, dm->sbaddress, size, &v)) {
		dm->sberror = SPOOR_DM_SBERROR_BAD_ADDRESS;
		return;
	}
	dm->sbdata[0] = (uint32_t)v;
	if (size == 8)
		dm->sbdata[1] = (uint32_t)(v >> 32);
	sb_advance(dm, size);
}

/* Writes sbdata to the bus at sbaddress; returns nothing (errors go to sberror). */
static void sb_write(struct spoor_dm *dm)
{
	uint64_t v = dm->sbdata[0];
	unsigned size;

	if (dm->sberror || dm->sbbusyerror)
		return;
	size = sb_check(dm);
	if (!size)
		return;
	if (size == 8)
		v |= (uint64_t)dm->sbdata[1] << 32;
	else if (size < 4)
		v &= (1ull << (8 * size)) - 1;
	if (spoor_iss_bus_write(dm->iss, dm->sbaddress, size, v)) {
		dm->sberror = SPOOR_DM_SBERROR_BAD_ADDRESS;
		return;
	}
	sb_advance(dm, size);
}

/* Returns the haltsum0/1/2/3 value (all cover hart 0 when hartsel is in its window). */
static uint32_t haltsum(const struct spoor_dm *dm, unsigned shift)
{
	return (dm->hartsel >> shift) == 0 && hart_halted(dm);
}

/* Reads the SBA register @addr; returns its value. */
static uint32_t read_sba(struct spoor_dm *dm, unsigned addr)
{
	uint32_t v;

	switch (addr) {
	case SPOOR_DM_SBCS:
		return sbcs(dm);
	case SPOOR_DM_SBADDRESS0:
		return (uint32_t)dm->sbaddress;
	case SPOOR_DM_SBADDRESS1:
		return dm->xlen == 64 ? (uint32_t)(dm->sbaddress >> 32) : 0;
	case SPOOR_DM_SBDATA0:
		v = dm->sbdata[0];
		if (dm->dmactive && (dm->sbcs & SPOOR_DM_SBCS_SBREADONDATA))
			sb_read(dm);
		return v;
	case SPOOR_DM_SBDATA1:
		return dm->sbdata[1];
	}
	return 0;
}

int spoor_dm_read(struct spoor_dm *dm, unsigned addr, uint32_t *value)
{
	uint32_t v = 0;

	if (!dm || !value)
		return SPOOR_E_INVAL;
	switch (addr) {
	case SPOOR_DM_DATA0:
	case SPOOR_DM_DATA1:
		v = dm->data[addr - SPOOR_DM_DATA0];
		autoexec(dm, addr - SPOOR_DM_DATA0);
		break;
	case SPOOR_DM_DMCONTROL:
		v = dmcontrol(dm);
		break;
	case SPOOR_DM_DMSTATUS:
		v = dmstatus(dm);
		break;
	case SPOOR_DM_ABSTRACTCS:
		v = abstractcs(dm);
		break;
	case SPOOR_DM_ABSTRACTAUTO:
		v = dm->abstractauto;
		break;
	case SPOOR_DM_HALTSUM0:
		v = haltsum(dm, 5);
		break;
	case SPOOR_DM_HALTSUM1:
	case SPOOR_DM_HALTSUM2:
	case SPOOR_DM_HALTSUM3:
		v = haltsum(dm, 10);
		break;
	default:
		v = read_sba(dm, addr);
		break;
	}
	*value = v;
	return 0;
}

/* Carries out a write to the SBA register @addr; returns nothing. */
static void write_sba(struct spoor_dm *dm, unsigned addr, uint32_t v)
{
	switch (addr) {
	case SPOOR_DM_SBCS:
		write_sbcs(dm, v);
		break;
	case SPOOR_DM_SBADDRESS0:
		dm->sbaddress = ((dm->sbaddress & ~0xffffffffull) | v) & sb_mask(dm);
		if (dm->sbcs & SPOOR_DM_SBCS_SBREADONADDR)
			sb_read(dm);
		break;
	case SPOOR_DM_SBADDRESS1:
		if (dm->xlen == 64)
			dm->sbaddress = (dm->sbaddress & 0xffffffffull) | (uint64_t)v << 32;
		break;
	case SPOOR_DM_SBDATA0:
		dm->sbdata[0] = v;
		sb_write(dm);
		break;
	case SPOOR_DM_SBDATA1:
		dm->sbdata[1] = v;
		break;
	}
}

int spoor_dm_write(struct spoor_dm *dm, unsigned addr, uint32_t value)
{
	if (!dm)
		return SPOOR_E_INVAL;
	if (addr == SPOOR_DM_DMCONTROL) {
		write_dmcontrol(dm, value);
		return 0;
	}
	if (!dm->dmactive)
		return 0;
	switch (addr) {
	case SPOOR_DM_DATA0:
	case SPOOR_DM_DATA1:
		dm->data[addr - SPOOR_DM_DATA0] = value;
		autoexec(dm, addr - SPOOR_DM_DATA0);
		break;
	case SPOOR_DM_ABSTRACTCS:
		dm->cmderr &= ~((value & SPOOR_DM_ABSTRACTCS_CMDERR) >>
				SPOOR_DM_ABSTRACTCS_CMDERR_SHIFT);
		break;
	case SPOOR_DM_COMMAND:
		if (!dm->cmderr) {
			dm->command = value;
			execute(dm);
		}
		break;
	case SPOOR_DM_ABSTRACTAUTO:
		dm->abstractauto = value & AUTOEXEC_MASK;
		break;
	default:
		write_sba(dm, addr, value);
		break;
	}
	return 0;
}

int spoor_dm_set_reset(struct spoor_dm *dm, int asserted)
{
	if (!dm)
		return SPOOR_E_INVAL;
	dm->srst = !!asserted;
	update_reset(dm);
	return 0;
}

int spoor_dm_run(struct spoor_dm *dm, uint64_t n)
{
	int r;

	if (!dm)
		return SPOOR_E_INVAL;
	if (dm->in_reset)
		return SPOOR_ISS_STOP_IDLE;
	if (dm->haltreq)
		hart_halt(dm, SPOOR_ISS_DEBUG_HALTREQ);
	if (spoor_iss_halted(dm->iss) == 1)
		return SPOOR_ISS_STOP_HALTED;
	r = spoor_iss_step(dm->iss, n);
	if (r == SPOOR_ISS_STOP_RESET)
		dm->havereset = 1;
	return r;
}
