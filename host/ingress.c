// SPDX-License-Identifier: MIT
/* Ingress itype of retired instructions (E-Trace "Instruction Trace Interface"). */
#include "spoor/ingress.h"

/* Returns the itype of a jump (@uninf: uninferable) by the link-register rules. */
static unsigned jump_itype(const struct spoor_insn *in, bool uninf, unsigned itype_width,
			   uint32_t flags)
{
	bool call, ret;

	if (itype_width == 3)
		return uninf ? SPOOR_ITYPE_UNINFERABLE : SPOOR_ITYPE_NONE;
	if (flags & SPOOR_INGRESS_X1X5) {
		call = in->flags & SPOOR_INSN_CALL;
		ret = uninf && (in->flags & SPOOR_INSN_RETURN);
	} else {
		call = in->rd == 1;
		ret = uninf && in->rs1 == 1 && in->rd == 0;
	}
	if (call && ret)
		return SPOOR_ITYPE_COROUTINE_SWAP;
	if (call)
		return uninf ? SPOOR_ITYPE_UNINF_CALL : SPOOR_ITYPE_INF_CALL;
	if (ret)
		return SPOOR_ITYPE_RETURN;
	if (in->rd == 0)
		return uninf ? SPOOR_ITYPE_UNINF_JUMP : SPOOR_ITYPE_INF_JUMP;
	return uninf ? SPOOR_ITYPE_UNINF_OTHER : SPOOR_ITYPE_INF_OTHER;
}

unsigned spoor_ingress_itype(const struct spoor_insn *in, bool taken, bool sijump,
			     unsigned itype_width, uint32_t flags)
{
	bool ref = flags & SPOOR_INGRESS_REFERENCE;

	switch (in->cls) {
	case SPOOR_INSN_BRANCH:
		return taken ? SPOOR_ITYPE_TAKEN : SPOOR_ITYPE_NOT_TAKEN;
	case SPOOR_INSN_JUMP:
		return jump_itype(in, false, itype_width, flags);
	case SPOOR_INSN_JALR:
		return jump_itype(in, !(ref && sijump), itype_width, flags);
	case SPOOR_INSN_XRET:
		if (!ref)
			return SPOOR_ITYPE_TRAP_RETURN;
		return itype_width == 3 ? SPOOR_ITYPE_UNINFERABLE : SPOOR_ITYPE_UNINF_OTHER;
	default:
		return SPOOR_ITYPE_NONE;
	}
}
