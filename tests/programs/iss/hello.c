// SPDX-License-Identifier: MIT
/* The simplest test: prints through picolibc's printf, then PASS. */
#include <stdio.h>

#include "virt.h"

int main(void)
{
	printf("hello from RV%d, misa %lx\n", __riscv_xlen, csr_read(misa) >> (__riscv_xlen - 2));
	printf("PASS\n");
	return 0;
}
