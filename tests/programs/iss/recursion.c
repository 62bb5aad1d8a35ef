// SPDX-License-Identifier: MIT
/* Recursion: Fibonacci, Ackermann, mutual recursion. */
#include "virt.h"

__attribute__((noinline)) static long fib(long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static long ack(long m, long n)
{
	if (!m)
		return n + 1;
	if (!n)
		return ack(m - 1, 1);
	return ack(m - 1, ack(m, n - 1));
}

__attribute__((noinline)) static int is_odd(unsigned n);

__attribute__((noinline)) static int is_even(unsigned n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}

__attribute__((noinline)) static int is_odd(unsigned n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

int main(void)
{
	check("fib(15)", fib(15), 610);
	check("ack(2,3)", ack(2, 3), 9);
	check("ack(3,2)", ack(3, 2), 29);
	check("is_even(41)", is_even(41), 0);
	check("is_odd(41)", is_odd(41), 1);
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
