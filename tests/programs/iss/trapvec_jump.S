/* SPDX-License-Identifier: MIT */
/* trapvec.S with an illegal instruction at a jump target as the first trap. */
#define TRAPVEC_JUMP
#include "trapvec.S"
