/* SPDX-License-Identifier: MIT */
/*
 * Trap after trap, for ever: the trap vector points at address 0, where
 * nothing is mapped, so every trap's handler fetch faults (instruction
 * access fault, epc 0) and traps again without an instruction retiring.
 * The first trap is an illegal instruction; TRAPVEC_STORE makes it a store
 * outside memory instead (store access fault).  The program never ends: the
 * tools that run it stop after a number of traps.
 */
	.text
	.globl main
main:
	li	t0, 0x55
	csrw	mtvec, zero
	addi	t0, t0, 1
#ifdef TRAPVEC_STORE
	li	t1, 0x4000000	/* a hole in the virt machine's memory map */
	sw	t0, 0(t1)
#else
	.word	0		/* illegal */
#endif
	j	main
