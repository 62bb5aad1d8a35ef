/* SPDX-License-Identifier: MIT */
/*
 * spoor error codes.  Every spoor function that can fail returns a negative
 * value from enum spoor_error; zero or positive values are results or status
 * flags defined by the function itself.
 */
#ifndef SPOOR_ERROR_H
#define SPOOR_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum spoor_error {
	SPOOR_OK = 0,
	SPOOR_E_INVAL = -1,		/* invalid argument */
	SPOOR_E_NOMEM = -2,		/* out of memory */
	SPOOR_E_UNKNOWN_KEY = -3,	/* unknown configuration key */
	SPOOR_E_RANGE = -4,		/* configuration value out of range */
	SPOOR_E_BAD_VALUE = -5,		/* configuration value not valid (not a number, not a name) */
	SPOOR_E_NOSPACE = -6,		/* output buffer too small */
	SPOOR_E_TOO_LONG = -7,		/* packet does not fit its length field */
	SPOOR_E_BAD_FORMAT = -8,	/* te_inst format/subformat not supported by the parameters */
	SPOOR_E_TRUNCATED = -9,		/* packet payload has fewer bytes than its fields need */
	SPOOR_E_TRAILING = -10,		/* packet payload has whole bytes no field uses */
	SPOOR_E_BAD_HEADER = -11,	/* impossible encapsulation header */
	SPOOR_E_BAD_LENGTH = -12,	/* impossible encapsulation length */
	SPOOR_E_CROSS_BLOCK = -13,	/* packet crosses an alignment block boundary */
	SPOOR_E_BAD_FIELD = -14,	/* field value has no meaning (e.g. branch_fmt 1) */
	SPOOR_E_IO = -15,		/* reading or writing a file failed (errno set) */
	SPOOR_E_SYNTAX = -16,		/* configuration file syntax error */
	SPOOR_E_BAD_CONFIG = -17,	/* inconsistent parameter combination */
	SPOOR_E_NO_IMAGE = -18,		/* no program image covers the address */
	SPOOR_E_BAD_ELF = -19,		/* not a usable RISC-V ELF file */
	SPOOR_E_OVERLAP = -20,		/* program images overlap */
	SPOOR_E_BAD_INSN = -21,		/* no valid instruction at the address */
	SPOOR_E_NOT_FOUND = -22,	/* no symbol or line information for the address */
	SPOOR_E_TRACE = -23,		/* trace inconsistent with the program image */
	SPOOR_E_NO_SYNC = -24,		/* packet before the first synchronisation packet */
	SPOOR_E_NO_CSR = -25,		/* CSR not implemented (or read-only for a write) */
	SPOOR_E_ACCESS = -26,		/* bus access fault: nothing at the address */
	SPOOR_E_CHECKSUM = -27,		/* protocol packet checksum mismatch */
	SPOOR_E_PROTOCOL = -28,		/* malformed protocol message */
	SPOOR_E_CLOSED = -29,		/* the peer closed the connection */
	SPOOR_E_TIMEOUT = -30,		/* no answer in time */
	SPOOR_E_NOT_REGULAR = -31,	/* not a regular file (a directory, device, FIFO) */
	SPOOR_E_DUPLICATE = -32,	/* configuration key given twice */
	SPOOR_E_TOO_BIG = -33,		/* input larger than its format allows */
	SPOOR_E_MISMATCH = -34,		/* program and board/parameters disagree (XLEN, ISA) */
	SPOOR_E_NO_DEVICE = -35,	/* no such probe, or it was unplugged */
	SPOOR_E_STALL = -36,		/* the probe refused the request (USB STALL) */
	SPOOR_E_BUSY = -37,		/* the device is in use by another program */
	SPOOR_E_USB = -38,		/* a USB transfer failed */
	SPOOR_E_LOST = -39,		/* trace bytes were lost (the probe's buffer overflowed) */
};

/* The last (most negative) error code, for tables and tests. */
#define SPOOR_E_LAST SPOOR_E_LOST

/* Returns a static, human-readable description of @err (any int). */
const char *spoor_errstr(int err);

#ifdef __cplusplus
}
#endif

#endif /* SPOOR_ERROR_H */
