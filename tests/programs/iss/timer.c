// SPDX-License-Identifier: MIT
/*
 * Machine timer and software interrupts through the CLINT, direct and
 * vectored mtvec.  Every interrupt is taken at a deterministic point: either
 * right after the instruction that enables it, or after a wfi.  QEMU's mtime
 * follows the wall clock (10 MHz): every wfi deadline is 500 ms away, so that
 * QEMU is asleep in the wfi when it passes, even on a loaded machine (its run
 * waits for them: about 2 s).  A deadline that passes just as QEMU enters the
 * wfi makes it log the wfi twice (seen with a 100 us deadline), and one that
 * passes before the wfi takes the interrupt early.  The ISS skips ahead.
 */
#include "virt.h"

#define IRQ_BIT	(1ul << (__riscv_xlen - 1))
/* A wfi deadline: 500 ms of QEMU's 10 MHz mtime. */
#define WFI_TICKS 5000000

extern char trap_vectors[];
static volatile int timer_irqs, soft_irqs;

void handle_trap(struct trap_frame *f)
{
	unsigned long cause = f->x[0];

	if (cause == (IRQ_BIT | 7)) {
		timer_irqs++;
		mtimecmp_write(~0ull);
	} else if (cause == (IRQ_BIT | 3)) {
		soft_irqs++;
		*(volatile uint32_t *)CLINT_MSIP = 0;
	} else {
		exit(90);
	}
}

int main(void)
{
	/* 1: pending while MIE = 0; taken right after MIE is set. */
	csr_write(mie, MIE_MTIE);
	mtimecmp_write(mtime_read() + WFI_TICKS);
	__asm__ volatile ("wfi");
	check("pending", (csr_read(mip) & MIE_MTIE) != 0, 1);
	check("not yet taken", timer_irqs, 0);
	csr_set(mstatus, MSTATUS_MIE);
	check("taken", timer_irqs, 1);

	/* 2: wfi with MIE = 1, twice. */
	for (int i = 0; i < 2; i++) {
		mtimecmp_write(mtime_read() + WFI_TICKS);
		__asm__ volatile ("wfi");
	}
	check("wfi wakeups", timer_irqs, 3);

	/* 3: vectored mtvec. */
	csr_write(mtvec, (unsigned long)trap_vectors | 1);
	mtimecmp_write(mtime_read() + WFI_TICKS);
	__asm__ volatile ("wfi");
	check("vectored", timer_irqs, 4);

	/* 4: software interrupt, taken right after the msip store. */
	csr_write(mie, MIE_MSIE);
	*(volatile uint32_t *)CLINT_MSIP = 1;
	__asm__ volatile ("nop");
	check("software", soft_irqs, 1);

	csr_clear(mstatus, MSTATUS_MIE);
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
