// SPDX-License-Identifier: MIT
/*
 * Call chains deeper than a 32-entry return-address stack: a chain of 40
 * distinct functions and a 100-deep non-tail recursion (built with
 * -fno-optimize-sibling-calls).
 */
#include "virt.h"

__attribute__((noinline)) static unsigned long leaf(unsigned long x)
{
	return x + 1;
}

#define LINK(n, next) \
	__attribute__((noinline)) static unsigned long f##n(unsigned long x) { return next(x + n) * 2 - n; }

LINK(39, leaf) LINK(38, f39) LINK(37, f38) LINK(36, f37) LINK(35, f36)
LINK(34, f35) LINK(33, f34) LINK(32, f33) LINK(31, f32) LINK(30, f31)
LINK(29, f30) LINK(28, f29) LINK(27, f28) LINK(26, f27) LINK(25, f26)
LINK(24, f25) LINK(23, f24) LINK(22, f23) LINK(21, f22) LINK(20, f21)
LINK(19, f20) LINK(18, f19) LINK(17, f18) LINK(16, f17) LINK(15, f16)
LINK(14, f15) LINK(13, f14) LINK(12, f13) LINK(11, f12) LINK(10, f11)
LINK(9, f10) LINK(8, f9) LINK(7, f8) LINK(6, f7) LINK(5, f6)
LINK(4, f5) LINK(3, f4) LINK(2, f3) LINK(1, f2) LINK(0, f1)

static volatile long sink;

__attribute__((noinline)) static long depth(long n)
{
	long r;

	if (!n)
		return 0;
	r = depth(n - 1);
	sink = r;
	return r + n;
}

int main(void)
{
	long c = (long)(f0(0) & 0xffffff);

	check("chain", c, 16777214);
	check("depth(100)", depth(100), 5050);
	check("depth(33)", depth(33), 561);
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
