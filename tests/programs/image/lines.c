// SPDX-License-Identifier: MIT
/*
 * A tiny bare-metal RISC-V program with debug info for test_image: the test
 * looks up the source lines of its functions and compares them with the
 * lines of this file that carry the "LINE:" markers.
 */

volatile unsigned int lines_sink;

/* Returns x + 3; kept out of line so it has its own address. */
__attribute__((noinline)) unsigned int add_three(unsigned int x)	/* LINE:add_three */
{
	return x + 3;
}

/* Returns the sum of the first n odd numbers, the long way. */
__attribute__((noinline)) unsigned int sum_odd(unsigned int n)		/* LINE:sum_odd */
{
	unsigned int sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += 2 * i + 1;					/* LINE:sum_odd_loop */
	return sum;
}

/* Never returns: writes results to lines_sink forever. */
__attribute__((noreturn)) void lines_main(void)			/* LINE:lines_main */
{
	unsigned int n = 1;

	for (;;) {
		lines_sink = add_three(n);
		lines_sink = sum_odd(lines_sink);
		n++;
	}
}

/* The entry point: a stack, then lines_main(). */
__asm__(".pushsection .text.start, \"ax\", @progbits\n"
	".globl _start\n"
	"_start:\n"
	"	li sp, 0x80010000\n"
	"	j lines_main\n"
	".popsection\n");
