/* SPDX-License-Identifier: MIT */
/* trapvec.S with an ecall as the first trap. */
#define TRAPVEC_ECALL
#include "trapvec.S"
