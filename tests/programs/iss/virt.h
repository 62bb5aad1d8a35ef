/* SPDX-License-Identifier: MIT */
/*
 * Support for the ISS test programs on QEMU's virt machine and spoor's
 * virtual board: UART output, exit through the SiFive test device, CSR
 * access, the CLINT and the trap frame crt0.S hands to handle_trap().
 */
#ifndef VIRT_H
#define VIRT_H

#include <stdint.h>

#define UART_BASE	0x10000000ul
#define TEST_BASE	0x100000ul
#define CLINT_MSIP	0x2000000ul
#define CLINT_MTIMECMP	0x2004000ul
#define CLINT_MTIME	0x200bff8ul

#define csr_read(csr) ({ \
	unsigned long v_; \
	__asm__ volatile ("csrr %0, " #csr : "=r"(v_)); \
	v_; \
})
#define csr_write(csr, v) __asm__ volatile ("csrw " #csr ", %0" :: "r"((unsigned long)(v)))
#define csr_set(csr, v) __asm__ volatile ("csrs " #csr ", %0" :: "r"((unsigned long)(v)))
#define csr_clear(csr, v) __asm__ volatile ("csrc " #csr ", %0" :: "r"((unsigned long)(v)))

#define MSTATUS_SIE	0x2ul
#define MSTATUS_MIE	0x8ul
#define MSTATUS_SPP	0x100ul
#define MSTATUS_MPP	0x1800ul
#define MIE_MSIE	0x8ul
#define MIE_MTIE	0x80ul

/* Saved registers: x[0] holds mcause, x[2] the interrupted sp. */
struct trap_frame {
	unsigned long x[32];
	unsigned long epc;
	unsigned long tval;
};

/* Called by crt0's trap_entry; may change frame->epc (and the registers). */
void handle_trap(struct trap_frame *f);

/* Writes @c to the UART (polling LSR.THRE). */
void uart_putc(char c);
/* Writes the string @s, @v in hex (0x...), @v in decimal. */
void print(const char *s);
void print_hex(unsigned long v);
void print_dec(long v);
/* Prints "name: got X, expected Y" and counts a failure when they differ. */
void check(const char *name, long got, long expected);
/* Returns the number of failed checks. */
int failures(void);
/* Ends the program through the test device: 0 passes, others fail. */
_Noreturn void exit(int code);

/* Returns mtime (read as two halves, works on RV32 and RV64). */
uint64_t mtime_read(void);
/* Sets mtimecmp without passing through a smaller value. */
void mtimecmp_write(uint64_t v);

/* Returns the length of the instruction at @pc (2 or 4 bytes). */
static inline unsigned long insn_len(unsigned long pc)
{
	return (*(volatile uint16_t *)pc & 3) == 3 ? 4 : 2;
}

/* Returns the trap handler's a0 after an ecall with @a0 (a7 = 0). */
static inline long ecall(long a0)
{
	register long r __asm__("a0") = a0;
	register long a7 __asm__("a7") = 0;

	__asm__ volatile ("ecall" : "+r"(r) : "r"(a7) : "memory");
	return r;
}

#endif
