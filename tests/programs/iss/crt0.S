/* SPDX-License-Identifier: MIT */
/*
 * Start-up and trap entry of the ISS test programs (RV32 and RV64): sets
 * the stack and gp, opens PMP entry 0 to everything (QEMU denies S/U
 * accesses that match no entry), clears .bss, points mtvec at trap_entry
 * and calls main; its return value goes to exit().  trap_entry saves the
 * registers in a struct trap_frame (virt.h) on the stack, calls
 * handle_trap(frame), and returns with mret to frame->epc.
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
#define FRAME (34 * REGBYTES)

	.section .text.init, "ax"
	.globl _start
_start:
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	la	sp, __stack_top
	li	t0, -1
	csrw	pmpaddr0, t0
	li	t0, 0x1f		/* NAPOT, R W X */
	csrw	pmpcfg0, t0
	la	t0, trap_entry
	csrw	mtvec, t0
	la	t0, __bss_start
	la	t1, __bss_end
1:	bgeu	t0, t1, 2f
	REG_S	zero, 0(t0)
	addi	t0, t0, REGBYTES
	j	1b
2:	li	a0, 0
	li	a1, 0
	call	main
	call	exit
3:	j	3b

	.text
	.globl trap_entry
	.balign 64
trap_entry:
	addi	sp, sp, -FRAME
	REG_S	x1, 1 * REGBYTES(sp)
	REG_S	x3, 3 * REGBYTES(sp)
	REG_S	x4, 4 * REGBYTES(sp)
	REG_S	x5, 5 * REGBYTES(sp)
	REG_S	x6, 6 * REGBYTES(sp)
	REG_S	x7, 7 * REGBYTES(sp)
	REG_S	x8, 8 * REGBYTES(sp)
	REG_S	x9, 9 * REGBYTES(sp)
	REG_S	x10, 10 * REGBYTES(sp)
	REG_S	x11, 11 * REGBYTES(sp)
	REG_S	x12, 12 * REGBYTES(sp)
	REG_S	x13, 13 * REGBYTES(sp)
	REG_S	x14, 14 * REGBYTES(sp)
	REG_S	x15, 15 * REGBYTES(sp)
	REG_S	x16, 16 * REGBYTES(sp)
	REG_S	x17, 17 * REGBYTES(sp)
	REG_S	x18, 18 * REGBYTES(sp)
	REG_S	x19, 19 * REGBYTES(sp)
	REG_S	x20, 20 * REGBYTES(sp)
	REG_S	x21, 21 * REGBYTES(sp)
	REG_S	x22, 22 * REGBYTES(sp)
	REG_S	x23, 23 * REGBYTES(sp)
	REG_S	x24, 24 * REGBYTES(sp)
	REG_S	x25, 25 * REGBYTES(sp)
	REG_S	x26, 26 * REGBYTES(sp)
	REG_S	x27, 27 * REGBYTES(sp)
	REG_S	x28, 28 * REGBYTES(sp)
	REG_S	x29, 29 * REGBYTES(sp)
	REG_S	x30, 30 * REGBYTES(sp)
	REG_S	x31, 31 * REGBYTES(sp)
	addi	t0, sp, FRAME
	REG_S	t0, 2 * REGBYTES(sp)	/* the interrupted sp */
	csrr	t0, mepc
	REG_S	t0, 32 * REGBYTES(sp)
	csrr	t0, mcause
	REG_S	t0, 0(sp)		/* frame->cause in the x0 slot */
	csrr	t0, mtval
	REG_S	t0, 33 * REGBYTES(sp)
	mv	a0, sp
	call	handle_trap
	REG_L	t0, 32 * REGBYTES(sp)
	csrw	mepc, t0
	REG_L	x1, 1 * REGBYTES(sp)
	REG_L	x3, 3 * REGBYTES(sp)
	REG_L	x4, 4 * REGBYTES(sp)
	REG_L	x5, 5 * REGBYTES(sp)
	REG_L	x6, 6 * REGBYTES(sp)
	REG_L	x7, 7 * REGBYTES(sp)
	REG_L	x8, 8 * REGBYTES(sp)
	REG_L	x9, 9 * REGBYTES(sp)
	REG_L	x10, 10 * REGBYTES(sp)
	REG_L	x11, 11 * REGBYTES(sp)
	REG_L	x12, 12 * REGBYTES(sp)
	REG_L	x13, 13 * REGBYTES(sp)
	REG_L	x14, 14 * REGBYTES(sp)
	REG_L	x15, 15 * REGBYTES(sp)
	REG_L	x16, 16 * REGBYTES(sp)
	REG_L	x17, 17 * REGBYTES(sp)
	REG_L	x18, 18 * REGBYTES(sp)
	REG_L	x19, 19 * REGBYTES(sp)
	REG_L	x20, 20 * REGBYTES(sp)
	REG_L	x21, 21 * REGBYTES(sp)
	REG_L	x22, 22 * REGBYTES(sp)
	REG_L	x23, 23 * REGBYTES(sp)
	REG_L	x24, 24 * REGBYTES(sp)
	REG_L	x25, 25 * REGBYTES(sp)
	REG_L	x26, 26 * REGBYTES(sp)
	REG_L	x27, 27 * REGBYTES(sp)
	REG_L	x28, 28 * REGBYTES(sp)
	REG_L	x29, 29 * REGBYTES(sp)
	REG_L	x30, 30 * REGBYTES(sp)
	REG_L	x31, 31 * REGBYTES(sp)
	REG_L	sp, 2 * REGBYTES(sp)
	mret
