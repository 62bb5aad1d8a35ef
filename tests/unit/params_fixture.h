/* SPDX-License-Identifier: MIT */
/* Encoder parameters the unit tests share. */
#ifndef SPOOR_TEST_PARAMS_FIXTURE_H
#define SPOOR_TEST_PARAMS_FIXTURE_H

#include "spoor/params.h"

/*
 * The itype3_debug setup of the spec's "Code fragment and transport"
 * chapter: full 64-bit addresses (lsb 0), 32-bit context, no time.
 */
static inline void debug_params(struct spoor_params *p)
{
	spoor_params_init(p);
	p->iaddress_lsb_p = 0;
	p->iaddress_width_p = 64;
	p->context_width_p = 32;
	p->nocontext_p = 0;
	p->notime_p = 1;
	p->ecause_width_p = 5;
	p->privilege_width_p = 2;
	p->itype_width_p = 3;
}

#endif /* SPOOR_TEST_PARAMS_FIXTURE_H */
