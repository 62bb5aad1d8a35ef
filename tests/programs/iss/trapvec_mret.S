/* SPDX-License-Identifier: MIT */
/* trapvec.S with an mret to user mode before the first trap (a store). */
#define TRAPVEC_MRET
#include "trapvec.S"
