/* SPDX-License-Identifier: MIT */
/*
 * Privilege changes for the ISS test programs.
 *
 * run_mode(fn, mode): calls fn() in U (mode 0) or S (mode 1) mode through
 * mret; when fn returns, user_exit does ecall with a7 = -1, and the trap
 * handler answers by setting mstatus.MPP = M and epc = user_resume, which
 * restores the M-mode context and returns from run_mode.
 *
 * s_trap_entry: a minimal S-mode handler for delegated ecalls from U:
 * a7 = -1 is passed on to M with an ecall from S; other calls add 100 to
 * a0 and return with sret.
 *
 * trap_vectors: a vectored mtvec table (16 entries, each jumps to
 * trap_entry).
 */
#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define REGBYTES 8
#else
#define REG_S sw
#define REG_L lw
#define REGBYTES 4
#endif

	.text
	.globl run_mode
run_mode:
	addi	sp, sp, -16 * REGBYTES
	REG_S	ra, 0 * REGBYTES(sp)
	REG_S	s0, 1 * REGBYTES(sp)
	REG_S	s1, 2 * REGBYTES(sp)
	REG_S	s2, 3 * REGBYTES(sp)
	REG_S	s3, 4 * REGBYTES(sp)
	REG_S	s4, 5 * REGBYTES(sp)
	REG_S	s5, 6 * REGBYTES(sp)
	REG_S	s6, 7 * REGBYTES(sp)
	REG_S	s7, 8 * REGBYTES(sp)
	REG_S	s8, 9 * REGBYTES(sp)
	REG_S	s9, 10 * REGBYTES(sp)
	REG_S	s10, 11 * REGBYTES(sp)
	REG_S	s11, 12 * REGBYTES(sp)
	la	t0, saved_sp
	REG_S	sp, 0(t0)
	csrw	mepc, a0
	li	t0, 0x1800
	csrc	mstatus, t0
	slli	a1, a1, 11
	csrs	mstatus, a1
	la	ra, user_exit
	mret
user_exit:
	li	a7, -1
	ecall
	.globl user_resume
user_resume:
	la	t0, saved_sp
	REG_L	sp, 0(t0)
	REG_L	ra, 0 * REGBYTES(sp)
	REG_L	s0, 1 * REGBYTES(sp)
	REG_L	s1, 2 * REGBYTES(sp)
	REG_L	s2, 3 * REGBYTES(sp)
	REG_L	s3, 4 * REGBYTES(sp)
	REG_L	s4, 5 * REGBYTES(sp)
	REG_L	s5, 6 * REGBYTES(sp)
	REG_L	s6, 7 * REGBYTES(sp)
	REG_L	s7, 8 * REGBYTES(sp)
	REG_L	s8, 9 * REGBYTES(sp)
	REG_L	s9, 10 * REGBYTES(sp)
	REG_L	s10, 11 * REGBYTES(sp)
	REG_L	s11, 12 * REGBYTES(sp)
	addi	sp, sp, 16 * REGBYTES
	ret

	.balign 4
	.globl s_trap_entry
s_trap_entry:
	addi	t6, a7, 1
	beqz	t6, 1f
	addi	a0, a0, 100
	csrr	t6, sepc
	addi	t6, t6, 4
	csrw	sepc, t6
	sret
1:	ecall

	.balign 64
	.globl trap_vectors
trap_vectors:
	.option push
	.option norvc
	.rept 16
	j	trap_entry
	.endr
	.option pop

	.data
	.balign 8
saved_sp:
	.dc.a	0
