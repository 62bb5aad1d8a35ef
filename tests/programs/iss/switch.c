// SPDX-License-Identifier: MIT
/* A switch dense enough for a jump table (-O2), checked against if-chains. */
#include "virt.h"

__attribute__((noinline)) static long by_switch(unsigned op, long x)
{
	switch (op) {
	case 0: return x + 1;
	case 1: return x * 3;
	case 2: return x - 7;
	case 3: return x << 2;
	case 4: return x ^ 0x55;
	case 5: return x / 3;
	case 6: return x % 5;
	case 7: return -x;
	case 8: return x | 0x100;
	case 9: return x & 0xf0;
	case 10: return x * x;
	case 11: return x >> 1;
	case 12: return 42;
	case 13: return x + 1000;
	case 14: return ~x;
	case 15: return x * 17 + 3;
	default: return 0;
	}
}

__attribute__((noinline)) static long by_ifs(unsigned op, long x)
{
	if (op == 0) return x + 1;
	if (op == 1) return x * 3;
	if (op == 2) return x - 7;
	if (op == 3) return x << 2;
	if (op == 4) return x ^ 0x55;
	if (op == 5) return x / 3;
	if (op == 6) return x % 5;
	if (op == 7) return -x;
	if (op == 8) return x | 0x100;
	if (op == 9) return x & 0xf0;
	if (op == 10) return x * x;
	if (op == 11) return x >> 1;
	if (op == 12) return 42;
	if (op == 13) return x + 1000;
	if (op == 14) return ~x;
	if (op == 15) return x * 17 + 3;
	return 0;
}

int main(void)
{
	long a = 0, b = 0;
	int bad = 0;

	for (unsigned i = 0; i < 200; i++) {
		long x = (long)(i * 37 % 101) - 50;
		long s = by_switch(i % 18, x), f = by_ifs(i % 18, x);

		a += s;
		b += f;
		bad += s != f;
	}
	check("mismatches", bad, 0);
	check("sums equal", a == b, 1);
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
