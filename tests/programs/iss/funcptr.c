// SPDX-License-Identifier: MIT
/* Function pointers: dispatch tables, callbacks, qsort's comparator. */
#include <stdlib.h>

#include "virt.h"

typedef long (*op_fn)(long, long);

__attribute__((noinline)) static long op_add(long a, long b) { return a + b; }
__attribute__((noinline)) static long op_sub(long a, long b) { return a - b; }
__attribute__((noinline)) static long op_mul(long a, long b) { return a * b; }
__attribute__((noinline)) static long op_max(long a, long b) { return a > b ? a : b; }
__attribute__((noinline)) static long op_xor(long a, long b) { return a ^ b; }

static op_fn const ops[] = { op_add, op_sub, op_mul, op_max, op_xor };
static volatile unsigned nops = sizeof(ops) / sizeof(ops[0]);

__attribute__((noinline)) static long fold(op_fn fn, const long *v, int n)
{
	long acc = v[0];

	for (int i = 1; i < n; i++)
		acc = fn(acc, v[i]);
	return acc;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	long v[] = { 7, -3, 12, 5, 0, 9, -8, 4, 11, 2, 6, -1 };
	int n = sizeof(v) / sizeof(v[0]);
	long sum = 0;

	for (unsigned i = 0; i < nops * 3; i++)
		sum += ops[i % nops](i, 3);
	check("dispatch", sum, 150);
	check("fold add", fold(op_add, v, n), 44);
	check("fold max", fold(op_max, v, n), 12);
	check("fold xor", fold(ops[4], v, n), -10);
	qsort(v, n, sizeof(v[0]), cmp_long);
	check("sorted first", v[0], -8);
	check("sorted last", v[n - 1], 12);
	check("sorted 6th", v[5], 4);
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
