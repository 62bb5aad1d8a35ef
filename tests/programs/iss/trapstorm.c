// SPDX-License-Identifier: MIT
/*
 * A trap storm that ends: round after round of synchronous exceptions of
 * every kind the board raises (illegal 16- and 32-bit, ebreak, ecall, load
 * and store access faults, a misaligned LR, a fetch fault), each handled and
 * stepped over, with a trap taken inside a handler that runs (the ecall
 * handler executes an ebreak) and back-to-back traps with one instruction
 * between them.
 */
#include "virt.h"

#define ROUNDS 40

static volatile unsigned long count[16];
static void (*volatile bad_fn)(void) = (void (*)(void))0x4000000ul;
static uint32_t words[2] = { 0x11223344, 0x55667788 };

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
	}
	check("illegal", count[2], 2 * ROUNDS);
	check("ebreak", count[3], 4 * ROUNDS);
	check("load fault", count[5], ROUNDS);
	check("store fault", count[7], ROUNDS);
	check("misaligned lr", count[4], ROUNDS);
	check("fetch fault", count[1], ROUNDS);
	check("ecall", count[11], ROUNDS);
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
