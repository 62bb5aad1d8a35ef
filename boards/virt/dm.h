/* SPDX-License-Identifier: MIT */
/*
 * The virtual board's Debug Module (RISC-V External Debug Support 0.13),
 * on top of the instruction-set simulator's debug accessors.
 *
 * One hart (hartsel 0; other hartsel values read as nonexistent), direct
 * access only: Access Register abstract commands (GPRs 0x1000-0x101f and
 * CSRs 0x0000-0x0fff, 32- or 64-bit up to XLEN, no program buffer), two data
 * registers with abstractauto, System Bus Access (sbversion 1, sbasize =
 * XLEN), halt/resume/single step through dcsr.step, ndmreset and
 * havereset.  Every operation completes at once: abstractcs.busy and
 * sbcs.sbbusy always read 0.
 *
 * While the hart runs, the owner calls spoor_dm_run() in a loop.
 */
#ifndef SPOOR_DM_H
#define SPOOR_DM_H

#include <stdint.h>

#include "iss.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spoor_dm;

/* DMI register addresses. */
#define SPOOR_DM_DATA0		0x04
#define SPOOR_DM_DATA1		0x05
#define SPOOR_DM_DMCONTROL	0x10
#define SPOOR_DM_DMSTATUS	0x11
#define SPOOR_DM_HARTINFO	0x12
#define SPOOR_DM_HALTSUM1	0x13
#define SPOOR_DM_ABSTRACTCS	0x16
#define SPOOR_DM_COMMAND	0x17
#define SPOOR_DM_ABSTRACTAUTO	0x18
#define SPOOR_DM_NEXTDM		0x1d
#define SPOOR_DM_PROGBUF0	0x20
#define SPOOR_DM_AUTHDATA	0x30
#define SPOOR_DM_HALTSUM2	0x34
#define SPOOR_DM_HALTSUM3	0x35
#define SPOOR_DM_SBCS		0x38
#define SPOOR_DM_SBADDRESS0	0x39
#define SPOOR_DM_SBADDRESS1	0x3a
#define SPOOR_DM_SBDATA0	0x3c
#define SPOOR_DM_SBDATA1	0x3d
#define SPOOR_DM_HALTSUM0	0x40

/* dmcontrol fields. */
#define SPOOR_DM_DMCONTROL_HALTREQ	(1u << 31)
#define SPOOR_DM_DMCONTROL_RESUMEREQ	(1u << 30)
#define SPOOR_DM_DMCONTROL_HARTRESET	(1u << 29)
#define SPOOR_DM_DMCONTROL_ACKHAVERESET	(1u << 28)
#define SPOOR_DM_DMCONTROL_HASEL	(1u << 26)
#define SPOOR_DM_DMCONTROL_HARTSELLO_SHIFT	16
#define SPOOR_DM_DMCONTROL_HARTSELLO	(0x3ffu << 16)
#define SPOOR_DM_DMCONTROL_HARTSELHI	(0x3ffu << 6)
#define SPOOR_DM_DMCONTROL_NDMRESET	(1u << 1)
#define SPOOR_DM_DMCONTROL_DMACTIVE	(1u << 0)

/* dmstatus fields. */
#define SPOOR_DM_DMSTATUS_ALLHAVERESET		(1u << 19)
#define SPOOR_DM_DMSTATUS_ANYHAVERESET		(1u << 18)
#define SPOOR_DM_DMSTATUS_ALLRESUMEACK		(1u << 17)
#define SPOOR_DM_DMSTATUS_ANYRESUMEACK		(1u << 16)
#define SPOOR_DM_DMSTATUS_ALLNONEXISTENT	(1u << 15)
#define SPOOR_DM_DMSTATUS_ANYNONEXISTENT	(1u << 14)
#define SPOOR_DM_DMSTATUS_ALLUNAVAIL		(1u << 13)
#define SPOOR_DM_DMSTATUS_ANYUNAVAIL		(1u << 12)
#define SPOOR_DM_DMSTATUS_ALLRUNNING		(1u << 11)
#define SPOOR_DM_DMSTATUS_ANYRUNNING		(1u << 10)
#define SPOOR_DM_DMSTATUS_ALLHALTED		(1u << 9)
#define SPOOR_DM_DMSTATUS_ANYHALTED		(1u << 8)
#define SPOOR_DM_DMSTATUS_AUTHENTICATED		(1u << 7)
#define SPOOR_DM_DMSTATUS_VERSION		0xfu

/* abstractcs fields and cmderr values. */
#define SPOOR_DM_ABSTRACTCS_PROGBUFSIZE_SHIFT	24
#define SPOOR_DM_ABSTRACTCS_BUSY		(1u << 12)
#define SPOOR_DM_ABSTRACTCS_CMDERR_SHIFT	8
#define SPOOR_DM_ABSTRACTCS_CMDERR		(7u << 8)
#define SPOOR_DM_ABSTRACTCS_DATACOUNT		0xfu
#define SPOOR_DM_CMDERR_NONE		0
#define SPOOR_DM_CMDERR_BUSY		1
#define SPOOR_DM_CMDERR_NOT_SUPPORTED	2
#define SPOOR_DM_CMDERR_EXCEPTION	3
#define SPOOR_DM_CMDERR_HALT_RESUME	4

/* Access Register command fields. */
#define SPOOR_DM_AC_AARSIZE_SHIFT	20
#define SPOOR_DM_AC_AARSIZE_32		(2u << 20)
#define SPOOR_DM_AC_AARSIZE_64		(3u << 20)
#define SPOOR_DM_AC_POSTINCREMENT	(1u << 19)
#define SPOOR_DM_AC_POSTEXEC		(1u << 18)
#define SPOOR_DM_AC_TRANSFER		(1u << 17)
#define SPOOR_DM_AC_WRITE		(1u << 16)
#define SPOOR_DM_AC_REGNO		0xffffu
#define SPOOR_DM_REGNO_GPR0		0x1000

/* sbcs fields and sberror values. */
#define SPOOR_DM_SBCS_SBVERSION_SHIFT	29
#define SPOOR_DM_SBCS_SBBUSYERROR	(1u << 22)
#define SPOOR_DM_SBCS_SBBUSY		(1u << 21)
#define SPOOR_DM_SBCS_SBREADONADDR	(1u << 20)
#define SPOOR_DM_SBCS_SBACCESS_SHIFT	17
#define SPOOR_DM_SBCS_SBACCESS		(7u << 17)
#define SPOOR_DM_SBCS_SBAUTOINCREMENT	(1u << 16)
#define SPOOR_DM_SBCS_SBREADONDATA	(1u << 15)
#define SPOOR_DM_SBCS_SBERROR_SHIFT	12
#define SPOOR_DM_SBCS_SBERROR		(7u << 12)
#define SPOOR_DM_SBCS_SBASIZE_SHIFT	5
#define SPOOR_DM_SBCS_SBASIZE		(0x7fu << 5)
#define SPOOR_DM_SBCS_SBACCESS64	(1u << 3)
#define SPOOR_DM_SBCS_SBACCESS32	(1u << 2)
#define SPOOR_DM_SBCS_SBACCESS16	(1u << 1)
#define SPOOR_DM_SBCS_SBACCESS8		(1u << 0)
#define SPOOR_DM_SBERROR_BAD_ADDRESS	2
#define SPOOR_DM_SBERROR_ALIGNMENT	3
#define SPOOR_DM_SBERROR_SIZE		4

/* Returns a Debug Module (inactive, as after power-on) for the hart of
 * @iss, or NULL (NULL @iss, no memory).  @iss must outlive it. */
struct spoor_dm *spoor_dm_new(struct spoor_iss *iss);
void spoor_dm_free(struct spoor_dm *dm);

/*
 * A DMI read of register @addr (unmapped ones read 0).  Reads of sbdata0
 * can start a bus access.  Returns 0 or SPOOR_E_INVAL.
 */
int spoor_dm_read(struct spoor_dm *dm, unsigned addr, uint32_t *value);

/* A DMI write of @value to register @addr (unmapped ones ignore it).
 * Returns 0 or SPOOR_E_INVAL. */
int spoor_dm_write(struct spoor_dm *dm, unsigned addr, uint32_t value);

/* Drives the system reset (JTAG srst) line: while @asserted, the hart is
 * held in reset as with dmcontrol.ndmreset.  Returns 0 or SPOOR_E_INVAL. */
int spoor_dm_set_reset(struct spoor_dm *dm, int asserted);

/*
 * Lets the hart run up to @n instructions if it is running (a pending halt
 * request halts it first).  Returns an enum spoor_iss_stop
 * (SPOOR_ISS_STOP_HALTED if halted, SPOOR_ISS_STOP_IDLE also while held in
 * reset) or SPOOR_E_INVAL.
 */
int spoor_dm_run(struct spoor_dm *dm, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_DM_H */
