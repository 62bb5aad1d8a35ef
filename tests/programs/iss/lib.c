// SPDX-License-Identifier: MIT
/* Support for the ISS test programs: see virt.h. */
#include <stdio.h>

#include "virt.h"

static int failed;

void uart_putc(char c)
{
	volatile uint8_t *uart = (volatile uint8_t *)UART_BASE;

	while (!(uart[5] & 0x20))
		;
	uart[0] = (uint8_t)c;
}

void print(const char *s)
{
	while (*s)
		uart_putc(*s++);
}

void print_hex(unsigned long v)
{
	char buf[2 + 2 * sizeof(v) + 1];
	int i = sizeof(buf) - 1;

	buf[i] = 0;
	do {
		buf[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	buf[--i] = 'x';
	buf[--i] = '0';
	print(buf + i);
}

void print_dec(long v)
{
	char buf[24];
	int i = sizeof(buf) - 1;
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;

	buf[i] = 0;
	do {
		buf[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[--i] = '-';
	print(buf + i);
}

void check(const char *name, long got, long expected)
{
	print(name);
	print(": ");
	print_dec(got);
	if (got != expected) {
		print(" FAIL, expected ");
		print_dec(expected);
		failed++;
	}
	print("\n");
}

int failures(void)
{
	return failed;
}

_Noreturn void exit(int code)
{
	volatile uint32_t *test = (volatile uint32_t *)TEST_BASE;

	*test = code ? ((uint32_t)code << 16) | 0x3333 : 0x5555;
	for (;;)
		;
}

/* The default trap handler: an unexpected trap ends the program. */
__attribute__((weak)) void handle_trap(struct trap_frame *f)
{
	print("unexpected trap, mcause ");
	print_hex(f->x[0]);
	print(" mepc ");
	print_hex(f->epc);
	print("\n");
	exit(99);
}

uint64_t mtime_read(void)
{
	volatile uint32_t *mtime = (volatile uint32_t *)CLINT_MTIME;
	uint32_t hi, lo;

	do {
		hi = mtime[1];
		lo = mtime[0];
	} while (hi != mtime[1]);
	return (uint64_t)hi << 32 | lo;
}

void mtimecmp_write(uint64_t v)
{
	volatile uint32_t *cmp = (volatile uint32_t *)CLINT_MTIMECMP;

	cmp[0] = 0xffffffff;
	cmp[1] = (uint32_t)(v >> 32);
	cmp[0] = (uint32_t)v;
}

/* picolibc's stdio: stdout goes to the UART. */
static int stdout_putc(char c, FILE *file)
{
	(void)file;
	uart_putc(c);
	return (unsigned char)c;
}

static FILE uart_file = FDEV_SETUP_STREAM(stdout_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdout = &uart_file;
