// SPDX-License-Identifier: MIT
/* The A extension: LR/SC loops (compare-exchange) and every AMO. */
#include "virt.h"

#define AMO(op, sfx, p, v) ({ \
	__typeof__(*(p)) old_; \
	__asm__ volatile ("amo" #op "." #sfx " %0, %2, %1" \
			  : "=r"(old_), "+A"(*(p)) : "r"(v) : "memory"); \
	old_; \
})

static volatile int32_t w;
#if __riscv_xlen == 64
static volatile int64_t dw;
#endif

int main(void)
{
	int32_t expect = 5;
	long sum = 0;

	w = 5;
	check("cas ok", __atomic_compare_exchange_n(&w, &expect, 9, 0,
		__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST), 1);
	check("cas fail", __atomic_compare_exchange_n(&w, &expect, 1, 0,
		__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST), 0);
	check("cas expected", expect, 9);
	for (int i = 0; i < 10; i++)
		sum += __atomic_fetch_add(&w, i, __ATOMIC_RELAXED);
	check("fetch_add sum", sum, 210);
	check("w", w, 54);
	check("swap", AMO(swap, w, &w, 3), 54);
	check("add", AMO(add, w, &w, 4), 3);
	check("xor", AMO(xor, w, &w, 0xf), 7);
	check("and", AMO(and, w, &w, 0xc), 8);
	check("or", AMO(or, w, &w, 0x3), 8);
	check("min", AMO(min, w, &w, -2), 11);
	check("max", AMO(max, w, &w, 20), -2);
	check("minu", AMO(minu, w, &w, -1), 20);
	check("maxu", AMO(maxu, w, &w, -1), 20);
	check("final", w, -1);
#if __riscv_xlen == 64
	dw = 1l << 40;
	check("add.d", AMO(add, d, &dw, 1l << 33), 1l << 40);
	check("min.d", AMO(min, d, &dw, -(1l << 35)), (1l << 40) + (1l << 33));
	check("maxu.d", AMO(maxu, d, &dw, 5), -(1l << 35));
	check("cas.d", __atomic_compare_exchange_n(&dw, &(int64_t){ -(1l << 35) }, 77, 0,
		__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST), 1);
	check("dw", dw, 77);
#endif
	print(failures() ? "FAIL\n" : "PASS\n");
	return failures();
}
