/* SPDX-License-Identifier: MIT */
/*
 * Trap after trap, for ever: the trap vector points at address 0, where
 * nothing is mapped, so every trap's handler fetch faults (instruction
 * access fault, epc 0) and traps again without an instruction retiring.
 * The first trap is an illegal instruction; the files that include this
 * one choose another first trap:
 *   TRAPVEC_STORE	a store outside memory (store access fault)
 *   TRAPVEC_JUMP	an illegal instruction at the target of a jr
 *			(the trace carries that EPC, then the next ones)
 *   TRAPVEC_ECALL	an ecall (it retires, its EPC is its own address)
 *   TRAPVEC_EBREAK	an ebreak (c.ebreak in the compressed build)
 *   TRAPVEC_MRET	an mret to user mode, to a store outside memory
 *			(an xRET target and a privilege change)
 * The program never ends: the tools that run it stop after a number of
 * traps.
 */
	.text
	.globl main
main:
	li	t0, 0x55
	csrw	mtvec, zero
	addi	t0, t0, 1
#if defined(TRAPVEC_STORE)
	li	t1, 0x4000000	/* a hole in the virt machine's memory map */
	sw	t0, 0(t1)
#elif defined(TRAPVEC_JUMP)
	la	t1, 1f
	jr	t1
	nop
1:	.word	0		/* illegal */
#elif defined(TRAPVEC_ECALL)
	ecall
#elif defined(TRAPVEC_EBREAK)
	ebreak
#elif defined(TRAPVEC_MRET)
	la	t1, 1f
	csrw	mepc, t1
	li	t1, 0x1800
	csrc	mstatus, t1	/* MPP = U */
	li	t1, 0x4000000
	mret
1:	sw	t0, 0(t1)
#else
	.word	0		/* illegal */
#endif
	j	main
