/* SPDX-License-Identifier: MIT */
/*
 * Tight loops closed by an indirect jump back to their head (the E-Trace
 * spec's "looplabel" case): a 32-bit jalr and, in C builds, a c.jr.
 */
	.text
	.globl main
main:
	li	t0, 500
	li	t2, 0
	la	t1, loop1
	.option push
	.option norvc
loop1:
	addi	t2, t2, 3
	addi	t0, t0, -1
	beqz	t0, done1
	jalr	zero, 0(t1)
	.option pop
done1:
	li	t0, 500
	la	t1, loop2
loop2:
	addi	t2, t2, -1
	addi	t0, t0, -1
	beqz	t0, done2
	jr	t1
done2:
	/* 500 * 3 - 500 = 1000 */
	addi	a0, t2, -1000
	ret
