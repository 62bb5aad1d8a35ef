/* SPDX-License-Identifier: MIT */
/*
 * The debug tests' program (RV32 and RV64, no C library): prints a line on
 * the UART, then calls bump() forever, which increments counter.  It never
 * exits, so a debugger always finds the hart running.
 */
#define UART_THR	((volatile unsigned char *)0x10000000)

/* Start-up: a stack in .bss, then main(). */
__asm__(".section .text.start, \"ax\"\n"
	".globl _start\n"
	"_start:\n"
	"	la	sp, stack_top\n"
	"	call	main\n"
	"1:	j	1b\n"
	".bss\n"
	".balign 16\n"
	"	.space 4096\n"
	"stack_top:\n"
	".text\n");

volatile unsigned long counter;

/* Writes @s to the UART; returns nothing. */
static void uart_puts(const char *s)
{
	while (*s)
		*UART_THR = (unsigned char)*s++;
}

/* Counts one call; returns nothing (the tests' breakpoint target). */
__attribute__((noinline)) void bump(void)
{
	counter++;
}

/* Never returns. */
int main(void)
{
	uart_puts("spin: running\n");
	for (;;)
		bump();
}
