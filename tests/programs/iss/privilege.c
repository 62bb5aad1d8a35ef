// SPDX-License-Identifier: MIT
/*
 * Privilege changes: M -> U (mret) -> M (ecall); M -> S -> M; and with
 * ecalls from U delegated to S (medeleg): U -> S (trap) -> U (sret), and
 * S -> M by an ecall from S.
 */
#include "virt.h"

void run_mode(void (*fn)(void), int mode);
extern char user_resume[], s_trap_entry[];

static volatile unsigned long m_traps[16];
static volatile long results[8];

void handle_trap(struct trap_frame *f)
{
	unsigned long cause = f->x[0];

	if ((long)cause < 0 || cause >= 16)
		exit(90);
	m_traps[cause]++;
	if ((cause == 8 || cause == 9) && f->x[17] == (unsigned long)-1) {
		csr_set(mstatus, MSTATUS_MPP);
		f->epc = (unsigned long)user_resume;
		return;
	}
	if (cause == 8 || cause == 9) {
		f->x[10] += 1000;
		f->epc += 4;
		return;
	}
	if (cause == 2) {
		f->epc += insn_len(f->epc);
		return;
	}
	exit(91);
}

static void user_code(void)
{
	results[0] = ecall(1);
	results[1] = ecall(2);
}

static void supervisor_code(void)
{
	csr_write(sscratch, 0x1234);
	results[2] = (long)csr_read(sscratch);
	results[3] = (long)(csr_read(sstatus) & MSTATUS_SPP);
	results[4] = ecall(3);
	/* sret back to S itself, with SPP = S. */
	csr_set(sstatus, MSTATUS_SPP);
	__asm__ volatile (
		"la t0, 1f\n"
		"csrw sepc, t0\n"
		"sret\n"
		"1:\n" ::: "t0", "memory");
	results[5] = 7;
	/* mret is illegal in S mode. */
	__asm__ volatile ("mret");
}

static void delegated_user_code(void)
{
	results[6] = ecall(5);
	results[7] = ecall(6);
}

int main(void)
{
	run_mode(user_code, 0);
	check("U ecall 1", results[0], 1001);
	check("U ecall 2", results[1], 1002);
	check("U ecalls", m_traps[8], 3);

	run_mode(supervisor_code, 1);
	check("sscratch", results[2], 0x1234);
	check("S ecall", results[4], 1003);
	check("sret to S", results[5], 7);
	check("S illegal", m_traps[2], 1);
	check("S ecalls", m_traps[9], 2);

	csr_write(stvec, (unsigned long)s_trap_entry);
	csr_write(medeleg, 1ul << 8);
	run_mode(delegated_user_code, 0);
	csr_write(medeleg, 0);
	check("delegated 1", results[6], 105);
	check("delegated 2", results[7], 106);
	check("U ecalls in M", m_traps[8], 3);
	check("S ecalls in M", m_traps[9], 3);
	check("scause", (long)csr_read(scause), 8);
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
