// SPDX-License-Identifier: MIT
/*
 * A CPU-bound workload for bench/bench_iss (about 50 million instructions):
 * recursion, a sieve, a CRC, insertion sort.  Not compared with QEMU.
 */
#include "virt.h"

__attribute__((noinline)) static unsigned long fib(unsigned long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static unsigned char flags[8192];

__attribute__((noinline)) static unsigned long sieve(void)
{
	unsigned long count = 0;

	for (unsigned i = 0; i < sizeof(flags); i++)
		flags[i] = 1;
	for (unsigned i = 2; i < sizeof(flags); i++) {
		if (!flags[i])
			continue;
		count++;
		for (unsigned j = 2 * i; j < sizeof(flags); j += i)
			flags[j] = 0;
	}
	return count;
}

__attribute__((noinline)) static uint32_t crc32(const unsigned char *p, unsigned n)
{
	uint32_t crc = ~0u;

	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

static int values[512];

__attribute__((noinline)) static long sort(unsigned seed)
{
	for (unsigned i = 0; i < 512; i++) {
		seed = seed * 1103515245u + 12345u;
		values[i] = (int)(seed >> 8);
	}
	for (int i = 1; i < 512; i++) {
		int v = values[i], j = i - 1;

		while (j >= 0 && values[j] > v) {
			values[j + 1] = values[j];
			j--;
		}
		values[j + 1] = v;
	}
	return values[0] ^ values[511];
}

int main(void)
{
	unsigned long sum = 0;

	for (unsigned r = 0; r < 16; r++) {
		sum += fib(24);
		sum += sieve();
		sum += crc32(flags, sizeof(flags));
		sum += (unsigned long)sort(r);
	}
	print("checksum ");
	print_hex(sum);
	print("\n");
	return 0;
}
