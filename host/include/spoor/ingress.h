/* SPDX-License-Identifier: MIT */
/*
 * What a retired instruction is for an E-Trace encoder's instruction trace
 * ingress port (spec "Instruction Trace Interface"): its itype, from the
 * instruction's class, the branch outcome and the link-register rules.
 * Shared by everything that feeds an encoder (spike traces, the virtual
 * board).
 */
#ifndef SPOOR_INGRESS_H
#define SPOOR_INGRESS_H

#include <stdbool.h>

#include "spoor/encoder.h"
#include "spoor/insn.h"

#ifdef __cplusplus
extern "C" {
#endif

enum spoor_ingress_flags {
	/*
	 * Calls and returns (itype 8-15) by the spec's x1/x5 link-register
	 * table; without it, by x1 alone (calls write x1, returns read x1 and
	 * write x0), the rule of the reference decoder and spoor decode's
	 * default.
	 */
	SPOOR_INGRESS_X1X5 = 1 << 0,
	/*
	 * The reference flow's post-iss step: xret is an uninferable jump
	 * (itype 6 or 14), not itype 3, and a sequentially inferable jump gets
	 * an inferable itype.
	 */
	SPOOR_INGRESS_REFERENCE = 1 << 1,
};

/*
 * The itype of the retired, non-trapping instruction @in: @taken is the
 * outcome of a conditional branch, @sijump whether it is a jump whose
 * target the preceding auipc/lui/c.lui fixed, @itype_width 3 or 4.
 */
unsigned spoor_ingress_itype(const struct spoor_insn *in, bool taken, bool sijump,
			     unsigned itype_width, uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif
