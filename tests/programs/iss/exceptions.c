// SPDX-License-Identifier: MIT
/*
 * Synchronous exceptions with a handler: illegal instructions (16- and
 * 32-bit, a CSR from U mode), ebreak, misaligned LR and AMO (plain
 * misaligned loads are carried out, as by QEMU), load and fetch access
 * faults, ecall from M and from U.
 */
#include "virt.h"

void run_mode(void (*fn)(void), int mode);
extern char user_resume[];

static volatile unsigned long count[16];
static volatile unsigned long last_tval;

void handle_trap(struct trap_frame *f)
{
	unsigned long cause = f->x[0];

	if ((long)cause < 0 || cause >= 16)
		exit(90);
	count[cause]++;
	last_tval = f->tval;
	switch (cause) {
	case 1:
		/* Fetch fault: return to the caller of the bad pointer. */
		f->epc = f->x[1];
		break;
	case 8:
		if (f->x[17] == (unsigned long)-1) {
			csr_set(mstatus, MSTATUS_MPP);
			f->epc = (unsigned long)user_resume;
			break;
		}
		f->x[10] += 1000;
		f->epc += 4;
		break;
	case 11:
		f->x[10] += 1;
		f->epc += 4;
		break;
	case 2: case 3: case 4: case 5: case 6: case 7:
		f->epc += insn_len(f->epc);
		break;
	default:
		exit(91);
	}
}

static volatile long user_result;
static void (*volatile bad_fn)(void);

static void user_code(void)
{
	user_result = ecall(5);
	/* mstatus is out of reach in U mode. */
	__asm__ volatile ("csrr t0, mstatus" ::: "t0");
	__asm__ volatile ("mret");
}

static uint32_t words[4] = { 0x11223344, 0x55667788, 0x99aabbcc, 0xddeeff00 };

int main(void)
{
	uintptr_t base = (uintptr_t)words;
	unsigned long v;

	__asm__ volatile (".4byte 0xc0001073");	/* csrw cycle, zero: read-only */
	__asm__ volatile (".2byte 0");		/* c.unimp */
	check("illegal", count[2], 2);
	__asm__ volatile ("ebreak");
	check("ebreak", count[3], 1);

	__asm__ volatile ("lw %0, 1(%1)" : "=r"(v) : "r"(base));
	check("misaligned lw", (long)(v & 0xffffffff) == 0x88112233, 1);
	__asm__ volatile ("lr.w %0, (%1)" : "=r"(v) : "r"(base + 2));
	check("misaligned lr", count[4], 1);
	check("lr tval", last_tval == base + 2, 1);
	__asm__ volatile ("amoadd.w %0, %0, (%1)" : "+r"(v) : "r"(base + 1) : "memory");
	check("misaligned amo", count[4] + count[6], 2);
	check("amo tval", last_tval == base + 1, 1);

	__asm__ volatile ("lw %0, 0(%1)" : "=r"(v) : "r"(0x4000000ul));
	check("load fault", count[5], 1);
	check("load fault tval", last_tval == 0x4000000, 1);
	bad_fn();
	check("fetch fault", count[1], 1);

	check("ecall from M", ecall(41), 42);
	check("M ecalls", count[11], 1);
	run_mode(user_code, 0);
	check("ecall from U", user_result, 1005);
	check("U ecalls", count[8], 2);
	check("U illegal", count[2], 4);
	check("back in M", (csr_read(mstatus) & MSTATUS_MPP) == 0, 1);
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
