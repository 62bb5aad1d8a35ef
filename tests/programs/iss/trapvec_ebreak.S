/* SPDX-License-Identifier: MIT */
/* trapvec.S with an ebreak as the first trap. */
#define TRAPVEC_EBREAK
#include "trapvec.S"
