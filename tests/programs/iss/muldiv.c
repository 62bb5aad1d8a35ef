// SPDX-License-Identifier: MIT
/* The M extension's corner cases: division by zero, overflow, high products. */
#include <limits.h>

#include "virt.h"

#define OP(name, a, b) ({ \
	long r_; \
	__asm__ volatile (#name " %0, %1, %2" : "=r"(r_) : "r"(a), "r"(b)); \
	r_; \
})

static volatile long zero = 0, minus1 = -1, lmin = LONG_MIN, seven = 7, big = LONG_MAX;

int main(void)
{
	check("div by 0", OP(div, seven, zero), -1);
	check("divu by 0", OP(divu, seven, zero), -1);
	check("rem by 0", OP(rem, seven, zero), 7);
	check("remu by 0", OP(remu, seven, zero), 7);
	check("div overflow", OP(div, lmin, minus1) == LONG_MIN, 1);
	check("rem overflow", OP(rem, lmin, minus1), 0);
	check("div -7/2", OP(div, -seven, 2l), -3);
	check("rem -7%2", OP(rem, -seven, 2l), -1);
	check("divu", OP(divu, minus1, seven) == (long)(ULONG_MAX / 7), 1);
	check("mul", OP(mul, big, seven) == (long)((unsigned long)LONG_MAX * 7), 1);
	check("mulh min*min", OP(mulh, lmin, lmin) == 1l << (__riscv_xlen - 2), 1);
	check("mulhu -1*-1", OP(mulhu, minus1, minus1), -2);
	check("mulhsu -1*-1", OP(mulhsu, minus1, minus1), -1);
	check("mulh -1*7", OP(mulh, minus1, seven), -1);
#if __riscv_xlen == 64
	check("divw by 0", OP(divw, seven, zero), -1);
	check("divuw by 0", OP(divuw, seven, zero), -1);
	check("remw ovf", OP(remw, (long)INT_MIN, minus1), 0);
	check("divw ovf", OP(divw, (long)INT_MIN, minus1), INT_MIN);
	check("mulw", OP(mulw, 0x10000l, 0x10000l), 0);
	check("mulw sign", OP(mulw, 0x40000000l, 2l), INT_MIN);
	check("remuw", OP(remuw, -seven, 5l), (long)(0xfffffff9u % 5));
#endif
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
