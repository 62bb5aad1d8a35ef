// SPDX-License-Identifier: MIT
/*
 * Computed goto (GCC's labels as values): loops whose head is reached by an
 * indirect jump through a table, the same target again and again, and a
 * threaded bytecode interpreter whose handlers jump to each other.  Every
 * such jump is an uninferable discontinuity whose target repeats: the
 * jump target cache's case, and the looplabel case when the target is the
 * jump's own block.
 */
#include "virt.h"

/* The loop head reached only through the table; no conditional branch in the loop. */
__attribute__((noinline)) static long spin(long n)
{
	static void *const tbl[2] = { &&head, &&out };
	long acc = 0;

head:
	acc += n * 3 + 1;
	n--;
	goto *tbl[n == 0];
out:
	return acc;
}

/* The same with a conditional branch inside the loop body. */
__attribute__((noinline)) static long spin_branchy(long n)
{
	static void *const tbl[2] = { &&head, &&out };
	long acc = 0;

head:
	if (n & 1)
		acc += n;
	else
		acc ^= n << 2;
	n--;
	goto *tbl[n == 0];
out:
	return acc;
}

enum { OP_PUSH, OP_ADD, OP_MUL, OP_DUP, OP_DEC, OP_JNZ, OP_DROP, OP_HALT };

/* A direct-threaded interpreter: each handler ends in its own indirect jump. */
__attribute__((noinline)) static long run_bytecode(const unsigned char *code)
{
	static void *const ops[] = { &&op_push, &&op_add, &&op_mul, &&op_dup,
				     &&op_dec, &&op_jnz, &&op_drop, &&op_halt };
	long stack[16];
	int sp = 0;
	const unsigned char *pc = code;

#define DISPATCH() goto *ops[*pc++]
	DISPATCH();
op_push:
	stack[sp++] = *pc++;
	DISPATCH();
op_add:
	sp--;
	stack[sp - 1] += stack[sp];
	DISPATCH();
op_mul:
	sp--;
	stack[sp - 1] *= stack[sp];
	DISPATCH();
op_dup:
	stack[sp] = stack[sp - 1];
	sp++;
	DISPATCH();
op_dec:
	stack[sp - 1]--;
	DISPATCH();
op_jnz:
	if (stack[sp - 1])
		pc = code + *pc;
	else
		pc++;
	DISPATCH();
op_drop:
	sp--;
	DISPATCH();
op_halt:
	return stack[sp - 1];
#undef DISPATCH
}

int main(void)
{
	/* counter = 40; loop: t = counter * 2, a few no-op pairs, drop t;
	 * counter--; until 0; then 0 + 7. */
	static const unsigned char prog[] = {
		OP_PUSH, 0,		/* 0: the result's place */
		OP_PUSH, 40,		/* 2: counter */
		OP_DUP,			/* 4: loop */
		OP_PUSH, 2,
		OP_MUL,			/* t = counter * 2 */
		OP_DUP, OP_DROP,	/* no-op pairs */
		OP_PUSH, 0, OP_ADD,
		OP_DEC, OP_PUSH, 1, OP_ADD,
		OP_DROP,		/* t */
		OP_DEC,			/* counter-- */
		OP_JNZ, 4,
		OP_DROP,
		OP_PUSH, 7, OP_ADD,
		OP_HALT,
	};

	check("spin 1", spin(1), 4);
	check("spin 200", spin(200), 60500);
	check("spin_branchy 300", spin_branchy(300), 31420);
	check("bytecode", run_bytecode(prog), 7);
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
