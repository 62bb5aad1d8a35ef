// SPDX-License-Identifier: MIT
/*
 * Three stages run one after the other, for debugger sessions that record
 * from one to the next: breakpoints at stage_a, stage_b and stage_c each
 * hit once, and mix() (called between them) is where reverse execution
 * stops on its way back.
 */
#include "virt.h"

static volatile long sink;

__attribute__((noinline)) static long mix(long x, int rounds)
{
	for (int i = 0; i < rounds; i++)
		x = (x * 31 + i) ^ (x >> 3);
	return x;
}

__attribute__((noinline)) static long leaf(long x)
{
	return x & 1 ? 3 * x + 1 : x / 2;
}

__attribute__((noinline)) long stage_a(long x)
{
	for (int i = 0; i < 20; i++)
		x = leaf(x) + (i & 3);
	return mix(x, 5);
}

__attribute__((noinline)) long stage_b(long x)
{
	long acc = 0;

	for (int i = 0; i < 12; i++)
		acc += i % 3 ? leaf(x + i) : mix(acc, 2);
	return acc;
}

__attribute__((noinline)) long stage_c(long x)
{
	return mix(x, 9) - leaf(x);
}

int main(void)
{
	long x = 27;

	x = stage_a(x);
	sink = x;
	x = mix(x, 3);
	x = stage_b(x);
	sink = x;
	x = stage_c(x);
	sink = x;
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
