// SPDX-License-Identifier: MIT
/*
 * A trap storm that ends: round after round of synchronous exceptions of
 * every kind the board raises (illegal 16- and 32-bit, ebreak, ecall, load
 * and store access faults, a misaligned LR, a fetch fault), each handled and
 * stepped over, with a trap taken inside a handler that runs (the ecall
 * handler executes an ebreak) and back-to-back traps with one instruction
 * between them.  Then traps at the targets of jumps, where the trace must
 * carry the EPC or the decoder infer it: an mret, a sequentially inferable
 * jump (lui + jalr), a return the decoder takes from its return stack and
 * one it cannot (the callee moved ra), a taken and a not-taken branch.
 */
#include "virt.h"

#define ROUNDS 40

static volatile unsigned long count[16];
static void (*volatile bad_fn)(void) = (void (*)(void))0x4000000ul;
static uint32_t words[2] = { 0x11223344, 0x55667788 };

/* Returns to its caller, where an illegal instruction waits. */
__attribute__((naked, noinline)) static void ret_to_illegal(void)
{
	__asm__ volatile ("ret");
}

/* Returns 4 bytes past its return address (an illegal instruction). */
__attribute__((naked, noinline)) static void ret_past(void)
{
	__asm__ volatile ("addi ra, ra, 4\n\tret");
}

/* Takes traps at the targets of jumps; returns nothing. */
static void jump_targets(void)
{
	/* mret (MPP M, MPIE 0) to an illegal instruction */
	__asm__ volatile ("la t0, 1f\n\tcsrw mepc, t0\n\tli t0, 0x1800\n\tcsrs mstatus, t0\n\t"
			  "li t0, 0x80\n\tcsrc mstatus, t0\n\tmret\n"
			  "1:\t.4byte 0xc0001073" ::: "t0", "memory");
	/* lui + jalr to a hole in the memory map: a fetch fault (back to ra) */
	__asm__ volatile ("lui t1, 0x4000\n\tjalr ra, 0(t1)" ::: "t1", "ra", "memory");
	/* a return to an illegal instruction, and one past its return address */
	__asm__ volatile ("call %0\n\t.4byte 0xc0001073" :: "i"(ret_to_illegal) : "ra", "memory");
	__asm__ volatile (".option push\n\t.option norvc\n\tcall %0\n\tnop\n\t"
			  ".4byte 0xc0001073\n\t.option pop" :: "i"(ret_past) : "ra", "memory");
	/* a taken branch to an illegal instruction, a not-taken one before one */
	__asm__ volatile ("beq zero, zero, 1f\n\tnop\n1:\t.4byte 0xc0001073" ::: "memory");
	__asm__ volatile ("bne zero, zero, 1f\n\t.4byte 0xc0001073\n1:" ::: "memory");
}

void handle_trap(struct trap_frame *f)
{
	unsigned long cause = f->x[0];

	if ((long)cause < 0 || cause >= 16)
		exit(90);
	count[cause]++;
	switch (cause) {
	case 1:
		f->epc = f->x[1];	/* back to the caller of the bad pointer */
		break;
	case 11: {
		/* A trap inside a handler that runs (its mret leaves MPP at U: kept). */
		unsigned long mstatus = csr_read(mstatus);

		__asm__ volatile ("ebreak");
		csr_write(mstatus, mstatus);
		f->x[10] += 1;
		f->epc += 4;
		break;
	}
	case 2: case 3: case 4: case 5: case 7:
		f->epc += insn_len(f->epc);
		break;
	default:
		exit(91);
	}
}

int main(void)
{
	uintptr_t base = (uintptr_t)words;
	unsigned long v = 0;

	for (int i = 0; i < ROUNDS; i++) {
		__asm__ volatile (".2byte 0");			/* c.unimp */
		__asm__ volatile (".4byte 0xc0001073");		/* csrw cycle, zero */
		__asm__ volatile ("ebreak");
		__asm__ volatile ("lw %0, 0(%1)" : "=r"(v) : "r"(0x4000000ul));
		__asm__ volatile ("sw %0, 0(%1)" :: "r"(v), "r"(0x4000000ul) : "memory");
		__asm__ volatile ("lr.w %0, (%1)" : "=r"(v) : "r"(base + 2));
		/* Two traps with a single instruction between them. */
		__asm__ volatile ("ebreak; addi %0, %0, 1; ebreak" : "+r"(v));
		bad_fn();
		check("ecall", ecall(i), i + 1);
		jump_targets();
	}
	check("illegal", count[2], 7 * ROUNDS);
	check("ebreak", count[3], 4 * ROUNDS);
	check("load fault", count[5], ROUNDS);
	check("store fault", count[7], ROUNDS);
	check("misaligned lr", count[4], ROUNDS);
	check("fetch fault", count[1], 2 * ROUNDS);
	check("ecall", count[11], ROUNDS);
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
