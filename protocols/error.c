// SPDX-License-Identifier: MIT
#include "spoor/error.h"

const char *spoor_errstr(int err)
{
	switch (err) {
	case SPOOR_OK:			return "success";
	case SPOOR_E_INVAL:		return "invalid argument";
	case SPOOR_E_NOMEM:		return "out of memory";
	case SPOOR_E_UNKNOWN_KEY:	return "unknown key";
	case SPOOR_E_RANGE:		return "value out of range";
	case SPOOR_E_BAD_VALUE:		return "not a valid value";
	case SPOOR_E_NOSPACE:		return "output buffer too small";
	case SPOOR_E_TOO_LONG:		return "packet too long for its encapsulation";
	case SPOOR_E_BAD_FORMAT:	return "te_inst format not supported by the encoder parameters";
	case SPOOR_E_TRUNCATED:		return "packet payload shorter than its fields";
	case SPOOR_E_TRAILING:		return "packet payload has unused trailing bytes";
	case SPOOR_E_BAD_HEADER:	return "impossible encapsulation header";
	case SPOOR_E_BAD_LENGTH:	return "impossible encapsulation length";
	case SPOOR_E_CROSS_BLOCK:	return "packet crosses an alignment block boundary";
	case SPOOR_E_BAD_FIELD:		return "field value is reserved";
	case SPOOR_E_IO:		return "I/O error";
	case SPOOR_E_SYNTAX:		return "syntax error";
	case SPOOR_E_BAD_CONFIG:	return "inconsistent parameters";
	case SPOOR_E_NO_IMAGE:		return "no program image covers the address";
	case SPOOR_E_BAD_ELF:		return "not a usable RISC-V ELF file";
	case SPOOR_E_OVERLAP:		return "program images overlap";
	case SPOOR_E_BAD_INSN:		return "no valid instruction at the address";
	case SPOOR_E_NOT_FOUND:		return "no symbol or line information";
	case SPOOR_E_TRACE:		return "trace inconsistent with the program image";
	case SPOOR_E_NO_SYNC:		return "packet before the first synchronisation packet";
	case SPOOR_E_NO_CSR:		return "CSR not implemented or read-only";
	case SPOOR_E_ACCESS:		return "bus access fault";
	case SPOOR_E_CHECKSUM:		return "packet checksum mismatch";
	case SPOOR_E_PROTOCOL:		return "malformed protocol message";
	case SPOOR_E_CLOSED:		return "connection closed by the peer";
	case SPOOR_E_TIMEOUT:		return "timed out";
	case SPOOR_E_NOT_REGULAR:	return "not a regular file";
	case SPOOR_E_DUPLICATE:		return "key given twice";
	case SPOOR_E_TOO_BIG:		return "input too large";
	case SPOOR_E_MISMATCH:		return "program does not match the board or parameters";
	case SPOOR_E_NO_DEVICE:		return "no such probe, or it was unplugged";
	case SPOOR_E_STALL:		return "the probe refused the request";
	case SPOOR_E_BUSY:		return "the device is in use by another program";
	case SPOOR_E_USB:		return "USB transfer failed";
	case SPOOR_E_LOST:		return "trace bytes were lost";
	}
	return "unknown error";
}
