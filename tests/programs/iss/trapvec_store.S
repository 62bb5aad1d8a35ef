/* SPDX-License-Identifier: MIT */
/* trapvec.S with a store outside memory as the first trap. */
#define TRAPVEC_STORE
#include "trapvec.S"
